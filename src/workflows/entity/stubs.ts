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
 *
 * Each call carries a task-queue priority (Temporal's `priorityKey`, lower runs first) chosen by why
 * the loop is calling: an operator's operation (1), work a webhook woke (2), a new order (3), a poll
 * or timer (4), bulk background work such as sweeps and imports (5). Behind a backlog of orders in the
 * account's queue, an operator's call is dispatched next instead of at the back. The loop never runs
 * two of an entity's registry calls at once (./loop.ts), so the workflow sets the priority around
 * each step with `at` and every call inside the step carries it (deterministic: plain workflow state).
 * Writes at the operator and webhook priorities go to the account's interactive writes queue, with
 * worker slots of their own and the headroom of the write budget (src/contracts/write-budget.ts).
 *
 * Operators before bulk reads (issue 36): an adoptee's first reconciliation (`tcr import`) reads at
 * the bulk priority, behind every other adoptee's read, and the loop takes no operation until it
 * ends. With `yieldBulkReadsTo(operatorWaiting)` a bulk read still pending when an operator's step
 * arrives is cancelled (reads are idempotent; the cancellation takes the task out of the queue): the
 * bulk step stops there, the loop runs the operator's step at the operator priority and reconciles
 * again after it, which reads the entity anew.
 */

import {
  type ActivityOptions,
  CancellationScope,
  condition,
  isCancellation,
  patched,
  proxyActivities,
} from '@temporalio/workflow';
import {
  nonRetryableRegistryFailureTypes,
  type RegistryReadActivities,
  type RegistryWriteActivities,
} from '../../contracts/activity-types.js';
import type {
  CampaignReadActivities,
  CampaignWriteActivities,
} from '../../contracts/campaign-activity-types.js';
import { priorityKeys } from '../../contracts/priorities.js';
import {
  registryInteractiveWritesTaskQueue,
  registryReadsTaskQueue,
  registryWritesTaskQueue,
} from '../../contracts/task-queues.js';
import { PATCHES } from '../patches.js';
import type { AuditCause } from './audit.js';

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

/** Task-queue priority keys of registry calls (src/contracts/priorities.ts): lower is dispatched first. */
export const registryPriorityKeys = priorityKeys;

export type RegistryPriority = keyof typeof registryPriorityKeys;

/**
 * The priority of a loop step woken by `cause`. `ordering`: the entity is still being ordered
 * (registering, creating, ordering a vet), so a poll or timer step is an order, never below it.
 */
export function wakePriority(cause: AuditCause, ordering = false): RegistryPriority {
  switch (cause) {
    case 'operator':
      return 'operator';
    case 'webhook':
    case 'sweep': // the sweep stands in for a webhook that was lost
      return 'webhook';
    case 'start':
    case 'workflow':
      return 'order';
    default:
      return ordering ? 'order' : 'poll';
  }
}

export interface RegistryStubs {
  /** Reads; each call carries the priority of the innermost `at` running it ('order' outside). */
  reads: RegistryReads;
  /** Writes; each call carries the priority of the innermost `at` running it ('order' outside). */
  writes: RegistryWrites;
  /**
   * Runs `step` with its registry calls carrying `priority`. A bulk step whose read gave way to an
   * operator (`yieldBulkReadsTo`) stops there and resolves undefined: the loop reconciles again after.
   */
  at<T>(priority: Exclude<RegistryPriority, 'bulk'>, step: () => Promise<T>): Promise<T>;
  at(priority: RegistryPriority, step: () => Promise<void>): Promise<void>;
  /** From now on a bulk read still pending when `operatorWaiting()` turns true is cancelled. */
  yieldBulkReadsTo(operatorWaiting: () => boolean): void;
}

/** Thrown by a bulk read that gave way to an operator's step; the bulk `at` step ends on it. */
export class BulkReadYielded extends Error {
  constructor() {
    super('a bulk read gave way to an operator step');
    this.name = 'BulkReadYielded';
  }
}

/**
 * Runs the read `call` so that it gives way when `operatorWaiting()` turns true before it ends: the
 * read is cancelled (a RequestCancelActivityTask command, behind PATCHES.operatorsBeforeBulkReads,
 * asked only then: histories recorded before it waited for the read) and BulkReadYielded is thrown.
 */
async function yieldingRead<T>(call: () => Promise<T>, operatorWaiting: () => boolean): Promise<T> {
  const scope = new CancellationScope();
  let ended = false;
  let yielded = false;
  void condition(() => ended || operatorWaiting()).then(() => {
    if (ended || !patched(PATCHES.operatorsBeforeBulkReads)) return;
    yielded = true;
    scope.cancel();
  });
  try {
    return await scope.run(call);
  } catch (error) {
    if (yielded && isCancellation(error)) throw new BulkReadYielded();
    throw error;
  } finally {
    ended = true;
  }
}

/**
 * Options of a registry read activity of `account` at `priority`: the account's reads queue, the
 * bounded retry, the heartbeat. Entity reads and the estate's page reads use the same.
 */
export function registryReadOptions(
  account: string,
  priority: RegistryPriority,
  startToCloseTimeout = '30 seconds',
) {
  return {
    taskQueue: registryReadsTaskQueue(account),
    startToCloseTimeout,
    heartbeatTimeout: REGISTRY_HEARTBEAT_TIMEOUT,
    retry,
    priority: { priorityKey: registryPriorityKeys[priority] },
  };
}

/** Priorities whose writes are interactive: an operator's, or woken by a webhook (or a sweep). */
export function isInteractive(priority: RegistryPriority): boolean {
  return priority === 'operator' || priority === 'webhook';
}

/**
 * The queue of a write at `priority`: interactive writes have their own (issue 18: behind a backlog of
 * orders, every slot of the writes queue is held by background writes waiting for their instants).
 * Histories recorded before the change scheduled every write on `registry-writes/{account}`: the
 * patch keeps them there on replay. Asked once per priority and run, when the first write at it is made.
 */
function writesTaskQueue(account: string, priority: RegistryPriority): string {
  return isInteractive(priority) && patched(PATCHES.interactiveWrites)
    ? registryInteractiveWritesTaskQueue(account)
    : registryWritesTaskQueue(account);
}

function writesAt(account: string, priority: RegistryPriority): ActivityOptions {
  return {
    taskQueue: writesTaskQueue(account, priority),
    // createCampaign may look up, create and look up again (ambiguous failure) inside one attempt.
    startToCloseTimeout: '2 minutes',
    heartbeatTimeout: REGISTRY_HEARTBEAT_TIMEOUT,
    retry,
    priority: { priorityKey: registryPriorityKeys[priority] },
  };
}

/** Why a call at each priority is made, as the Web UI's activity summary says it. */
const callReason: Record<RegistryPriority, string> = {
  operator: "for an operator's step",
  webhook: 'woken by a registry event',
  order: 'ordering',
  poll: 'scheduled poll',
  bulk: 'bulk work (estate sweep or import)',
};

interface StubSet<T> {
  stub: T;
  options: ActivityOptions;
  priority: RegistryPriority;
}

type WithOptions = { executeWithOptions(options: ActivityOptions, args: unknown[]): Promise<unknown> };

/**
 * A stub whose every method calls the same activity on the stub set of the current priority, with a
 * summary for the Web UI: which registry call, and why (`getBrand: scheduled poll`). A summary is
 * metadata of the command, not part of what replay matches.
 */
function following<T extends object>(
  pick: () => StubSet<T>,
  yieldTo: () => (() => boolean) | undefined = () => undefined,
): T {
  return new Proxy({} as T, {
    get(_target, name) {
      if (typeof name !== 'string' || name === 'then') return undefined; // never a thenable
      return (...args: unknown[]) => {
        const { stub, options, priority } = pick();
        const activity = stub[name as keyof T] as unknown as WithOptions;
        const call = () =>
          activity.executeWithOptions({ ...options, summary: `${name}: ${callReason[priority]}` }, args);
        const operatorWaiting = priority === 'bulk' ? yieldTo() : undefined;
        return operatorWaiting ? yieldingRead(call, operatorWaiting) : call();
      };
    },
  });
}

function stubSet<T extends object>(options: ActivityOptions, priority: RegistryPriority): StubSet<T> {
  return { stub: proxyActivities<T>(options) as T, options, priority };
}

/** `make(priority)`, made once per priority. */
function perPriority<T>(make: (priority: RegistryPriority) => T): (priority: RegistryPriority) => T {
  const made = new Map<RegistryPriority, T>();
  return (priority) => {
    let stub = made.get(priority);
    if (stub === undefined) {
      stub = make(priority);
      made.set(priority, stub);
    }
    return stub;
  };
}

export function registryStubs(account: string): RegistryStubs {
  const readsAt = perPriority((priority) =>
    stubSet<RegistryReads>(registryReadOptions(account, priority), priority),
  );
  const writesAtPriority = perPriority((priority) =>
    stubSet<RegistryWrites>(writesAt(account, priority), priority),
  );
  let current: RegistryPriority = 'order';
  let operatorWaiting: (() => boolean) | undefined;
  async function at<T>(priority: RegistryPriority, step: () => Promise<T>): Promise<T | undefined> {
    const outer = current;
    current = priority;
    try {
      return await step();
    } catch (error) {
      // Only the outermost bulk step ends on a yielded read: the loop takes the operator's step next.
      if (error instanceof BulkReadYielded && priority === 'bulk' && outer !== 'bulk') return undefined;
      throw error;
    } finally {
      current = outer;
    }
  }
  return {
    reads: following(
      () => readsAt(current),
      () => operatorWaiting,
    ),
    writes: following(() => writesAtPriority(current)),
    at: at as RegistryStubs['at'],
    yieldBulkReadsTo(when) {
      operatorWaiting = when;
    },
  };
}
