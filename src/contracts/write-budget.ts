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
 * Interactive writes (an operator's, or woken by a webhook) are not queued behind background ones:
 * while one was asked for in the last `headroomHoldMs`, background grants leave free in every window
 * as many instants as interactive writes took in the last window plus `headroom` (at most half the
 * window), and an interactive grant may use the whole window. So an operator's write behind a backlog
 * of orders finds an instant within its lead, where first come, first served would put it after the
 * backlog's window (up to a window and its margin later). When no interactive write has come for that
 * long, background work has the whole window again (a bulk run alone loses nothing); the first
 * interactive write after such a quiet spell may wait for what was granted before it, as before.
 * Background requests carry a horizon: they are granted no instant more than `horizonMs` past the
 * earliest they could get, and ask again when the next one is that close. A backlog therefore holds
 * only the instants it is about to use, never the next window's, and once an interactive write has
 * come, the next window's headroom is still free for the ones after it.
 *
 * A write's entry in the log is its instant, and the margin covers the lateness allowed after it. A
 * caller reports with its next request how late each write it sent actually left (`sent`): its entry
 * moves earlier by the lateness it did not use (`lateMs - lateByMs`), so the write `limit` places
 * after it follows its actual send, and the margin is left to cover only the network's spread and
 * clock skew (a write sent on time lets the next window start up to `lateMs` sooner).
 * A write nobody reports (the caller died, or asked no more, or another process asks first) keeps
 * the whole allowance: a report can only let later grants come sooner, never a window hold more.
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

/**
 * Grants kept per run and carried across continue-as-new: the largest `limit` a request may ask for,
 * and so the largest `writesPer10Seconds` an account's configuration may give (src/config/accounts.ts).
 */
export const MAX_WRITE_LIMIT = 1_000;

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
  if (
    request.count !== undefined &&
    (!Number.isInteger(request.count) || request.count < 1 || request.count > limit)
  )
    return 'count must be an integer from 1 to limit';
  if (
    request.unusedInstants !== undefined &&
    (!Array.isArray(request.unusedInstants) ||
      request.unusedInstants.length > limit ||
      !request.unusedInstants.every((t) => Number.isFinite(t)))
  )
    return 'unusedInstants must be at most limit instants';
  if (
    request.headroom !== undefined &&
    (!Number.isInteger(request.headroom) || request.headroom < 0 || request.headroom >= limit)
  )
    return 'headroom must be an integer from 0 to limit - 1';
  if (
    request.headroomHoldMs !== undefined &&
    (!Number.isFinite(request.headroomHoldMs) || request.headroomHoldMs < 0)
  )
    return 'headroomHoldMs must be 0 or more';
  if (request.sent !== undefined) {
    if (!Number.isFinite(request.lateMs) || request.lateMs! < 0 || request.lateMs! >= marginMs)
      return 'lateMs must be 0 or more and less than marginMs with sent';
    if (
      !Array.isArray(request.sent) ||
      request.sent.length > limit ||
      !request.sent.every(
        (w) => Number.isFinite(w?.instant) && Number.isFinite(w?.lateByMs) && w.lateByMs >= 0,
      )
    )
      return 'sent must be at most limit writes, each an instant and a lateness of 0 or more';
  }
  if (request.horizonMs !== undefined) {
    if (!Number.isFinite(request.horizonMs) || request.horizonMs < 0) return 'horizonMs must be 0 or more';
    if (request.count === undefined) return 'horizonMs needs a count';
    if (request.interactive) return 'horizonMs is for background requests';
  }
  return undefined;
}

/**
 * How many grants a window may hold with this request's grant in it: the whole limit for an
 * interactive request, or while no interactive request came in the last `headroomHoldMs` before it
 * (`lastInteractive`, the caller's clock). Otherwise background grants leave room for the interactive
 * writes of the last window (`recentInteractive`: interactive grants from a window before the
 * request's now on) plus the headroom, and keep at least half the limit.
 */
export function grantLimit(
  request: WriteBudgetRequest,
  lastInteractive: number | undefined,
  recentInteractive = 0,
): number {
  const headroom = request.headroom ?? 0;
  if (request.interactive || headroom === 0 || lastInteractive === undefined) return request.limit;
  if (request.now - lastInteractive >= (request.headroomHoldMs ?? 0)) return request.limit;
  const kept = Math.min(Math.floor(request.limit / 2), recentInteractive + headroom);
  return request.limit - Math.max(headroom, kept);
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
 * Whether one more grant at `at` keeps every span of `span` that holds it to at most `limit` grants
 * (`grants` ascending; spans without it are as they were).
 */
export function fitsWindow(grants: readonly number[], at: number, limit: number, span: number): boolean {
  const next = [...grants];
  insertGrant(next, at);
  const index = next.lastIndexOf(at);
  for (let i = Math.max(0, index - limit); i <= index && i + limit < next.length; i++)
    if (next[i + limit]! - next[i]! < span) return false;
  return true;
}

/**
 * The earliest instant, not before the caller's now + lead, at which one more grant keeps every span
 * of `windowMs + marginMs` holding it to at most `limit` grants (`grantLimit`: less the headroom for a
 * background request while interactive writes are in use). `grants` is ascending. An instant freed by
 * a handed-back reservation can be granted again, earlier than the latest grant.
 */
export function nextWriteGrant(
  grants: readonly number[],
  request: WriteBudgetRequest,
  limit: number = request.limit,
): number {
  const span = request.windowMs + request.marginMs;
  const earliest = request.now + request.leadMs;
  // The answer is `earliest` or a span after some grant (where a window's count drops); a span after
  // the last grant always fits.
  const candidates = [earliest, ...grants.map((g) => g + span).filter((t) => t > earliest)];
  for (const at of candidates) if (fitsWindow(grants, at, limit, span)) return at;
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

/** `at` inserted in order into `grants`, which keeps its last MAX_WRITE_LIMIT instants. */
function keepGrant(grants: number[], at: number): void {
  insertGrant(grants, at);
  if (grants.length > MAX_WRITE_LIMIT) grants.splice(0, grants.length - MAX_WRITE_LIMIT);
}

/**
 * The budget's state and rule in one place (the workflow holds one, the tests drive one): the last
 * grants (ascending, at most MAX_WRITE_LIMIT), the interactive ones among them, and when the last
 * interactive request came.
 */
export class WriteGrantLog {
  /** The grants no caller reported sent (yet): their instants, ascending. */
  private readonly grants: number[];
  /** The entries of the grants reported sent (ascending): moved off `grants` by `reportSent`. */
  private readonly sent: number[];
  /** The interactive ones among them (ascending), to size the headroom by their recent number. */
  private readonly interactive: number[];
  private lastInteractive: number | undefined;

  constructor(carried: WriteBudgetInput = {}) {
    const instants = (list: number[] | undefined) =>
      [...(list ?? [])]
        .filter((t) => Number.isFinite(t))
        .sort((a, b) => a - b)
        .slice(-MAX_WRITE_LIMIT);
    this.grants = instants(carried.grants);
    this.sent = instants(carried.sentGrants);
    this.interactive = instants(carried.interactiveGrants);
    this.lastInteractive = Number.isFinite(carried.lastInteractive) ? carried.lastInteractive : undefined;
  }

  /**
   * Takes back the request's unused instants, grants its `count` (default 1) and records them. Under
   * a horizon, the grants stop at the first instant beyond it: that one is not recorded, and the
   * rest of the count is told to ask again `horizonMs` before it (when it would be within).
   */
  grantAll(request: WriteBudgetRequest): GrantedInstants {
    for (const unused of [request.unused, ...(request.unusedInstants ?? [])]) this.handBack(unused, request);
    this.reportSent(request);
    const { unused: _, unusedInstants: __, sent: ___, ...asking } = request;
    const instants: number[] = [];
    for (let i = 0; i < (request.count ?? 1); i++) {
      const at = this.next(asking);
      if (request.horizonMs !== undefined && at > request.now + request.leadMs + request.horizonMs)
        return { instants, retryAt: at - request.leadMs - request.horizonMs };
      this.record(asking, at);
      instants.push(at);
    }
    return { instants };
  }

  /** Takes back the request's unused instant, grants the next one and records it. */
  grant(request: WriteBudgetRequest): number {
    this.handBack(request.unused, request);
    this.reportSent(request);
    const at = this.next(request);
    this.record(request, at);
    return at;
  }

  /** The instant the rule gives `request` next (nothing recorded). */
  private next(request: WriteBudgetRequest): number {
    const since = request.now - request.windowMs - request.marginMs;
    const recent = this.interactive.filter((t) => t > since).length;
    return nextWriteGrant(this.entries(), request, grantLimit(request, this.lastInteractive, recent));
  }

  /**
   * Moves each reported write's entry off the unreported grants, earlier by the lateness it did not
   * use. A report whose instant no unreported grant holds (reported before, or too old to be kept) is
   * ignored: an entry moves once, by at most `lateMs`.
   */
  private reportSent(request: WriteBudgetRequest): void {
    const lateMs = request.lateMs ?? 0;
    for (const { instant, lateByMs } of request.sent ?? []) {
      const index = this.grants.lastIndexOf(instant);
      if (index < 0) continue;
      this.grants.splice(index, 1);
      keepGrant(this.sent, instant - lateMs + Math.min(lateMs, Math.max(0, lateByMs)));
    }
  }

  /** Every entry of the log, ascending: the unreported grants' instants and the reported ones'. */
  private entries(): number[] {
    if (this.sent.length === 0) return this.grants;
    const all: number[] = [];
    let i = 0;
    let j = 0;
    while (i < this.grants.length || j < this.sent.length)
      all.push(
        j >= this.sent.length || (i < this.grants.length && this.grants[i]! <= this.sent[j]!)
          ? this.grants[i++]!
          : this.sent[j++]!,
      );
    return all;
  }

  private record(request: WriteBudgetRequest, at: number): void {
    keepGrant(this.grants, at);
    if (request.interactive) {
      this.lastInteractive = Math.max(this.lastInteractive ?? request.now, request.now);
      keepGrant(this.interactive, at);
    }
  }

  private handBack(unused: number | undefined, request: WriteBudgetRequest): void {
    withoutUnusedGrant(this.grants, unused);
    // A caller hands back only its own kind's instants (each writes queue has its own permits).
    if (request.interactive) withoutUnusedGrant(this.interactive, unused);
  }

  /** The log's entries (ascending): the instants granted, those reported sent moved as reported. */
  instants(): readonly number[] {
    return this.entries();
  }

  /** What a continue-as-new carries. */
  carried(): WriteBudgetInput {
    return {
      grants: [...this.grants],
      ...(this.sent.length > 0 ? { sentGrants: [...this.sent] } : {}),
      ...(this.interactive.length > 0 ? { interactiveGrants: [...this.interactive] } : {}),
      ...(this.lastInteractive !== undefined ? { lastInteractive: this.lastInteractive } : {}),
    };
  }
}
