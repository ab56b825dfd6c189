import { Client } from '@temporalio/client';
import { temporalConnectionOptions } from '../config/temporal-connection.js';
import type { IngressConfig } from './config.js';
import { IngressConnection } from './native-connection.js';

/**
 * A Temporal client for the ingress, on an {@link IngressConnection}: native calls (half the CPU of
 * grpc-js per event), retried only within the hand-off deadline (4 attempts, about half a second of
 * back-off), because the registry is the one that retries a failed delivery; and a connection made
 * on first use, so the ingress starts (and reports not ready on /readyz) while Temporal is down. It
 * honours TEMPORAL_API_KEY and TEMPORAL_TLS_* as the worker does (the files are read here).
 */
export function createIngressClient(
  config: Pick<IngressConfig, 'temporalAddress' | 'temporalNamespace' | 'temporalApiKey' | 'temporalTls'>,
): Client {
  const options = temporalConnectionOptions({
    address: config.temporalAddress,
    ...(config.temporalApiKey ? { apiKey: config.temporalApiKey } : {}),
    ...(config.temporalTls ? { tls: config.temporalTls } : {}),
  });
  return new Client({ connection: new IngressConnection(options), namespace: config.temporalNamespace });
}
