/**
 * The contract of an account's write budget (issue 18, item 2; issue 36, item 4): its workflow type,
 * task queue, update and the shapes they carry. The registry admits 20 writes in any 10 s per CSP
 * account (spec, "Limits"); one workflow per account (`writeBudgetWorkflowId`) answers each
 * `reserveWrite` update with the instants at which the caller may send. The grant rules themselves
 * (which instant, the headroom, the horizon, a restarted run's quiet window, repeated reservation ids)
 * are the budget's own: src/workflows/budget/grant-rules.ts.
 *
 * The update carries the budget's numbers and the caller's clock only (no reference, no account
 * data): nothing personal in the history.
 */
import { defineUpdate } from '@temporalio/workflow';

/** Workflow type name of the write budget (src/workflows/budget/index.ts, and src/workflows/index.ts). */
export const WRITE_BUDGET_WORKFLOW_TYPE = 'writeBudget';

/**
 * The budget workflows' own task queue, polled by a workflow worker of every worker process: a write
 * waits for its reservation, so the budget's tasks must not queue behind the entity workflows' (a
 * burst of new orders put the first reservation 15 s behind them on `tcr-workflows`).
 */
export const WRITE_BUDGET_TASK_QUEUE = 'registry-budget';

/**
 * Grants kept per run and carried across continue-as-new: the largest `limit` a request may ask for,
 * and so the largest `writesPer10Seconds` an account's configuration may give (src/config/accounts.ts).
 */
export const MAX_WRITE_LIMIT = 1_000;

/**
 * The most lead a request may ask for (ms): a grant lies at most this, plus one window and its margin,
 * past its request's `now` (the reach), which bounds how long a restarted run must keep quiet.
 */
export const MAX_LEAD_MS = 2_000;

/** The longest reservation id a request may carry. */
export const MAX_RESERVATION_ID_LENGTH = 100;

export interface WriteBudgetRequest {
  /** Writes admitted in any window (the spec: 20). */
  limit: number;
  /** The window (the spec: 10 000 ms). */
  windowMs: number;
  /** Added to the window: lateness allowed to a caller, network and clock skew. */
  marginMs: number;
  /** How far ahead of now the first write of an idle window is placed (so the answer arrives first). */
  leadMs: number;
  /** The caller's clock when it asked (epoch ms). */
  now: number;
  /**
   * A reservation of this caller's that came too late to be used and was not sent on: it is taken
   * off the log before the new grant (removing an instant never lets any window hold more).
   */
  unused?: number;
  /**
   * Instants to grant at once (default 1): the writes of one worker process that asked while its
   * previous request was in flight, answered by one update. At most `limit`.
   */
  count?: number;
  /** Reservations of the callers in a counted request that were not sent on (as `unused`, several). */
  unusedInstants?: number[];
  /** An operator's write, or one a webhook woke: it may use the headroom. */
  interactive?: boolean;
  /**
   * Instants of every window that background grants leave free while interactive writes are in use,
   * beyond those interactive writes took in the last window (default 0). Less than `limit`.
   */
  headroom?: number;
  /** How long after an interactive request the headroom is kept (ms, default 0). */
  headroomHoldMs?: number;
  /**
   * A background request with a count is granted only instants at most this long after the earliest
   * it could get (`now + leadMs`); the writes it cannot grant so are not recorded, and the answer's
   * `retryAt` says when to ask again. So a backlog holds no instant far ahead, where an interactive
   * write arriving later would otherwise wait behind it. Default: no horizon.
   */
  horizonMs?: number;
  /**
   * The lateness a write may have after its instant (the caller's `lateMs`, less than the margin):
   * needed with `sent`, to know how much of it a reported write did not use.
   */
  lateMs?: number;
  /**
   * Writes this caller sent since its last request, and how late after its instant each left (at
   * most `limit` of them, from the last window and margin). Like `unusedInstants`, sent with a
   * request's first attempt only: applied twice, a report could move another write's entry.
   */
  sent?: SentWrite[];
  /**
   * The reservation's stable id (issue 36, item 4): every attempt of one reservation carries the same
   * one (also its Temporal update id), and a budget that already answered it answers the same instants
   * again, never a second grant, in this run or (carried) the next.
   */
  id?: string;
  /**
   * The caller's clock (epoch ms) after which it no longer waits for this answer: a budget that has
   * seen a later `now` from any caller refuses the request (it was delivered after its caller gave up,
   * e.g. queued while no worker served the budget), so no grant goes to a write nobody will send.
   */
  deadline?: number;
}

/** A write that left, reported with its caller's next request. */
export interface SentWrite {
  /** The instant it was granted. */
  instant: number;
  /** How long after that instant it reached its socket (ms, at most the request's `lateMs`). */
  lateByMs: number;
}

export interface WriteReservation {
  /**
   * Epoch ms (the callers' clock) from which the write may be sent: the first of `instants` (or,
   * when a horizon left none granted, `retryAt`).
   */
  at: number;
  /**
   * Every instant granted, in order, one per write of a counted request; fewer than the count when
   * the request's horizon stopped the rest.
   */
  instants?: number[];
  /** When the writes of a counted request the horizon left without an instant should ask again. */
  retryAt?: number;
}

/** What a counted request got: its instants (in order), and when the rest should ask again. */
export interface GrantedInstants {
  instants: number[];
  /** Set when the horizon left some of the count without an instant. */
  retryAt?: number;
}

export interface WriteBudgetInput {
  /** The last grants of the previous run (ascending), carried by continue-as-new. */
  grants?: number[];
  /** When (the caller's clock) the last interactive request came, carried by continue-as-new. */
  lastInteractive?: number;
  /** The interactive ones among `grants`, carried by continue-as-new. */
  interactiveGrants?: number[];
  /**
   * The entries of the writes reported sent (their instants less the lateness they did not use),
   * carried by continue-as-new: part of the log beside `grants`, which holds the unreported ones.
   */
  sentGrants?: number[];
  /**
   * Set by a start that the server admitted only because no run of this budget id exists or is still
   * retained (the start's id reuse policy rejects duplicates): nothing granted by an earlier run can
   * be in flight, so this run grants at once. A run started without it, and without carried `grants`
   * (after a terminate, or started afresh over a closed run), keeps a quiet window first.
   */
  firstOfId?: boolean;
  /** A restarted run's quiet window (caller clock, epoch ms), carried by continue-as-new. */
  quietUntil?: number;
  /** The latest `now` any request carried, carried by continue-as-new (deadlines are judged by it). */
  latestNow?: number;
  /** The last answers by reservation id, carried by continue-as-new (a retry across it gets the same). */
  answers?: ReservationAnswer[];
}

/** A reservation answered, remembered by its id. */
export interface ReservationAnswer {
  id: string;
  /** The request's `now` (old answers are forgotten first). */
  now: number;
  instants: number[];
  retryAt?: number;
}

export const reserveWriteUpdate = defineUpdate<WriteReservation, [WriteBudgetRequest]>('reserveWrite');
