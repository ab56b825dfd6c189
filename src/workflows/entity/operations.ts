/**
 * The operation queue of an entity workflow: one writer per entity.
 *
 * Update handlers validate a request and enqueue it here; only the workflow's main loop takes
 * operations off the queue and runs them, one at a time and in order, between its own reconciliation
 * steps. So registry calls of one entity never overlap, whatever operators, order systems and
 * webhooks do at once, and no lock is needed.
 *
 * A handler waits for its own operation's outcome (`awaitOutcome`). That never blocks continue-as-new:
 * the loop continues as new only when the queue is empty, and every operation taken off the queue gets
 * an outcome before the loop waits again. The queue's state is plain data in the workflow's state
 * object, carried across continue-as-new with everything else.
 */
import { CancellationScope, condition } from '@temporalio/workflow';
import type { OperationOutcome, OperationOutcomeKind } from '../../contracts/operations.js';
import type { AuditCause } from './audit.js';
import { REGISTRY_ERROR_KEY } from './registry-call.js';
import type { RegistryFailure } from './registry-failure.js';
import type { Wakeup } from './wait.js';

/** What an update returns: the contract of src/contracts/operations.ts. */
export type { OperationOutcome, OperationOutcomeKind } from '../../contracts/operations.js';

export interface QueuedOperation<K extends string = string> {
  id: number;
  kind: K;
  request: unknown;
  cause: AuditCause;
  /** Workflow time it was enqueued (ISO). */
  at: string;
}

export interface OperationQueueState {
  nextId: number;
  pending: QueuedOperation[];
  /** Outcomes not yet collected by their handler (bounded). */
  outcomes: OperationOutcome[];
}

export function emptyOperationQueue(): OperationQueueState {
  return { nextId: 1, pending: [], outcomes: [] };
}

const OUTCOMES_KEPT = 50;

export class OperationQueue<K extends string = string> {
  constructor(
    private readonly state: OperationQueueState,
    private readonly wakeup: Wakeup,
  ) {}

  get hasPending(): boolean {
    return this.state.pending.length > 0;
  }

  /** Kinds waiting, oldest first (for the status query). */
  pendingKinds(): K[] {
    return this.state.pending.map((op) => op.kind as K);
  }

  /** Enqueues an operation and wakes the loop. `first`: ahead of the others (cancel). */
  enqueue(kind: K, request: unknown, opts: { cause?: AuditCause; first?: boolean } = {}): number {
    const op: QueuedOperation<K> = {
      id: this.state.nextId++,
      kind,
      request,
      cause: opts.cause ?? 'operator',
      at: new Date(Date.now()).toISOString(),
    };
    if (opts.first) this.state.pending.unshift(op);
    else this.state.pending.push(op);
    this.wakeup.bump('operator');
    return op.id;
  }

  /** The next operation to run, removed from the queue. */
  take(): QueuedOperation<K> | undefined {
    return this.state.pending.shift() as QueuedOperation<K> | undefined;
  }

  complete(outcome: OperationOutcome): void {
    this.state.outcomes.push(outcome);
    while (this.state.outcomes.length > OUTCOMES_KEPT) this.state.outcomes.shift();
  }

  /** Ends every waiting operation with `outcome` (the entity reached a final phase). */
  drain(phase: string, outcome: OperationOutcomeKind, detail: string): void {
    for (let op = this.take(); op; op = this.take())
      this.complete({ id: op.id, operation: op.kind, outcome, phase, detail });
  }

  /**
   * Waits for the outcome of operation `id`. Not cancellable: a Temporal cancellation of the workflow
   * ends every operation with an outcome (`cancelled`), which the caller then receives.
   */
  async awaitOutcome(id: number): Promise<OperationOutcome> {
    const find = () => this.state.outcomes.findIndex((o) => o.id === id);
    await CancellationScope.nonCancellable(() => condition(() => find() >= 0));
    const [outcome] = this.state.outcomes.splice(find(), 1);
    return outcome!;
  }
}

/**
 * An operation's request as its update validator accepted it. Validators do not run on replay, so
 * the loop reads an accepted request without checking it again: a check made stricter in a later
 * build must not turn a recorded, accepted operation into a replay failure.
 */
export function acceptedRequest<T>(op: QueuedOperation): T {
  return op.request as T;
}

/**
 * The answer of an operation whose intent the workflow recorded and carries out by itself (the fee
 * approved, the changed order to check again) when the registry call doing it met a fault: `accepted`,
 * never `failed` (nothing to ask again). `taken`: what was recorded.
 */
export function acceptedAfterFault(
  taken: string,
  failure: RegistryFailure,
): Pick<OperationOutcome, 'outcome' | 'detail' | 'registryErrors'> {
  return {
    outcome: 'accepted',
    detail: `${taken}; the registry call met a fault (${failure.class}: ${failure.message}) and the workflow retries it by itself (needs-action ${REGISTRY_ERROR_KEY} while it lasts: fix what it names if it does not clear)`,
    ...(failure.errors.length > 0 ? { registryErrors: failure.errors } : {}),
  };
}
