/**
 * The grant rules of the account's write budget, shared by every worker process (issue 18, item 2;
 * the contract, names and shapes only, is src/contracts/write-budget.ts). The registry admits
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
 * A run that starts without carried grants (the budget was terminated, or started afresh over a closed
 * run) cannot know what its predecessor granted, and those writes may still be on their way: it
 * grants nothing before its quiet window closes, `restartQuietMs` after the first request it gets
 * (two windows and margins plus the most lead: every grant lies at most its lead plus one window and
 * margin past its request, the reach that counted requests are held to, so the old grants' windows
 * have closed by then). Only the very first run of a budget id grants at once: its start carries
 * `firstOfId`, which the caller sets on a start the server admits only when no run of the id exists
 * or is retained (the id reuse policy rejects duplicates; a closed run is retained for days, long
 * after its grants' windows). A reset run is treated as restarted (its run id is not its chain's
 * first), but its quiet window is anchored at its first request, which a reset to a later point
 * replays: terminate a budget, never reset it (docs/operations.md).
 *
 * Each reservation carries a stable id and a deadline (issue 36, item 4). A request whose id the
 * budget answered before (a retry whose answer was lost, in this run or, carried, the last) gets the
 * same answer and nothing more is recorded; a request whose deadline is before the latest `now` any
 * caller sent is refused (its caller gave up: a grant would be a slot nobody uses).
 *
 * Instants are epoch milliseconds on the callers' clocks (each
 * request says what time it is where it was sent; the workflow never reads its own clock), so the
 * budget does not depend on the Temporal server's clock, and the margin covers the skew between
 * worker hosts.
 */
import {
  type GrantedInstants,
  MAX_LEAD_MS,
  MAX_RESERVATION_ID_LENGTH,
  MAX_WRITE_LIMIT,
  type ReservationAnswer,
  type WriteBudgetInput,
  type WriteBudgetRequest,
} from '../../contracts/write-budget.js';

/** Why a request is refused (undefined when it is valid). */
export function writeBudgetRequestProblem(request: WriteBudgetRequest): string | undefined {
  const { limit, windowMs, marginMs, leadMs } = request ?? ({} as WriteBudgetRequest);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_WRITE_LIMIT)
    return `limit must be an integer from 1 to ${MAX_WRITE_LIMIT}`;
  if (!Number.isFinite(windowMs) || windowMs <= 0) return 'windowMs must be positive';
  if (!Number.isFinite(marginMs) || marginMs < 0) return 'marginMs must be 0 or more';
  if (!Number.isFinite(leadMs) || leadMs < 0 || leadMs > MAX_LEAD_MS)
    return `leadMs must be from 0 to ${MAX_LEAD_MS}`;
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
  if (
    request.id !== undefined &&
    (typeof request.id !== 'string' ||
      request.id.length === 0 ||
      request.id.length > MAX_RESERVATION_ID_LENGTH)
  )
    return `id must be a string of 1 to ${MAX_RESERVATION_ID_LENGTH} characters`;
  if (request.deadline !== undefined && !Number.isFinite(request.deadline))
    return 'deadline must be an instant';
  return undefined;
}

/**
 * How long a restarted run keeps quiet after its first request: the old run's last grants lie at most
 * MAX_LEAD_MS plus one window and margin past their requests (the reach), and every window holding
 * them must close before this run's first grant.
 */
export function restartQuietMs(request: WriteBudgetRequest): number {
  return MAX_LEAD_MS + 2 * (request.windowMs + request.marginMs);
}

/** Answers kept by reservation id: the last ones, asked at most this long before the latest request. */
const ANSWERS_KEPT = 32;
const ANSWER_KEPT_MS = 120_000;

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
  notBefore = 0,
): number {
  const span = request.windowMs + request.marginMs;
  const earliest = Math.max(request.now + request.leadMs, notBefore);
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

/** How a run applies the rules: the restart rules came with a patch (issue 36, item 4). */
export interface GrantRuleOptions {
  /**
   * A restarted run's quiet window, the reach of counted requests, reservation ids and deadlines
   * (src/workflows/patches.ts, writeBudgetRestart). Off, the log grants as before them.
   */
  restartRules?: boolean;
  /** This run started without carried grants and not as the first of its id: it keeps quiet first. */
  restarted?: boolean;
}

/** What a request got, and whether its id was answered before (nothing new recorded). */
export interface Granted extends GrantedInstants {
  repeated?: boolean;
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
  private readonly rules: boolean;
  /** A restarted run's quiet window: no grant before it (set by its first request). */
  private quietUntil: number | undefined;
  private quietPending: boolean;
  /** The latest `now` a request carried. */
  private latestNow: number | undefined;
  /** The last answers, by reservation id (insertion order: oldest first). */
  private readonly answers = new Map<string, ReservationAnswer>();

  constructor(carried: WriteBudgetInput = {}, options: GrantRuleOptions = {}) {
    const instants = (list: number[] | undefined) =>
      [...(list ?? [])]
        .filter((t) => Number.isFinite(t))
        .sort((a, b) => a - b)
        .slice(-MAX_WRITE_LIMIT);
    this.grants = instants(carried.grants);
    this.sent = instants(carried.sentGrants);
    this.interactive = instants(carried.interactiveGrants);
    this.lastInteractive = Number.isFinite(carried.lastInteractive) ? carried.lastInteractive : undefined;
    this.rules = options.restartRules === true;
    const finite = (t: number | undefined) => (Number.isFinite(t) ? t : undefined);
    this.quietUntil = this.rules ? finite(carried.quietUntil) : undefined;
    this.quietPending = this.rules && options.restarted === true && this.quietUntil === undefined;
    this.latestNow = this.rules ? finite(carried.latestNow) : undefined;
    if (this.rules)
      for (const answer of carried.answers ?? [])
        if (typeof answer?.id === 'string' && Array.isArray(answer.instants))
          this.answers.set(answer.id, answer);
  }

  /**
   * Why the budget refuses this request now, beyond its numbers (undefined to answer it): its
   * deadline is before the latest `now` a caller sent, and its id was not answered before.
   */
  refusal(request: WriteBudgetRequest): string | undefined {
    if (!this.rules || request.deadline === undefined || this.latestNow === undefined) return undefined;
    if (request.id !== undefined && this.answers.has(request.id)) return undefined;
    return request.deadline < this.latestNow ? 'the reservation came after its deadline' : undefined;
  }

  /** A request's id answered before: the same answer again. */
  private repeated(request: WriteBudgetRequest): Granted | undefined {
    const known = this.rules && request.id !== undefined ? this.answers.get(request.id) : undefined;
    if (!known) return undefined;
    return {
      instants: [...known.instants],
      ...(known.retryAt !== undefined ? { retryAt: known.retryAt } : {}),
      repeated: true,
    };
  }

  /** Notes the request's clock (and opens a restarted run's quiet window on its first). */
  private noteRequest(request: WriteBudgetRequest): void {
    if (!this.rules) return;
    if (this.quietPending) {
      this.quietUntil = request.now + restartQuietMs(request);
      this.quietPending = false;
    }
    this.latestNow = Math.max(this.latestNow ?? request.now, request.now);
  }

  /** Remembers the answer under the request's id (the last ones, recent ones). */
  private remember(request: WriteBudgetRequest, granted: GrantedInstants): GrantedInstants {
    if (!this.rules || request.id === undefined) return granted;
    this.answers.set(request.id, {
      id: request.id,
      now: request.now,
      instants: [...granted.instants],
      ...(granted.retryAt !== undefined ? { retryAt: granted.retryAt } : {}),
    });
    for (const [id, answer] of this.answers)
      if (this.answers.size > ANSWERS_KEPT || answer.now < (this.latestNow ?? answer.now) - ANSWER_KEPT_MS)
        this.answers.delete(id);
    return granted;
  }

  /**
   * Takes back the request's unused instants, grants its `count` (default 1) and records them. Under
   * a horizon, the grants stop at the first instant beyond it: that one is not recorded, and the
   * rest of the count is told to ask again `horizonMs` before it (when it would be within).
   */
  grantAll(request: WriteBudgetRequest): Granted {
    const again = this.repeated(request);
    if (again) return again;
    this.noteRequest(request);
    for (const unused of [request.unused, ...(request.unusedInstants ?? [])]) this.handBack(unused, request);
    this.reportSent(request);
    const { unused: _, unusedInstants: __, sent: ___, ...asking } = request;
    const instants: number[] = [];
    // How far past its lead a grant may lie: the horizon, and under the restart rules the reach (one
    // window and margin) for every counted request, interactive ones too.
    const reach =
      this.rules && request.count !== undefined
        ? request.windowMs + request.marginMs
        : Number.POSITIVE_INFINITY;
    const ahead = Math.min(request.horizonMs ?? Number.POSITIVE_INFINITY, reach);
    for (let i = 0; i < (request.count ?? 1); i++) {
      const at = this.next(asking);
      if (at > request.now + request.leadMs + ahead)
        return this.remember(request, { instants, retryAt: at - request.leadMs - ahead });
      this.record(asking, at);
      instants.push(at);
    }
    return this.remember(request, { instants });
  }

  /** Takes back the request's unused instant, grants the next one and records it. */
  grant(request: WriteBudgetRequest): number {
    const again = this.repeated(request);
    if (again?.instants[0] !== undefined) return again.instants[0];
    this.noteRequest(request);
    this.handBack(request.unused, request);
    this.reportSent(request);
    const at = this.next(request);
    this.record(request, at);
    this.remember(request, { instants: [at] });
    return at;
  }

  /** The instant the rule gives `request` next (nothing recorded). */
  private next(request: WriteBudgetRequest): number {
    const since = request.now - request.windowMs - request.marginMs;
    const recent = this.interactive.filter((t) => t > since).length;
    return nextWriteGrant(
      this.entries(),
      request,
      grantLimit(request, this.lastInteractive, recent),
      this.quietUntil,
    );
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
      ...(this.quietUntil !== undefined ? { quietUntil: this.quietUntil } : {}),
      ...(this.latestNow !== undefined ? { latestNow: this.latestNow } : {}),
      ...(this.answers.size > 0 ? { answers: [...this.answers.values()] } : {}),
    };
  }
}
