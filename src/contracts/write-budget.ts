/**
 * The account's write budget, shared by every worker process (issue 18, item 2). The registry admits
 * 20 writes in any 10 s per CSP account, counted by request arrival (spec, "Limits"). One workflow per
 * account (`writeBudgetWorkflowId`) keeps the instants of its last grants and answers each
 * `reserveWrite` update at once with the earliest instant the window admits one more write, recording
 * it as spent there and then: a reservation is never handed back, so a worker killed while holding
 * one leaks nothing, and a restarted worker reserves after every instant already granted (no burst
 * above the window). The caller waits until the instant, then sends; a caller that finds itself later
 * than `lateMs` after its instant does not send on it and reserves again, handing the unused instant
 * back, so every write arrives within a known lateness of its instant, which the margin covers.
 *
 * The rule: no span of `windowMs + marginMs` holds more than `limit` grants, so any `limit + 1`
 * grants span at least the window plus the margin. With each write sent between its instant and
 * `lateMs` after it, and arriving within the margin's remainder (the spread of network delay, clock
 * skew between worker hosts), any `limit + 1` arrivals span more than the window.
 *
 * The update carries the budget's numbers and the caller's clock only (no reference, no account
 * data): nothing personal in the history. Instants are epoch milliseconds on the callers' clocks (each
 * request says what time it is where it was sent; the workflow never reads its own clock), so the
 * budget does not depend on the Temporal server's clock, and the margin covers the skew between
 * worker hosts.
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

/** Grants kept per run and carried across continue-as-new: the largest `limit` a request may ask for. */
export const MAX_WRITE_LIMIT = 200;

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
}

export interface WriteReservation {
  /** Epoch ms (Temporal server's clock) from which the write may be sent. */
  at: number;
}

export interface WriteBudgetInput {
  /** The last grants of the previous run (ascending), carried by continue-as-new. */
  grants?: number[];
}

export const reserveWriteUpdate = defineUpdate<WriteReservation, [WriteBudgetRequest]>('reserveWrite');

/** Why a request is refused (undefined when it is valid). */
export function writeBudgetRequestProblem(request: WriteBudgetRequest): string | undefined {
  const { limit, windowMs, marginMs, leadMs } = request ?? ({} as WriteBudgetRequest);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_WRITE_LIMIT)
    return `limit must be an integer from 1 to ${MAX_WRITE_LIMIT}`;
  if (!Number.isFinite(windowMs) || windowMs <= 0) return 'windowMs must be positive';
  if (!Number.isFinite(marginMs) || marginMs < 0) return 'marginMs must be 0 or more';
  if (!Number.isFinite(leadMs) || leadMs < 0) return 'leadMs must be 0 or more';
  if (!Number.isFinite(request.now) || request.now <= 0) return 'now must be an epoch instant';
  if (request.unused !== undefined && !Number.isFinite(request.unused)) return 'unused must be an instant';
  return undefined;
}

/** Whether `sorted` (ascending) holds at most `limit` instants in any span shorter than `span`. */
export function withinWindow(sorted: readonly number[], limit: number, span: number): boolean {
  for (let i = 0; i + limit < sorted.length; i++) if (sorted[i + limit]! - sorted[i]! < span) return false;
  return true;
}

/** `grants` (ascending) with `at` inserted in order. */
export function insertGrant(grants: number[], at: number): void {
  let index = grants.length;
  while (index > 0 && grants[index - 1]! > at) index--;
  grants.splice(index, 0, at);
}

/**
 * The earliest instant, not before the caller's now + lead, at which one more grant keeps every span
 * of `windowMs + marginMs` to at most `limit` grants. `grants` is ascending. An instant freed by a
 * handed-back reservation can be granted again, earlier than the latest grant.
 */
export function nextWriteGrant(grants: readonly number[], request: WriteBudgetRequest): number {
  const span = request.windowMs + request.marginMs;
  const earliest = request.now + request.leadMs;
  // The answer is `earliest` or a span after some grant (where a window's count drops); a span after
  // the last grant always fits.
  const candidates = [earliest, ...grants.map((g) => g + span).filter((t) => t > earliest)];
  for (const at of candidates) {
    const next = [...grants];
    insertGrant(next, at);
    if (withinWindow(next, request.limit, span)) return at;
  }
  return Math.max(earliest, (grants.at(-1) ?? earliest) + span);
}

/**
 * `grants` without one occurrence of `unused` (a caller's reservation it did not send on). Any window
 * of the remaining instants holds no more than it did, so the rule still holds for every grant made.
 */
export function withoutUnusedGrant(grants: number[], unused: number | undefined): void {
  if (unused === undefined) return;
  const index = grants.lastIndexOf(unused);
  if (index >= 0) grants.splice(index, 1);
}
