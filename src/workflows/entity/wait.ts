/**
 * The one wait every registration workflow uses: "a registry event for this entity (signal), an
 * operator action, a reconciliation poll on a backoff schedule, or the deadline, whichever first".
 * Signals only wake; the caller then reads the registry and decides (design principle 1), so a lost
 * webhook delays a workflow by at most one poll interval and never strands it.
 *
 * Deterministic: only `condition` and workflow time (`Date.now()` in workflow code).
 */
import { condition } from '@temporalio/workflow';
import type { WakeCause } from '../../contracts/audit.js';
import type { BackoffSchedule } from '../../contracts/backoff.js';

/** Why a workflow woke up (src/contracts/audit.ts); a poll schedule (src/contracts/backoff.ts). */
export type { BackoffSchedule, WakeCause };

export const MINUTE_MS = 60_000;
export const HOUR_MS = 60 * MINUTE_MS;

export const DAY_MS = 24 * HOUR_MS;

/** 1 minute doubling to 1 hour, for as long as the wait lasts (a vet's result: bounded by its 48 h deadline). */
export const GROWING_POLL: BackoffSchedule = { initialMs: MINUTE_MS, maxMs: HOUR_MS, factor: 2 };

/**
 * While the registry is expected to change soon: 1 minute doubling to 1 hour. A wait that has lasted
 * a day of polls (a share or a DCA decision that takes days) then polls every 2 days (± 20 %): its
 * answer comes by webhook, which the registry retries for about a day, and this poll is the net under
 * a webhook lost even so. At 100,000 registrations with the benchmark's 12 % pending, hourly polls
 * forever would cost about 31 % of the read budget; this tail costs about 0.6 %.
 */
export const DEFAULT_PENDING_POLL: BackoffSchedule = {
  ...GROWING_POLL,
  tail: { afterMs: DAY_MS, everyMs: 2 * DAY_MS },
};
/**
 * The safety poll of a settled entity: every 7 days (± 20 %: POLL_JITTER). The estate sweep (src/workflows/estate) reads
 * the registry's lists hourly and wakes only the entities whose registry state changed, so a settled
 * entity no longer polls on its own; this long timer is the net under the sweep.
 */
export const DEFAULT_STEADY_POLL_MS = 7 * DAY_MS;

/**
 * How old a run may grow before it continues as new at its next wake (patch run-lifetime): a settled
 * entity's run, woken only by its 7-day safety poll, would otherwise stay open for years, and with it
 * every code path it was started under. A run continues as new at the first wake after this age (a
 * poll, a webhook, an operator), with no operation in flight and its handlers finished, so it adds no
 * registry read: the next run's first step is that wake's. A wait with no poll (an operator's answer)
 * ends at this age by itself. So every open workflow has continued past a patch within this age plus
 * one steady poll (7 days + 20 %) of the patch's release: the versioning rules in docs/workflows.md.
 */
export const RUN_AGE_LIMIT_MS = 30 * DAY_MS;

/**
 * How far a poll may move at random, as a share of its delay: steady polls and pending tails ± 20 %,
 * pending ± 10 %, and an adopted entity's first poll ± 50 % (`LoopState.spreadNextPoll`): a whole
 * period wide, so the thousands an import adopts within an hour come due evenly over the days after
 * it, not in waves.
 */
export const POLL_JITTER = { steady: 0.2, pending: 0.1, adopted: 0.5 } as const;

/**
 * `delayMs` moved by up to ± `share` of itself, at random (workflow code: `Math.random` is the
 * workflow's seeded, replayable generator), so entities adopted or settled together do not poll
 * together.
 */
export function jittered(delayMs: number, share: number, random: () => number = Math.random): number {
  return Math.max(1, Math.round(delayMs * (1 + share * (2 * random() - 1))));
}

/** The delay before poll number `attempt` (0-based) of a schedule, without its tail. */
function growingDelay(schedule: BackoffSchedule, attempt: number): number {
  const factor = schedule.factor ?? 2;
  const delay = schedule.initialMs * factor ** Math.max(0, attempt);
  return Math.min(schedule.maxMs, Math.max(1, Math.round(delay)));
}

/** The first poll number whose delay is the schedule's longest growing one (`maxMs`). */
export function firstAttemptAtMax(schedule: BackoffSchedule): number {
  let attempt = 0;
  while (growingDelay(schedule, attempt) < schedule.maxMs && attempt < 1_000) attempt++;
  return attempt;
}

/**
 * The first poll number in the schedule's tail: the first whose polls before it add up to the tail's
 * `afterMs` (undefined without a tail). Adopted entities start their polls here: how long they have
 * waited already is unknown, and their answer comes by webhook.
 */
export function firstTailAttempt(schedule: BackoffSchedule): number | undefined {
  if (!schedule.tail) return undefined;
  let waited = 0;
  let attempt = 0;
  while (waited < schedule.tail.afterMs) waited += growingDelay(schedule, attempt++);
  return attempt;
}

/** Whether poll number `attempt` (0-based) is in the schedule's tail. */
export function inTail(schedule: BackoffSchedule, attempt: number): boolean {
  const first = firstTailAttempt(schedule);
  return first !== undefined && attempt >= first;
}

/**
 * The delay before poll number `attempt` (0-based) of a schedule: growing to `maxMs`, then, in its
 * tail, the tail's `everyMs`.
 */
export function backoffDelay(schedule: BackoffSchedule, attempt: number): number {
  if (schedule.tail && inTail(schedule, attempt)) return Math.max(1, Math.round(schedule.tail.everyMs));
  return growingDelay(schedule, attempt);
}

/**
 * A counter that signal and update handlers bump; a waiting loop remembers the version it last saw
 * and wakes when it changes. Several wakes before the loop runs collapse into one read.
 */
export class Wakeup {
  private version = 0;
  private cause: WakeCause = 'webhook';

  bump(cause: WakeCause): void {
    this.version++;
    this.cause = cause;
  }

  get current(): number {
    return this.version;
  }

  get lastCause(): WakeCause {
    return this.cause;
  }
}

export interface WaitOptions {
  wakeup: Wakeup;
  /** The wakeup version the caller last acted on. */
  since: number;
  /** When to poll if nothing wakes the workflow first (ms from now). */
  pollInMs?: number;
  /** Absolute workflow time (epoch ms) after which the wait ends with cause 'timer'. */
  deadline?: number;
  /** Extra condition that ends the wait (e.g. cancelled); reported as cause 'operator'. */
  interrupt?: () => boolean;
  /** What the wait is for (the phase), for the timer's summary in the Web UI. */
  summary?: string;
  /**
   * The run should continue as new now (the server suggests it): ends the wait with cause 'poll', so
   * the next run's first step reads at a poll's priority. Part of the wait's condition, so a signal
   * that wakes nothing else (its workflow task carries the suggestion) ends a long timer.
   */
  renewNow?: () => boolean;
  /**
   * Absolute workflow time when a wait without a poll ends with cause 'poll' (the run's age limit),
   * unless a poll or the deadline comes first.
   */
  renewAt?: number;
}

/** Waits for a wake, a poll or the deadline, whichever first, and says which. */
export async function waitForWakePollOrDeadline(opts: WaitOptions): Promise<WakeCause> {
  const now = Date.now();
  const untilDeadline = opts.deadline === undefined ? Number.POSITIVE_INFINITY : opts.deadline - now;
  if (untilDeadline <= 0) return 'timer';
  const untilRenewal = opts.renewAt === undefined ? Number.POSITIVE_INFINITY : opts.renewAt - now;
  const timeout = Math.min(opts.pollInMs ?? Number.POSITIVE_INFINITY, untilDeadline, untilRenewal);
  const woke = () =>
    opts.wakeup.current !== opts.since || (opts.interrupt?.() ?? false) || (opts.renewNow?.() ?? false);
  let fired = true;
  if (Number.isFinite(timeout)) {
    const which =
      timeout === untilDeadline
        ? 'deadline'
        : timeout === untilRenewal && timeout !== opts.pollInMs
          ? 'continue-as-new at the run age limit'
          : 'next registry poll';
    const summary = opts.summary === undefined ? which : `${which}: ${opts.summary}`;
    fired = await condition(woke, Math.max(1, timeout), { summary });
  } else await condition(woke);
  if (fired) {
    if (opts.interrupt?.()) return 'operator';
    if (opts.renewNow && opts.wakeup.current === opts.since) return 'poll'; // woken by renewNow
    return opts.wakeup.lastCause;
  }
  return opts.deadline !== undefined && Date.now() >= opts.deadline ? 'timer' : 'poll';
}

export type ReconcileOutcome<T> =
  | { outcome: 'done'; value: T; cause: WakeCause | 'start' }
  | { outcome: 'deadline' }
  | { outcome: 'interrupted' };

export interface ReconcileOptions<T> {
  wakeup: Wakeup;
  schedule: BackoffSchedule;
  deadline?: number;
  interrupt?: () => boolean;
  /** Reads the registry and returns a value when the awaited state is reached, undefined otherwise. */
  check: (cause: WakeCause | 'start') => Promise<T | undefined>;
  /** Told before every wait when the next poll is due (for the status query). */
  onWait?: (nextPollAt: number) => void;
}

/**
 * Checks now, then after every wake or poll until `check` returns a value, the deadline passes or
 * `interrupt` holds. A final check runs at the deadline, so an answer that came in at the last
 * moment (a webhook lost at hour 47) is still seen.
 */
export async function reconcileUntil<T>(opts: ReconcileOptions<T>): Promise<ReconcileOutcome<T>> {
  let cause: WakeCause | 'start' = 'start';
  let attempt = 0;
  for (;;) {
    if (opts.interrupt?.()) return { outcome: 'interrupted' };
    const since = opts.wakeup.current;
    const value = await opts.check(cause);
    if (value !== undefined) return { outcome: 'done', value, cause };
    if (cause === 'timer') return { outcome: 'deadline' };
    const pollInMs = backoffDelay(opts.schedule, attempt);
    opts.onWait?.(Math.min(Date.now() + pollInMs, opts.deadline ?? Number.POSITIVE_INFINITY));
    cause = await waitForWakePollOrDeadline({
      wakeup: opts.wakeup,
      since,
      pollInMs,
      ...(opts.deadline !== undefined ? { deadline: opts.deadline } : {}),
      ...(opts.interrupt ? { interrupt: opts.interrupt } : {}),
    });
    if (cause === 'poll') attempt++;
    if (cause === 'operator' && opts.interrupt?.()) return { outcome: 'interrupted' };
  }
}
