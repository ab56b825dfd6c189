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
 * account names; never a body, a header, a credential or personal data. Error text can repeat personal
 * data (a registry's rejection quoting an EIN, an e-mail), so every span passes `redactedSpan` on its
 * way out: status messages, `exception.message` and `exception.stacktrace` are dropped, the error's
 * type (`exception.type`, `error.type`) and the status code are kept.
 *
 * This module holds the process's tracer provider (a global: the SDK's interceptors and the registry
 * transport look it up) and the span processor the worker's workflow-span sink hands spans to.
 */

import type { Context } from '@opentelemetry/api';
import { context, trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { Resource } from '@opentelemetry/resources';
import {
  BatchSpanProcessor,
  type ReadableSpan,
  type Span,
  type SpanProcessor,
  type TimedEvent,
} from '@opentelemetry/sdk-trace-base';
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

/** Attributes that carry an error's text: never exported. */
const ERROR_TEXT_ATTRIBUTES = ['exception.message', 'exception.stacktrace'] as const;

function withoutErrorText<T extends Record<string, unknown> | undefined>(attributes: T): T {
  if (!attributes || !ERROR_TEXT_ATTRIBUTES.some((key) => key in attributes)) return attributes;
  const kept = { ...attributes };
  for (const key of ERROR_TEXT_ATTRIBUTES) delete kept[key];
  return kept;
}

/**
 * The span as it may leave the process: no status message, no error message or stack in its attributes
 * or events (the exception's type stays). A view over the span; the span itself is not changed.
 */
export function redactedSpan(span: ReadableSpan): ReadableSpan {
  const events: TimedEvent[] = span.events.map((event) =>
    event.attributes ? { ...event, attributes: withoutErrorText(event.attributes) } : event,
  );
  return Object.create(span, {
    status: { value: { code: span.status.code }, enumerable: true },
    attributes: { value: withoutErrorText(span.attributes), enumerable: true },
    events: { value: events, enumerable: true },
  }) as ReadableSpan;
}

/** Hands `inner` only redacted spans (every exporter of the product sits behind one). */
export class RedactingSpanProcessor implements SpanProcessor {
  constructor(private readonly inner: SpanProcessor) {}
  onStart(span: Span, parentContext: Context): void {
    this.inner.onStart(span, parentContext);
  }
  onEnd(span: ReadableSpan): void {
    this.inner.onEnd(redactedSpan(span));
  }
  forceFlush(): Promise<void> {
    return this.inner.forceFlush();
  }
  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }
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
  const processor = new RedactingSpanProcessor(
    'config' in options
      ? new BatchSpanProcessor(new OTLPTraceExporter({ url: options.config.tracesUrl }))
      : options.spanProcessor,
  );
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
