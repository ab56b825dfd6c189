import { readFileSync } from 'node:fs';
import type { NativeConnectionOptions } from '@temporalio/worker';
import type { TemporalConnectionConfig } from './worker-config.js';

/**
 * Native connection options (address, API key, TLS files read now) for the worker's and the
 * ingress's connections to Temporal: both honour TEMPORAL_API_KEY and TEMPORAL_TLS_*.
 */
export function temporalConnectionOptions(temporal: TemporalConnectionConfig): NativeConnectionOptions {
  const tls = temporal.tls
    ? {
        ...(temporal.tls.caPath ? { serverRootCACertificate: readFileSync(temporal.tls.caPath) } : {}),
        ...(temporal.tls.certPath && temporal.tls.keyPath
          ? {
              clientCertPair: {
                crt: readFileSync(temporal.tls.certPath),
                key: readFileSync(temporal.tls.keyPath),
              },
            }
          : {}),
      }
    : temporal.apiKey
      ? true
      : undefined;
  return {
    address: temporal.address,
    ...(temporal.apiKey ? { apiKey: temporal.apiKey } : {}),
    ...(tls !== undefined ? { tls } : {}),
  };
}
