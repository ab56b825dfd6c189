/**
 * The entity loop, written once for every registration workflow (brand, campaign, vet):
 *
 *   1. run the queued operator operations, one at a time (./operations.ts);
 *   2. continue as new when history is long, when the server suggests it, or when the run has passed
 *      its age limit (RUN_AGE_LIMIT_MS, patch run-lifetime), only here and only with the queue empty
 *      and the handlers finished (audited, with the webhook delivery ids written into the carried
 *      state; the next run's first step is the wake this one continued at);
 *   3. reconcile: the phase's own step (read the registry, decide, act);
 *   4. wait for a wake (webhook, operator, another workflow), the next poll or a deadline.
 *
 * Every registry call of the entity happens in 1 or 3, so they never overlap. A final phase ends the
 * loop. A throw out of the loop (a Temporal cancellation, or an unexpected error) answers the operation
 * it interrupted and every operation still queued before it is rethrown: no update caller waits on a
 * loop that has stopped (`interruptedResult`). While a registry fault lasts the poll follows the fault backoff instead of the phase's
 * schedule, and the loop resumes the phase's schedule by itself once a call succeeds.
 */
import {
  allHandlersFinished,
  ContinueAsNew,
  condition,
  isCancellation,
  patched,
  setCurrentDetails,
  workflowInfo,
} from '@temporalio/workflow';
import type { WaitingFor } from '../../contracts/brand.js';
import { PATCHES } from '../patches.js';
import type { EntityBookkeeping } from './bookkeeping.js';
import type { CarriedDelivery, DeliveryDedupe } from './delivery-dedupe.js';
import type { OperationOutcome, OperationQueue, QueuedOperation } from './operations.js';
import type { PhaseTable } from './phases.js';
import type { GuardedRegistry, NotedCall } from './registry-call.js';
import {
  type BackoffSchedule,
  backoffDelay,
  firstTailAttempt,
  inTail,
  jittered,
  POLL_JITTER,
  RUN_AGE_LIMIT_MS,
  type WakeCause,
  type Wakeup,
  waitForWakePollOrDeadline,
} from './wait.js';

/** Loop bookkeeping carried across continue-as-new. */
export interface LoopState {
  /** Polls since the phase last changed (drives the pending schedule's backoff). */
  pollAttempt: number;
  /** Runs of this workflow id: 1 + continue-as-new count. */
  runs: number;
  /**
   * Set when the workflow adopts a registry entity (`tcr import`): its next poll is drawn from a whole
   * period (POLL_JITTER.adopted), so an import's adoptees do not all come due together a period
   * later (the 7-day safety polls of a time-skipped import came in waves of 3.6 % of the read
   * budget on their days). Cleared once the loop has waited.
   */
  spreadNextPoll?: boolean;
  /**
   * The wake a run continued as new at (patch run-lifetime): the next run's first step is that wake's
   * (a poll's read at a poll's priority, not a start's), so continuing as new costs no extra read.
   */
  resumeCause?: WakeCause;
}

export function initialLoopState(): LoopState {
  return { pollAttempt: 0, runs: 1 };
}

export type OperationResult = Omit<OperationOutcome, 'id' | 'operation' | 'phase'>;

export interface EntityLoopSpec<P extends string, K extends string> {
  table: PhaseTable<P, K>;
  phase(): P;
  queue: OperationQueue<K>;
  wakeup: Wakeup;
  guarded: GuardedRegistry;
  /** The parts of the workflow's state the loop keeps: its bookkeeping, and the delivery ids it carries. */
  state: { loop: LoopState; deliveries: CarriedDelivery[] };
  /** Webhook deliveries already seen: written into `state.deliveries` just before continue-as-new. */
  dedupe: DeliveryDedupe;
  /** What the status query shows: the loop sets and clears its `waitingFor`. */
  view: { waitingFor?: WaitingFor };
  /** Audits each continue-as-new (the brand and the campaign do; a vet does not). */
  audit?: EntityBookkeeping['audit'];
  polls: { pending: BackoffSchedule; steadyMs: number };
  execute(op: QueuedOperation<K>): Promise<OperationResult>;
  reconcile(cause: WakeCause | 'start'): Promise<void>;
  /** Absolute workflow time of the phase's deadline, if it has one. */
  deadline?(): number | undefined;
  /** The deadline passed: act on it (may call the registry; the loop awaits it). */
  onDeadline?(): void | Promise<void>;
  continueAsNewAt: number;
  /**
   * The Web UI's current details of the entity now (./current-details.ts), set whenever the loop starts
   * or stops waiting and when it ends.
   */
  details?(): string;
  /** Called when the loop is about to continue as new, before it waits for the handlers to finish. */
  beforeContinueAsNew?(): void;
  /** Continues as new with the carried state (the loop has already audited it and stored the delivery ids). */
  continueAsNew(): Promise<never>;
}

/** What the loop knows of its run when it decides whether to continue as new. */
export interface RunFacts {
  historyLength: number;
  continueAsNewSuggested: boolean;
  /** Workflow time (epoch ms) the run started. */
  runStartedAt: number;
  /** Workflow time now (epoch ms). */
  now: number;
}

/**
 * Why the run should continue as new now, or undefined: history at `continueAsNewAt` events, the
 * server's suggestion, or (given `maxRunAgeMs`, patch run-lifetime) a run that old. The text goes
 * into the audit trail.
 */
export function continueAsNewReason(
  run: RunFacts,
  limits: { continueAsNewAt: number; maxRunAgeMs?: number },
  runs: number,
): string | undefined {
  if (run.historyLength >= limits.continueAsNewAt || (run.continueAsNewSuggested && !limits.maxRunAgeMs))
    return `history length ${run.historyLength}, run ${runs}`;
  if (run.continueAsNewSuggested)
    return `suggested by the server at history length ${run.historyLength}, run ${runs}`;
  const age = run.now - run.runStartedAt;
  if (limits.maxRunAgeMs !== undefined && age >= limits.maxRunAgeMs)
    return `run age ${(age / 86_400_000).toFixed(1)} days (limit ${(limits.maxRunAgeMs / 86_400_000).toFixed(1)}), run ${runs}`;
  return undefined;
}

function setWaitingFor(view: { waitingFor?: WaitingFor }, waitingFor: WaitingFor | undefined): void {
  if (waitingFor) view.waitingFor = waitingFor;
  else delete view.waitingFor;
}

/** The Web UI's current details follow the view (no command: safe on replay). */
function showDetails<P extends string, K extends string>(spec: EntityLoopSpec<P, K>): void {
  if (spec.details) setCurrentDetails(spec.details());
}

/** The delay before the phase's next poll, jittered (POLL_JITTER), or undefined when it does not poll. */
export function phasePollDelay<P extends string, K extends string>(
  spec: EntityLoopSpec<P, K>,
): number | undefined {
  const { pending, steadyMs } = spec.polls;
  const { pollAttempt, spreadNextPoll } = spec.state.loop;
  let delay: number;
  let share: number;
  switch (spec.table[spec.phase()].poll) {
    case 'pending':
      delay = backoffDelay(pending, pollAttempt);
      share = inTail(pending, pollAttempt) ? POLL_JITTER.steady : POLL_JITTER.pending;
      break;
    case 'steady':
      delay = steadyMs;
      share = POLL_JITTER.steady;
      break;
    default:
      return undefined;
  }
  return jittered(delay, spreadNextPoll ? POLL_JITTER.adopted : share);
}

/**
 * The polls of a workflow that adopts a registry entity (`tcr import`). How long it has waited is
 * unknown: a pending one polls from its schedule's tail (webhooks and the sweep see its changes
 * first), so an import starts no minute-by-minute polls; and its next poll, pending or steady, is
 * drawn from a whole period (`spreadNextPoll`).
 */
export function startAdoptedPolls(loop: LoopState, pending: BackoffSchedule): void {
  loop.pollAttempt = firstTailAttempt(pending) ?? 0;
  loop.spreadNextPoll = true;
}

/**
 * The answer of an operation a throw interrupted: `cancelled` (a Temporal cancellation) or `failed`
 * (an unexpected error), saying it did not complete and what became of the registry calls it made.
 * A billed call is never abandoned by a cancellation (it runs non-cancellable): it finished and is
 * recorded. A call still in flight was abandoned: whether the registry applied it is unknown.
 */
export function interruptedResult(error: unknown, calls: NotedCall[], cancelled: boolean): OperationResult {
  const head = cancelled
    ? 'cancelled through Temporal while it ran: the operation did not complete'
    : `stopped by an unexpected error (${error instanceof Error ? error.message : String(error)}): the operation did not complete`;
  const said = calls.map(({ site, billed, ended }) =>
    ended === undefined
      ? `the registry call "${site}" was in flight and abandoned: whether the registry applied it is unknown (read the registry to see)`
      : billed
        ? `the billed registry call "${site}" finished (${ended}) and is recorded`
        : `the registry call "${site}" ${ended}`,
  );
  return {
    outcome: cancelled ? 'cancelled' : 'failed',
    detail: [head, ...(said.length > 0 ? said : ['no registry call was in flight'])].join('; '),
  };
}

export async function runEntityLoop<P extends string, K extends string>(
  spec: EntityLoopSpec<P, K>,
): Promise<void> {
  /** The operation running now: a throw that interrupts it still answers it. */
  let running: QueuedOperation<K> | undefined;
  try {
    await loop(spec, (op) => {
      running = op;
    });
  } catch (error) {
    if (error instanceof ContinueAsNew) throw error;
    const cancelled = isCancellation(error);
    // A Temporal cancellation ends the entity `cancelled` (each workflow's catch does it next).
    const phase = cancelled && 'cancelled' in spec.table ? ('cancelled' as P) : spec.phase();
    if (running) {
      const op = running;
      running = undefined;
      const calls = spec.guarded.takeNotedCalls();
      spec.queue.complete({
        id: op.id,
        operation: op.kind,
        phase,
        ...interruptedResult(error, calls, cancelled),
      });
    }
    spec.queue.drain(
      phase,
      cancelled ? 'cancelled' : 'failed',
      cancelled
        ? 'cancelled through Temporal before it ran: nothing was sent to the registry'
        : 'not run: the workflow stopped on an unexpected error; nothing was sent to the registry',
    );
    throw error;
  }
}

async function loop<P extends string, K extends string>(
  spec: EntityLoopSpec<P, K>,
  runs: (op: QueuedOperation<K> | undefined) => void,
): Promise<void> {
  const final = () => spec.table[spec.phase()].final;
  // A run continued as new at a wake takes that wake's step first (./wait.ts, RUN_AGE_LIMIT_MS).
  let cause: WakeCause | 'start' = spec.state.loop.resumeCause ?? 'start';
  delete spec.state.loop.resumeCause;
  for (;;) {
    const since = spec.wakeup.current;
    while (!final() && spec.queue.hasPending) {
      const op = spec.queue.take()!;
      runs(op);
      spec.guarded.noteCalls();
      const result = await spec.execute(op);
      spec.guarded.takeNotedCalls();
      runs(undefined);
      spec.queue.complete({ id: op.id, operation: op.kind, phase: spec.phase(), ...result });
    }
    if (final()) break;

    // Behind its patch: runs recorded before it replay the history-length rule alone. A run opened by
    // an earlier release takes it at its first wake after the upgrade.
    const lifetime = patched(PATCHES.runLifetime);
    const info = workflowInfo();
    const due = continueAsNewReason(
      {
        historyLength: info.historyLength,
        continueAsNewSuggested: info.continueAsNewSuggested,
        runStartedAt: info.runStartTime.getTime(),
        now: Date.now(),
      },
      { continueAsNewAt: spec.continueAsNewAt, ...(lifetime ? { maxRunAgeMs: RUN_AGE_LIMIT_MS } : {}) },
      spec.state.loop.runs,
    );
    if (due !== undefined) {
      // Handlers still running are waiting for outcomes already recorded, or for an operation that
      // arrives now: run that first (never wait on a handler that waits on us).
      spec.beforeContinueAsNew?.();
      await condition(() => allHandlersFinished() || spec.queue.hasPending);
      if (spec.queue.hasPending) {
        cause = 'operator';
        continue;
      }
      spec.audit?.(
        'timer',
        'continue-as-new',
        lifetime ? due : `history length ${workflowInfo().historyLength}, run ${spec.state.loop.runs}`,
      );
      if (lifetime && cause !== 'start') spec.state.loop.resumeCause = cause;
      spec.state.deliveries = spec.dedupe.toJSON();
      await spec.continueAsNew();
    }

    await spec.reconcile(cause);
    if (final()) break;
    if (spec.queue.hasPending) {
      cause = 'operator';
      continue;
    }

    const pollInMs = spec.guarded.faulted ? spec.guarded.faultBackoff() : phasePollDelay(spec);
    const deadline = spec.deadline?.();
    const now = Date.now();
    // A wait with no poll ends at the run's age limit; any wait ends on the server's suggestion.
    const renewAt =
      lifetime && pollInMs === undefined
        ? workflowInfo().runStartTime.getTime() + RUN_AGE_LIMIT_MS
        : undefined;
    setWaitingFor(spec.view, {
      what: spec.guarded.faulted
        ? `registry fault cleared (retrying), then: ${spec.table[spec.phase()].waitsFor}`
        : spec.table[spec.phase()].waitsFor,
      ...(pollInMs !== undefined ? { nextPollAt: new Date(now + pollInMs).toISOString() } : {}),
      ...(deadline !== undefined ? { until: new Date(deadline).toISOString() } : {}),
    });
    showDetails(spec);
    cause = await waitForWakePollOrDeadline({
      wakeup: spec.wakeup,
      since,
      ...(pollInMs !== undefined ? { pollInMs } : {}),
      ...(deadline !== undefined ? { deadline } : {}),
      interrupt: () => spec.queue.hasPending,
      ...(lifetime ? { renewNow: () => workflowInfo().continueAsNewSuggested } : {}),
      ...(renewAt !== undefined ? { renewAt } : {}),
      summary: `phase ${spec.phase()}`,
    });
    // Awake: the status query no longer shows what the loop waited for until it waits again.
    setWaitingFor(spec.view, undefined);
    showDetails(spec);
    delete spec.state.loop.spreadNextPoll;
    if (cause === 'poll' && !spec.guarded.faulted) spec.state.loop.pollAttempt++;
    if (cause === 'timer') await spec.onDeadline?.();
  }
  setWaitingFor(spec.view, undefined);
  showDetails(spec);
}
