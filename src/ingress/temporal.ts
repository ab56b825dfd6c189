import { Client } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry';
import { dataConverter as productDataConverter } from '../codec/data-converter.js';
import { temporalConnectionOptions } from '../config/temporal-connection.js';
import type { IngressConfig } from './config.js';
import { IngressConnection } from './native-connection.js';

/**
 * A Temporal client for the ingress, on an {@link IngressConnection}: native calls (half the CPU of
 * grpc-js per event), retried only within the hand-off deadline (4 attempts, about half a second of
 * back-off), because the registry is the one that retries a failed delivery; and a connection made
 * on first use, so the ingress starts (and reports not ready on /readyz) while Temporal is down. It
 * honours TEMPORAL_* and temporal.toml profiles as the worker does (src/config/temporal-connection.ts).
 */
export function createIngressClient(
  config: Pick<IngressConfig, 'temporalAddress' | 'temporalNamespace'> &
    Partial<Pick<IngressConfig, 'temporal' | 'tracing'>>,
  /** Payload encryption (src/codec); default `dataConverter()`, keyed by TCR_PAYLOAD_KEYS_FILE. */
  dataConverter: DataConverter = productDataConverter(),
): Client {
  const options = temporalConnectionOptions(
    config.temporal ?? { address: config.temporalAddress, namespace: config.temporalNamespace },
  );
  return new Client({
    connection: new IngressConnection(options),
    namespace: config.temporalNamespace,
    dataConverter,
    // With tracing on, each signal carries the webhook span's context to the workflow.
    ...(config.tracing ? { interceptors: { workflow: [new OpenTelemetryWorkflowClientInterceptor()] } } : {}),
  });
}
