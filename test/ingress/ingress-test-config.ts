/** Ingress configurations the ingress tests share. */
import { expect } from 'vitest';
import { type IngressConfig, IngressConfigError, parseIngressConfig } from '../../src/ingress/config.js';
import { signEvent } from '../../src/ingress/signature.js';

/** The message of the IngressConfigError that `env` gets; fails when the configuration is accepted. */
export function ingressConfigProblem(env: NodeJS.ProcessEnv): string {
  try {
    parseIngressConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(IngressConfigError);
    return (error as Error).message;
  }
  throw new Error('expected a configuration error');
}

/**
 * An ingress for Temporal outage tests: both listeners on ephemeral loopback ports, and a hand-off
 * that gives up after 1 s and answers 503 (`extra` adds or overrides variables).
 */
export function failFastIngressConfig(
  webhook: { url: string; secret: string },
  extra: NodeJS.ProcessEnv = {},
): IngressConfig {
  return parseIngressConfig({
    TCR_WEBHOOK_URL: webhook.url,
    TCR_WEBHOOK_SECRETS: webhook.secret,
    TCR_INGRESS_ACCOUNTS: 'acme',
    TCR_INGRESS_PORT: '0',
    TCR_INGRESS_HANDOFF_TIMEOUT_MS: '1000',
    TCR_INGRESS_HANDOFF_FAILURE: '503',
    TCR_INGRESS_INTERNAL_LISTEN: '127.0.0.1:0',
    ...extra,
  });
}

/** POSTs `event` to an ingress endpoint, signed with `secret` for `webhookUrl`, as the registry does. */
export function postSignedEvent(
  endpoint: string,
  secret: string,
  webhookUrl: string,
  event: Record<string, unknown>,
): Promise<Response> {
  return fetch(endpoint, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-registry-signature-256': signEvent(secret, webhookUrl, event),
    },
    body: JSON.stringify(event),
  });
}
