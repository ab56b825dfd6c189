import { Client, Connection, defaultGrpcRetryOptions, makeGrpcRetryInterceptor } from '@temporalio/client';
import type { IngressConfig } from './config.js';

/**
 * A Temporal client for the ingress. Its gRPC retries stay within the hand-off deadline (4 attempts,
 * about half a second of back-off), because the registry is the one that retries a failed
 * delivery: the SDK's default of 10 attempts over ~30 s would keep an event the ingress already
 * answered 503 for in flight long after the answer. The connection is lazy, so the ingress starts
 * (and reports not ready on /readyz) while Temporal is down.
 */
export function createIngressClient(
  config: Pick<IngressConfig, 'temporalAddress' | 'temporalNamespace'>,
): Client {
  const connection = Connection.lazy({
    address: config.temporalAddress,
    interceptors: [makeGrpcRetryInterceptor(defaultGrpcRetryOptions({ maxAttempts: 4 }))],
  });
  return new Client({ connection, namespace: config.temporalNamespace });
}
