/**
 * What tracing adds to the workers (src/observability/tracing.ts): Temporal's OpenTelemetry
 * interceptors for activities, for the workers' own Temporal client, and for workflow code (bundled
 * with ours, src/workflows/wake-trace-interceptors.ts, which comes first so the activity a wake
 * schedules gets the wake's trace), and the sink through which workflow spans leave the sandbox.
 * Off unless a Tracing is given: the workflow bundle is then exactly the one without tracing.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { OpenTelemetrySinks } from '@temporalio/interceptors-opentelemetry';
import {
  makeWorkflowExporter,
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
  OpenTelemetryWorkflowClientInterceptor,
} from '@temporalio/interceptors-opentelemetry';
import type { InjectedSinks, WorkerInterceptors } from '@temporalio/worker';
import type { Tracing } from '../observability/tracing.js';

const require = createRequire(import.meta.url);

function wakeTraceModule(): string {
  const built = fileURLToPath(new URL('../workflows/wake-trace-interceptors.js', import.meta.url));
  return existsSync(built)
    ? built
    : fileURLToPath(new URL('../workflows/wake-trace-interceptors.ts', import.meta.url));
}

/** The workflow interceptor modules tracing bundles, in order (a prebuilt bundle must include them). */
export const tracingWorkflowModules: readonly string[] = [
  wakeTraceModule(),
  require.resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors'),
];

export interface WorkerTracingOptions {
  interceptors: WorkerInterceptors;
  sinks: InjectedSinks<OpenTelemetrySinks>;
}

export function workerTracingOptions(tracing: Tracing): WorkerTracingOptions {
  return {
    interceptors: {
      workflowModules: [...tracingWorkflowModules],
      activity: [
        (ctx) => ({
          inbound: new OpenTelemetryActivityInboundInterceptor(ctx),
          outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
        }),
      ],
      client: { workflow: [new OpenTelemetryWorkflowClientInterceptor()] },
    },
    sinks: { exporter: makeWorkflowExporter(tracing.spanProcessor, tracing.resource) },
  };
}
