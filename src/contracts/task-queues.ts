/**
 * Task queue names. Workflows run on one queue; every registry call runs on a queue dedicated to one
 * CSP account and one kind of call, so a server-side task-queue rate limit
 * (`maxTaskQueueActivitiesPerSecond`, set by the workers) holds that account's budget across every
 * worker process (spec, "Limits": 20 GET/s and 20 writes per 10 s per account).
 */

export const WORKFLOW_TASK_QUEUE = 'tcr-workflows';

/** A CSP account name as used in task queue names and configuration. */
export const accountNamePattern = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export function registryReadsTaskQueue(account: string): string {
  return `registry-reads/${account}`;
}

export function registryWritesTaskQueue(account: string): string {
  return `registry-writes/${account}`;
}

/**
 * The account's interactive writes: those an operator asked for or a webhook woke (priority keys
 * `operator` and `webhook`). Their own queue and worker slots, so they never wait behind background
 * writes holding every slot of `registry-writes/{account}` while those wait for their instants; both
 * queues' writes take their instants from the same write budget, which keeps room in every window for
 * this queue while it is in use (src/contracts/write-budget.ts).
 */
export function registryInteractiveWritesTaskQueue(account: string): string {
  return `registry-writes/${account}/interactive`;
}

/** Both writes queues of the account: a worker serving its writes polls each. */
export function registryWriteTaskQueues(account: string): [string, string] {
  return [registryWritesTaskQueue(account), registryInteractiveWritesTaskQueue(account)];
}

/** The spec's per-account budget, as task-queue activity rates (activities per second). */
export const REGISTRY_READS_PER_SECOND = 20;
/** 20 writes per 10 seconds = 2 per second, held by the server for every worker of the account. */
export const REGISTRY_WRITES_PER_SECOND = 2;
