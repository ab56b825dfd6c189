/**
 * /readyz on the internal listener: ready only when Temporal knows the configured namespace. A
 * reachable Temporal without it would fail every hand-off while the ingress read ready.
 */
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { pino } from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseIngressConfig } from '../../src/ingress/config.js';
import { type RunningIngress, startIngress } from '../../src/ingress/server.js';
import { createIngressClient } from '../../src/ingress/temporal.js';
import { devServerEnv } from '../support/temporal-env.js';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await devServerEnv();
});
afterAll(async () => {
  await env?.teardown();
});

async function readyz(namespace: string): Promise<{ status: number; body: unknown }> {
  const client = createIngressClient({ temporalAddress: env.address, temporalNamespace: namespace });
  let ingress: RunningIngress | undefined;
  try {
    ingress = await startIngress({
      config: parseIngressConfig({
        TCR_WEBHOOK_URL: 'https://csp.example/webhooks/registry',
        TCR_WEBHOOK_SECRETS: 'readiness-secret-0123456789abcdefghijk',
        TCR_INGRESS_ACCOUNTS: 'acme',
        TCR_INGRESS_PORT: '0',
        TCR_INGRESS_INTERNAL_LISTEN: '127.0.0.1:0',
      }),
      client,
      logger: pino({ level: 'silent' }),
    });
    const response = await fetch(`${ingress.internalUrl}/readyz`);
    return { status: response.status, body: await response.json() };
  } finally {
    await ingress?.close();
    await client.connection.close();
  }
}

it('is not ready on a namespace Temporal does not have, and ready on the real one', async () => {
  const unknown = await readyz('no-such-namespace-17');
  expect(unknown).toEqual({
    status: 503,
    body: { ready: false, reason: 'namespace no-such-namespace-17 does not exist in Temporal' },
  });
  const real = await readyz(env.namespace ?? 'default');
  expect(real).toEqual({ status: 200, body: { ready: true } });
});
