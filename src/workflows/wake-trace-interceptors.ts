/**
 * Workflow interceptors (bundled only when tracing is on: src/workers/tracing-options.ts) that put the
 * registry reads a wake causes in the trace of what woke the workflow.
 *
 * A signal only wakes an entity's loop; the loop, in the workflow's main coroutine, then reads the
 * registry. Temporal's OpenTelemetry interceptors parent an activity on the workflow's current
 * context, which in the main coroutine is the run's own span: the read a webhook caused would sit in
 * the run's trace, not the webhook's. So this module remembers the trace context of the last signal
 * or update (its headers, recorded in history, so replay sees the same) and makes it the current
 * context while an activity is scheduled, until the loop waits again (it starts a timer). Reads the
 * loop makes on a poll carry the run's own context.
 *
 * It only chooses a span's parent: no command, no state the workflow decides on.
 */
import { context as otelContext } from '@opentelemetry/api';
import type { Headers } from '@temporalio/common';
import { extractContextFromHeaders } from '@temporalio/interceptors-opentelemetry/lib/instrumentation.js';
import type { WorkflowInterceptorsFactory } from '@temporalio/workflow';

export const interceptors: WorkflowInterceptorsFactory = () => {
  /** The trace headers of the signal or update that last woke the workflow, until it waits again. */
  let wake: Headers | undefined;
  return {
    inbound: [
      {
        handleSignal(input, next) {
          wake = input.headers;
          return next(input);
        },
        handleUpdate(input, next) {
          wake = input.headers;
          return next(input);
        },
      },
    ],
    outbound: [
      {
        scheduleActivity(input, next) {
          const woken = wake ? extractContextFromHeaders(wake) : undefined;
          return woken ? otelContext.with(woken, () => next(input)) : next(input);
        },
        startTimer(input, next) {
          wake = undefined;
          return next(input);
        },
      },
    ],
  };
};
