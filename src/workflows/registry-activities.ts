/**
 * Activity stubs per CSP account, bound to that account's reads and writes task queues. Workflows
 * (brand, vet, and later campaign) call the registry only through these. Activity options per kind:
 *
 * - reads: 30 s per attempt, retried forever with backoff 1 s doubling to 1 min (a GET is safe to repeat);
 * - writes: 60 s per attempt, the same retry policy; the write activities are idempotent or safe to
 *   repeat (registration finds its brand by referenceId);
 * - both: a heartbeat timeout of REGISTRY_HEARTBEAT_TIMEOUT (10 s). The activities heartbeat every
 *   2 s while they run (src/activities/heartbeat.ts), also while they wait in the client's rate
 *   limiter, so a missing heartbeat means the worker is gone (killed, host lost, partitioned): the
 *   attempt is retried on a live worker after 10 s instead of after the start-to-close timeout, which
 *   stays the bound for a live attempt that is stuck. 10 s leaves room for the SDK's heartbeat
 *   throttling (it sends at most every 0.8 × the timeout = 8 s) and for a busy event loop, and is short
 *   next to the 30 s / 60 s / 2 min per-attempt bounds.
 *
 * 429s come back as retryable failures with `nextRetryDelay` = the registry's Retry-After; the
 * non-retryable types (validation, unauthorized, not found) end the call and the workflow turns them
 * into an operator action.
 */
import { ActivityFailure, ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import {
  nonRetryableRegistryFailureTypes,
  type RegistryFailureDetails,
  type RegistryReadActivities,
  type RegistryWriteActivities,
} from '../activities/types.js';
import { registryReadsTaskQueue, registryWritesTaskQueue } from './task-queues.js';

export interface RegistryStubs {
  reads: RegistryReadActivities;
  writes: RegistryWriteActivities;
}

/** Heartbeat timeout of every registry activity (reads and writes, brand and campaign). */
export const REGISTRY_HEARTBEAT_TIMEOUT = '10 seconds';

const retry = {
  initialInterval: '1 second',
  backoffCoefficient: 2,
  maximumInterval: '1 minute',
  nonRetryableErrorTypes: nonRetryableRegistryFailureTypes,
} as const;

export function registryActivities(account: string): RegistryStubs {
  return {
    reads: proxyActivities<RegistryReadActivities>({
      taskQueue: registryReadsTaskQueue(account),
      startToCloseTimeout: '30 seconds',
      heartbeatTimeout: REGISTRY_HEARTBEAT_TIMEOUT,
      retry,
    }),
    writes: proxyActivities<RegistryWriteActivities>({
      taskQueue: registryWritesTaskQueue(account),
      startToCloseTimeout: '60 seconds',
      heartbeatTimeout: REGISTRY_HEARTBEAT_TIMEOUT,
      retry,
    }),
  };
}

/** A registry refusal an operator must act on, extracted from an activity failure. */
export interface RegistryRefusal {
  type: string;
  message: string;
  errors: RegistryFailureDetails['errors'];
}

/**
 * The registry refusal inside an activity failure, or undefined when the error is something else
 * (which the caller rethrows). Non-retryable registry failures are refusals; so is a retryable
 * failure whose retries ran out.
 */
export function registryRefusal(error: unknown): RegistryRefusal | undefined {
  if (!(error instanceof ActivityFailure)) return undefined;
  const cause = error.cause;
  if (!(cause instanceof ApplicationFailure)) return undefined;
  const details = cause.details?.[0] as RegistryFailureDetails | undefined;
  return {
    type: cause.type ?? 'Error',
    message: cause.message,
    errors: Array.isArray(details?.errors) ? details.errors : [],
  };
}
