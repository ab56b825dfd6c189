/**
 * Heartbeats for the registry activities. A worker that dies (SIGKILL, lost host) stops heartbeating,
 * so the server notices within the stubs' `heartbeatTimeout` (src/workflows/registry-activities.ts)
 * and retries the attempt elsewhere, instead of waiting for the whole start-to-close timeout.
 * Heartbeats also carry cancellation to a running attempt (workflow cancel, the attempt timed out on
 * the server, the workflow closed): its `cancellationSignal` fires, and the registry client, which
 * gets that signal, stops waiting in its rate limiter or aborts its HTTP call.
 *
 * Outside an activity (unit tests call the activity functions directly) everything here is a no-op.
 */
import { Context } from '@temporalio/activity';
import type { CallOptions } from '../registry/client.js';

/** Heartbeat period while an activity runs (capped at a quarter of the attempt's heartbeat timeout). */
export const HEARTBEAT_INTERVAL_MS = 2_000;

export interface HeartbeatOptions {
  /** Heartbeat period; default HEARTBEAT_INTERVAL_MS. */
  intervalMs?: number;
}

type ActivityFunction = (...args: never[]) => Promise<unknown>;

function activityContext(): Context | undefined {
  try {
    return Context.current();
  } catch {
    return undefined; // not in an activity
  }
}

/** Registry client call options with the current attempt's cancellation signal (none outside an activity). */
export function attemptCallOptions(): CallOptions {
  const signal = activityContext()?.cancellationSignal;
  return signal ? { signal } : {};
}

/** `fn`, heartbeating every `intervalMs` while its promise is pending. */
export function heartbeating<F extends ActivityFunction>(fn: F, options: HeartbeatOptions = {}): F {
  const wrapped = async (...args: Parameters<F>): Promise<Awaited<ReturnType<F>>> => {
    const context = activityContext();
    if (!context) return (await fn(...args)) as Awaited<ReturnType<F>>;
    const timeoutMs = context.info.heartbeatTimeoutMs;
    const period = Math.min(
      options.intervalMs ?? HEARTBEAT_INTERVAL_MS,
      timeoutMs ? Math.max(timeoutMs / 4, 10) : Number.POSITIVE_INFINITY,
    );
    const timer = setInterval(() => context.heartbeat(), period);
    try {
      return (await fn(...args)) as Awaited<ReturnType<F>>;
    } catch (error) {
      // A cancelled attempt (cancel requested, timed out on the server, paused, reset, worker shutdown)
      // reports the SDK's CancelledFailure, whatever the aborted registry call threw, so the worker
      // completes it as the SDK intends (cancelled, or a retryable failure after a shutdown).
      if (context.cancellationSignal.aborted && context.cancellationSignal.reason instanceof Error)
        throw context.cancellationSignal.reason;
      throw error;
    } finally {
      clearInterval(timer);
    }
  };
  Object.defineProperty(wrapped, 'name', { value: fn.name });
  return wrapped as F;
}

/** Every activity of `activities`, heartbeating while it runs (see `heartbeating`). */
export function withHeartbeat<T extends object>(activities: T, options: HeartbeatOptions = {}): T {
  const out: Record<string, unknown> = {};
  for (const [name, fn] of Object.entries(activities))
    out[name] = typeof fn === 'function' ? heartbeating(fn as ActivityFunction, options) : fn;
  return out as T;
}
