/**
 * The activity stubs of every registration workflow: one builder for the account's reads and writes,
 * on the account's rate-limited task queues, so all of an account's registry calls share its budget.
 *
 * Each call retries the retryable classes (429, 5xx, network, timeout, unparsable) a bounded number of
 * times: about 30 s of backoff (1, 2, 4, 8, 16 s) across REGISTRY_CALL_ATTEMPTS attempts. Past that,
 * the failure reaches the workflow, which shows it as needs-action in the registry's words and retries
 * on its own schedule (./registry-call.ts). A call never retries forever inside the workflow's one
 * writer, so a permanent fault cannot hide behind an endless activity.
 *
 * Time in the task queue is not part of that window: an attempt waits its turn in the account's budget
 * however long the backlog is (schedule-to-start is unbounded), and the per-attempt start-to-close
 * timeout bounds a live attempt. A dead worker is noticed by the heartbeat timeout.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { CampaignReadActivities, CampaignWriteActivities } from '../../activities/campaign-types.js';
import {
  nonRetryableRegistryFailureTypes,
  type RegistryReadActivities,
  type RegistryWriteActivities,
} from '../../activities/types.js';
import { registryReadsTaskQueue, registryWritesTaskQueue } from '../task-queues.js';

/** Heartbeat timeout of every registry activity (the activities heartbeat every 2 s). */
export const REGISTRY_HEARTBEAT_TIMEOUT = '10 seconds';

/** Attempts of one registry call before its failure reaches the workflow. */
export const REGISTRY_CALL_ATTEMPTS = 6;

const retry = {
  initialInterval: '1 second',
  backoffCoefficient: 2,
  maximumInterval: '1 minute',
  maximumAttempts: REGISTRY_CALL_ATTEMPTS,
  nonRetryableErrorTypes: nonRetryableRegistryFailureTypes,
} as const;

export type RegistryReads = RegistryReadActivities & CampaignReadActivities;
export type RegistryWrites = RegistryWriteActivities & CampaignWriteActivities;

export interface RegistryStubs {
  reads: RegistryReads;
  writes: RegistryWrites;
}

export function registryStubs(account: string): RegistryStubs {
  return {
    reads: proxyActivities<RegistryReads>({
      taskQueue: registryReadsTaskQueue(account),
      startToCloseTimeout: '30 seconds',
      heartbeatTimeout: REGISTRY_HEARTBEAT_TIMEOUT,
      retry,
    }),
    writes: proxyActivities<RegistryWrites>({
      taskQueue: registryWritesTaskQueue(account),
      // createCampaign may look up, create and look up again (ambiguous failure) inside one attempt.
      startToCloseTimeout: '2 minutes',
      heartbeatTimeout: REGISTRY_HEARTBEAT_TIMEOUT,
      retry,
    }),
  };
}
