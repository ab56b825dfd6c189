/**
 * Traces (OpenTelemetry), off by default. When on, one trace follows a webhook from the ingress's
 * handling, through its signal and the workflow it wakes, to the activity and the registry call that
 * read caused:
 *
 *   ingress webhook                              (src/ingress/app.ts)
 *   └ SignalWorkflow:registryEvent               (client interceptor: the ingress's Temporal client)
 *     ├ HandleSignal:registryEvent               (workflow interceptor, in the workflow's run)
 *     └ StartActivity:getBrand                   (workflow interceptor; parent: the wake, see
 *       └ RunActivity:getBrand                    src/workflows/wake-trace-interceptors.ts)
 *         └ registry GET /brand/{id}             (src/registry/transport.ts)
 *
 * Spans carry ids Temporal and the registry assign, event types, endpoint templates, statuses and
 * account names; never a body, a header, a credential or personal data.
 *
 * This module holds the process's tracer provider (a global: the SDK's interceptors and the registry
 * transport look it up) and the span processor the worker's workflow-span sink hands spans to.
 */
import { context, trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { Resource } from '@opentelemetry/resources';
import { BatchSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';

/** Where spans go (from the environment: src/config/tracing-config.ts). */
export interface TracingConfig {
  /** An OTLP/HTTP traces URL. */
  tracesUrl: string;
  serviceName: string;
}

export interface Tracing {
  readonly resource: Resource;
  /** Where every span ends up (the workflow-span sink included). */
  readonly spanProcessor: SpanProcessor;
  /** Sends what is buffered. */
  flush(): Promise<void>;
  /** Flushes, stops, and unregisters the global provider. Idempotent. */
  shutdown(): Promise<void>;
}

/** Where spans go: an OTLP/HTTP exporter for `config`, or a processor of the caller's (tests). */
export type StartTracingOptions =
  | { config: TracingConfig }
  | { serviceName: string; spanProcessor: SpanProcessor };

/**
 * Registers the process's tracer provider (and the async context manager that lets a span's children
 * find it) and returns it. Call once, before the Temporal clients and workers are made.
 */
export function startTracing(options: StartTracingOptions): Tracing {
  const processor =
    'config' in options
      ? new BatchSpanProcessor(new OTLPTraceExporter({ url: options.config.tracesUrl }))
      : options.spanProcessor;
  const serviceName = 'config' in options ? options.config.serviceName : options.serviceName;
  const resource = new Resource({ 'service.name': serviceName });
  const provider = new NodeTracerProvider({ resource, spanProcessors: [processor] });
  provider.register();
  let stopped: Promise<void> | undefined;
  return {
    resource,
    spanProcessor: processor,
    flush: () => provider.forceFlush(),
    shutdown() {
      stopped ??= (async () => {
        await provider.forceFlush();
        await provider.shutdown();
        trace.disable();
        context.disable();
      })();
      return stopped;
    },
  };
}
