/**
 * Client-side rate limiting per CSP account (spec, "Limits": 20 GETs per second, 20 PUT/POST/DELETE per
 * 10 seconds, per account). Every client in the process that talks to the same account shares one
 * limiter (module-level registry keyed by environment, base URL and a hash of the API key), so the
 * budget holds no matter how many activities call at once. Across processes the budget is held by
 * Temporal task-queue rate limits (workflow side).
 *
 * Each bucket is a sliding-window log: at most `limit` requests in any window of `windowMs` (+ a small
 * margin), each counted from its completion (see SlidingWindowLimiter). A 429 pauses the bucket for
 * the registry's Retry-After; waiters queue in FIFO order.
 *
 * A worker's write activities hold the write budget across processes instead (src/activities/
 * write-budget.ts): they run their registry calls under `withWritePermits`, and the transport then
 * takes each write's permit from there rather than from this process's write bucket.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import { abortReason as abortError, abortableSleep as sleep } from '../common/abortable-sleep.js';

export interface RateLimitConfig {
  getsPerSecond: number;
  writesPer10Seconds: number;
  /** Window of the GET bucket; default 1000 ms. Tests shrink it. */
  getWindowMs?: number;
  /** Window of the write bucket; default 10 000 ms. Tests shrink it. */
  writeWindowMs?: number;
  /** Added to each window to absorb jitter; default 50 ms (scaled down for windows under 1 s). */
  safetyMarginMs?: number;
}

export const DEFAULT_RATE_LIMITS: RateLimitConfig = { getsPerSecond: 20, writesPer10Seconds: 20 };

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve: () => void = () => undefined;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

interface Slot {
  /** Start time while in flight; completion time once done. */
  stamp: number;
  done: boolean;
}

/**
 * At most `limit` requests in any window, counted from each request's completion: the registry
 * counts a request when it arrives, which lies somewhere between our start and our receipt of the
 * answer, so a slot is held while the request is in flight and for `windowMs + marginMs` after it
 * completes. (Counting from the start instead let a burst through: the first requests of a cold pool
 * arrive tens of milliseconds after they start.)
 */
export class SlidingWindowLimiter {
  private slots: Slot[] = [];
  private pausedUntil = 0;
  private tail: Promise<void> = Promise.resolve();
  private granted = 0;
  private completion = deferred();

  constructor(
    readonly limit: number,
    readonly windowMs: number,
    readonly marginMs: number,
    private readonly now: () => number = Date.now,
  ) {
    if (!(limit >= 1) || !(windowMs > 0)) throw new Error('rate limit needs limit >= 1 and windowMs > 0');
  }

  /** Number of request starts granted so far. */
  get grantedCount(): number {
    return this.granted;
  }

  /**
   * Waits for a slot (FIFO) and returns the function to call once the request has completed
   * (answer received or failed). Rejects with the signal's reason if aborted while waiting.
   */
  acquire(signal?: AbortSignal): Promise<() => void> {
    const turn = this.tail.then(() => this.waitForSlot(signal));
    // The queue continues whether or not this waiter was aborted.
    this.tail = turn.then(
      () => undefined,
      () => undefined,
    );
    return turn;
  }

  /** Pauses the bucket (after a 429) for `ms` from now. */
  pause(ms: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, this.now() + ms);
  }

  private async waitForSlot(signal?: AbortSignal): Promise<() => void> {
    for (;;) {
      if (signal?.aborted) throw abortError(signal);
      const now = this.now();
      const span = this.windowMs + this.marginMs;
      this.slots = this.slots.filter((s) => !s.done || s.stamp > now - span);
      let wait = this.pausedUntil - now;
      let waitForCompletion = false;
      if (this.slots.length >= this.limit) {
        const done = this.slots.filter((s) => s.done).map((s) => s.stamp);
        if (done.length > 0) wait = Math.max(wait, Math.min(...done) + span - now);
        else waitForCompletion = true;
      }
      if (wait <= 0 && !waitForCompletion) {
        const slot: Slot = { stamp: now, done: false };
        this.slots.push(slot);
        this.granted += 1;
        return () => this.complete(slot);
      }
      if (!waitForCompletion) {
        await sleep(wait, signal);
        continue;
      }
      // Every slot is in flight: wait for one to complete (or a long fallback), without leaving a timer behind.
      const stop = new AbortController();
      const timerSignal = signal ? AbortSignal.any([signal, stop.signal]) : stop.signal;
      try {
        await Promise.race([this.completion.promise, sleep(Math.max(wait, 1000), timerSignal)]);
      } catch (err) {
        if (signal?.aborted) throw err;
      } finally {
        stop.abort();
      }
    }
  }

  private complete(slot: Slot): void {
    if (slot.done) return;
    slot.done = true;
    slot.stamp = this.now();
    const { resolve } = this.completion;
    this.completion = deferred();
    resolve();
  }
}

export class AccountRateLimiter {
  readonly gets: SlidingWindowLimiter;
  readonly writes: SlidingWindowLimiter;
  constructor(readonly config: RateLimitConfig) {
    const getWindow = config.getWindowMs ?? 1000;
    const writeWindow = config.writeWindowMs ?? 10_000;
    const margin = (window: number) => config.safetyMarginMs ?? Math.min(50, Math.ceil(window / 20));
    this.gets = new SlidingWindowLimiter(config.getsPerSecond, getWindow, margin(getWindow));
    this.writes = new SlidingWindowLimiter(config.writesPer10Seconds, writeWindow, margin(writeWindow));
  }
  bucketFor(method: string): SlidingWindowLimiter {
    return method === 'GET' ? this.gets : this.writes;
  }
}

const limiters = new Map<string, AccountRateLimiter>();

/** Key of an account's limiter. The API key is hashed so it is never held in clear as a map key. */
export function rateLimiterKey(environment: string, baseUrl: string, apiKey: string): string {
  const keyHash = createHash('sha256').update(apiKey).digest('hex').slice(0, 16);
  return `${environment}|${baseUrl}|${keyHash}`;
}

/**
 * The process-wide limiter of an account. The first caller's configuration wins; a later caller with
 * a different configuration shares the existing limiter (one budget per account).
 */
export function rateLimiterFor(key: string, config: RateLimitConfig): AccountRateLimiter {
  let limiter = limiters.get(key);
  if (!limiter) {
    limiter = new AccountRateLimiter(config);
    limiters.set(key, limiter);
  }
  return limiter;
}

/** Forgets every limiter (tests). */
export function clearRateLimiters(): void {
  limiters.clear();
}

/**
 * A write's permit: the instant it was granted for, the last moment the write may reach its socket
 * (`sendBy`, checked there by ./send-by.ts), and who to tell when it did (`sent`).
 */
export interface WritePermit {
  readonly instant: number;
  readonly sendBy: number;
  /** Called with the moment (epoch ms) the write reached its socket, in time, and was sent. */
  readonly sent?: (at: number) => void;
}

/**
 * Where a write's permit comes from when the budget is held outside this process: `acquire` resolves
 * when the write may be sent (rejects with the signal's reason when aborted), with its permit, or with
 * nothing when the write has no deadline. Nothing is released after the call: the permit is the
 * instant it was granted for. `missed` is the permit of the same write that never left (it reached its
 * socket after `sendBy`): its instant is handed back with the new request.
 */
export interface WritePermits {
  acquire(signal?: AbortSignal, missed?: MissedWrite): Promise<WritePermit | undefined>;
}

/** A permit whose write reached its socket `lateByMs` after `sendBy`, and was not sent. */
export interface MissedWrite {
  permit: WritePermit;
  lateByMs: number;
}

const writePermitScope = new AsyncLocalStorage<WritePermits>();

/** Runs `fn` with its registry writes taking their permits from `permits` (see the transport). */
export function withWritePermits<T>(permits: WritePermits, fn: () => Promise<T>): Promise<T> {
  return writePermitScope.run(permits, fn);
}

/** The write permits of the calling scope, if any (`withWritePermits`). */
export function currentWritePermits(): WritePermits | undefined {
  return writePermitScope.getStore();
}
