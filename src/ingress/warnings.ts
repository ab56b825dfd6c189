import type { IngressConfig } from './config.js';
import { isLoopbackHost } from './source-addresses.js';

/**
 * The warning an ingress without an allow-list gives when it listens beyond loopback (anyone who
 * finds the URL may then POST, and only the signature stands in the way), or undefined.
 */
export function openAllowListWarning(config: Pick<IngressConfig, 'allow' | 'host'>): string | undefined {
  if (config.allow.length > 0 || isLoopbackHost(config.host)) return undefined;
  return (
    `WARNING: TCR_INGRESS_ALLOW is empty and the ingress listens on ${config.host}: anyone may POST events. ` +
    "Set it to the registry's published webhook source addresses (tcr_ingress_allow_list_enabled is 0)."
  );
}

/** Logged (at most once a minute) when an allow-listed address sends a bad signature. */
export const SIGNATURE_FAILURE_FROM_ALLOWED =
  'MISCONFIGURATION: a bad signature from an allow-listed registry address. TCR_WEBHOOK_URL must be ' +
  'exactly the registered URL and TCR_WEBHOOK_SECRETS must hold the current secret; until then every ' +
  'event fails and the registry discards it after 13 retries (tcr_ingress_signature_failures_from_allowed_total).';
