/**
 * Campaign activity stubs per CSP account, on that account's reads and writes task queues (the same
 * queues, heartbeat timeout and retry policy as the brand workflow's stubs in ./registry-activities.ts,
 * whose comment explains the timeouts), so campaign calls share the account's registry rate budget.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { CampaignReadActivities, CampaignWriteActivities } from '../activities/campaign-types.js';
import { nonRetryableRegistryFailureTypes } from '../activities/types.js';
import { REGISTRY_HEARTBEAT_TIMEOUT } from './registry-activities.js';
import { registryReadsTaskQueue, registryWritesTaskQueue } from './task-queues.js';

export interface CampaignStubs {
  reads: CampaignReadActivities;
  writes: CampaignWriteActivities;
}

const retry = {
  initialInterval: '1 second',
  backoffCoefficient: 2,
  maximumInterval: '1 minute',
  nonRetryableErrorTypes: nonRetryableRegistryFailureTypes,
} as const;

export function campaignActivities(account: string): CampaignStubs {
  return {
    reads: proxyActivities<CampaignReadActivities>({
      taskQueue: registryReadsTaskQueue(account),
      startToCloseTimeout: '30 seconds',
      heartbeatTimeout: REGISTRY_HEARTBEAT_TIMEOUT,
      retry,
    }),
    writes: proxyActivities<CampaignWriteActivities>({
      taskQueue: registryWritesTaskQueue(account),
      // createCampaign may look up, create and look up again (ambiguous failure) inside one attempt:
      // a live attempt gets 2 minutes; a dead worker is noticed by the heartbeat timeout (10 s).
      startToCloseTimeout: '2 minutes',
      heartbeatTimeout: REGISTRY_HEARTBEAT_TIMEOUT,
      retry,
    }),
  };
}
