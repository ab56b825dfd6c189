/**
 * The activity side of the account's write budget (src/contracts/write-budget.ts, the workflow in
 * src/workflows/budget/write-budget.ts). `withWriteBudget` wraps an account's write activities so
 * every registry write they send (the transport asks `currentWritePermits`) first reserves its
 * instant from the account's budget workflow, waits for it, then goes. Reads are not affected.
 *
 * A reservation is one update-with-start: the budget workflow exists on first use. Waiting happens
 * inside the activity, which heartbeats meanwhile (./heartbeat.ts); a cancelled attempt stops waiting
 * and its reservation simply goes unused. A write that would leave more than `lateMs` after its
 * instant (the answer came late, the process stalled, it waited for a connection) is not sent on that
 * reservation: it reserves again, so the budget's margin always covers the lateness. The permit's
 * `sendBy` carries that limit to the socket (src/registry/send-by.ts).
 *
 * Each reservation has a stable id (its update id, and in the request: every attempt of it gets the
 * same answer, never a second grant) and a deadline: a budget that answers nothing within
 * `reserveDeadlineMs` (no worker serves it, its run is stuck) fails the write's attempt, which
 * Temporal retries, and counts as stalled (tcr_write_budget_stalled_total, alert
 * TcrWriteBudgetStalled) instead of holding every write of the account silently. The start that
 * comes with the update asks for the first run of the id (`firstOfId`, id reuse rejected); when an
 * earlier run of the id is still retained, it starts a run without it, which keeps quiet first
 * (src/workflows/budget/grant-rules.ts).
 */

import { randomUUID } from 'node:crypto';
import { Context } from '@temporalio/activity';
import {
  type Client,
  WithStartWorkflowOperation,
  WorkflowExecutionAlreadyStartedError,
  WorkflowUpdateFailedError,
} from '@temporalio/client';
import { abortReason, abortableSleep as sleep } from '../common/abortable-sleep.js';
import { writeBudgetWorkflowId } from '../contracts/ids.js';
import {
  MAX_LEAD_MS,
  reserveWriteUpdate,
  type SentWrite,
  WRITE_BUDGET_TASK_QUEUE,
  WRITE_BUDGET_WORKFLOW_TYPE,
  type WriteBudgetRequest,
  type WriteReservation,
} from '../contracts/write-budget.js';
import { publishWriteBudgetEvent } from '../observability/write-budget-metrics.js';
import { type WritePermits, withWritePermits } from '../registry/rate-limiter.js';

export interface WriteBudgetSettings {
  /** Writes admitted in any window; default 20 (spec). */
  limit: number;
  /** Default 10 000 ms (spec). */
  windowMs: number;
  /**
   * Added to the window between grant k and grant k − limit: must exceed `lateMs` plus the spread of
   * network delay to the registry plus twice the clock skew between workers and the Temporal server.
   * Default 400 ms: 300 ms beyond the lateness (250 ms left 150 ms, and a bench whose registry sat
   * behind 100–130 ms of event-loop delay met a 429 with the budget held as the proxy saw it).
   */
  marginMs: number;
  /** The first write of an idle window is placed this far ahead, so its answer arrives in time. */
  leadMs: number;
  /** A write later than this after its instant reserves again instead of being sent. */
  lateMs: number;
  /**
   * Instants of every window that background writes leave to interactive ones (an operator's, or
   * woken by a webhook) while those are in use, beyond those interactive writes took in the last
   * window; default a tenth of the limit (2 of the spec's 20).
   */
  headroom: number;
  /** How long after an interactive write the headroom is kept; default 5 minutes. */
  headroomHoldMs: number;
  /**
   * Background writes are granted no instant more than this past the earliest they could get (their
   * lead); the others wait and ask again when theirs is that close. Default 1 s: a backlog holds only
   * the instants it is about to use, so the next window's headroom stays free for interactive writes.
   */
  horizonMs: number;
  /**
   * How long a reservation waits for the budget's answer before the write's attempt fails and the
   * budget counts as stalled; default 20 s (the answer normally takes milliseconds).
   */
  reserveDeadlineMs: number;
}

export const DEFAULT_WRITE_BUDGET: WriteBudgetSettings = {
  limit: 20,
  windowMs: 10_000,
  marginMs: 400,
  leadMs: 50,
  lateMs: 100,
  headroom: 2,
  headroomHoldMs: 300_000,
  horizonMs: 1_000,
  reserveDeadlineMs: 20_000,
};

/** The settings of an account whose budget is `writesPer10Seconds` (its `rateLimits`, or the spec's). */
export function writeBudgetSettings(
  writesPer10Seconds: number,
  overrides: Partial<WriteBudgetSettings> = {},
): WriteBudgetSettings {
  const limit = Math.max(1, Math.floor(writesPer10Seconds));
  const settings = {
    ...DEFAULT_WRITE_BUDGET,
    limit,
    headroom: Math.floor(limit / 10),
    ...overrides,
  };
  if (settings.marginMs <= settings.lateMs)
    throw new Error('the write budget margin must exceed the lateness it allows a write');
  if (!Number.isInteger(settings.headroom) || settings.headroom < 0 || settings.headroom >= settings.limit)
    throw new Error('the write budget headroom must be a whole number below its limit');
  if (!Number.isFinite(settings.horizonMs) || settings.horizonMs < 0)
    throw new Error('the write budget horizon must be 0 ms or more');
  if (!Number.isFinite(settings.reserveDeadlineMs) || settings.reserveDeadlineMs <= 0)
    throw new Error('the write budget reservation deadline must be positive');
  return settings;
}

export interface WriteBudgetOptions {
  /** Temporal client; default the activity context's. */
  temporalClient?: () => Client;
  /** Task queue the budget workflow runs on (default WRITE_BUDGET_TASK_QUEUE). */
  workflowTaskQueue?: string;
  /** Called for each reservation that came too late to be used (metrics, tests). */
  onLate?: (account: string, lateByMs: number) => void;
  /**
   * The writes are interactive (the account's interactive writes queue): they may use the headroom
   * background writes leave, and keep it held. Default: background.
   */
  interactive?: boolean;
}

/** Attempts of one reservation when the update itself fails (a run ending or continuing as new meanwhile). */
const RESERVE_ATTEMPTS = 5;

/** The budget answered no reservation within its deadline (no worker serves it, or its run is stuck). */
export class WriteBudgetStalledError extends Error {
  constructor(account: string, deadlineMs: number) {
    super(`the write budget of account ${account} answered no reservation within ${deadlineMs} ms`);
    this.name = 'WriteBudgetStalledError';
  }
}

/**
 * One reservation: `id` is its update id and goes in every attempt's request, so an attempt whose
 * answer was lost is answered the same again. Each attempt first asks for the first run of the id
 * (no run of it retained); when the server has one, closed, it starts a run without `firstOfId`.
 */
async function reserve(
  client: Client,
  account: string,
  id: string,
  request: (attempt: number) => WriteBudgetRequest,
  taskQueue: string,
  signal: AbortSignal,
): Promise<WriteReservation> {
  let firstOfId = true;
  for (let attempt = 1; ; attempt++) {
    if (signal.aborted) throw abortReason(signal);
    const update = () =>
      client.workflow.executeUpdateWithStart(reserveWriteUpdate, {
        args: [{ ...request(attempt), id }],
        updateId: id,
        startWorkflowOperation: new WithStartWorkflowOperation(
          WRITE_BUDGET_WORKFLOW_TYPE,
          budgetStartOptions(account, taskQueue, firstOfId),
        ),
      });
    try {
      // The update waits until the budget workflow answers, which it never does when no worker serves
      // its queue (every one stopped, or stopping): the deadline, or the attempt's cancellation, ends it.
      return await client.withAbortSignal(signal, update);
    } catch (error) {
      if (signal.aborted) throw abortReason(signal);
      // An earlier run of the id is retained (terminated, or closed otherwise): a run without
      // `firstOfId`, at once.
      if (firstOfId && error instanceof WorkflowExecutionAlreadyStartedError) {
        firstOfId = false;
        attempt--;
        continue;
      }
      // A refused request (its numbers) is not retried; anything else (the run closing as the update
      // arrived, a transient RPC failure) is, a few times, before the activity's own retry takes over.
      if (error instanceof WorkflowUpdateFailedError || attempt >= RESERVE_ATTEMPTS) throw error;
      await sleep(50 * 2 ** attempt, signal);
    }
  }
}

/**
 * How the budget workflow of `account` is started, by a reservation (with its update) or by the
 * workers: joined when it runs; `firstOfId` only as the first run of its id (reuse rejected).
 */
function budgetStartOptions(account: string, taskQueue: string, firstOfId: boolean) {
  return {
    workflowId: writeBudgetWorkflowId(account),
    taskQueue,
    args: [firstOfId ? { firstOfId: true } : {}],
    workflowIdConflictPolicy: 'USE_EXISTING' as const,
    workflowIdReusePolicy: firstOfId ? ('REJECT_DUPLICATE' as const) : ('ALLOW_DUPLICATE' as const),
  };
}

/**
 * Starts the budget workflow of `account` unless it runs (the workers do, so the first write does not
 * wait for a start): as the first run of its id when no run of it is retained, otherwise (an earlier
 * run terminated) as a run that keeps quiet first (src/workflows/budget/grant-rules.ts).
 */
export async function startWriteBudget(
  client: Client,
  account: string,
  taskQueue: string = WRITE_BUDGET_TASK_QUEUE,
): Promise<void> {
  const start = (firstOfId: boolean) =>
    client.workflow.start(WRITE_BUDGET_WORKFLOW_TYPE, budgetStartOptions(account, taskQueue, firstOfId));
  try {
    await start(true);
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    await start(false);
  }
}

/** One write waiting for its instant in the next batch (see `writeBudgetPermits`). */
interface Waiter {
  /** The instant of this write's last reservation, which it did not send on (not yet handed back). */
  unused: number | undefined;
  signal: AbortSignal | undefined;
  resolve(at: number): void;
  reject(error: unknown): void;
}

/**
 * Permits from the budget workflow of `account`. The writes of this process (of one kind) that ask
 * while a reservation is in flight wait for it to return, then go as one counted request: one update
 * for many writes, so a burst of a window's writes makes one or two updates, not one each (Temporal
 * admits only a few updates in flight per workflow: 10 by default). The lead asked for follows the
 * reservations' round trip as this process measures it (at least `settings.leadMs`), so a
 * reservation's answer arrives before its instant; one that arrives too late anyway is handed back
 * with the next request. Background writes the budget's horizon left without an instant wait, with
 * those that ask meanwhile, until its `retryAt`, and go first in the next batch. The writes sent
 * (each permit's `sent`, called where the write reaches its socket) are reported with the next
 * request, so the budget places the next window after their actual sends rather than after their
 * instants plus all the lateness they were allowed.
 */
export function writeBudgetPermits(
  account: string,
  settings: WriteBudgetSettings,
  options: WriteBudgetOptions = {},
): WritePermits {
  const temporal = () => options.temporalClient?.() ?? Context.current().client;
  const taskQueue = options.workflowTaskQueue ?? WRITE_BUDGET_TASK_QUEUE;
  /** Smoothed round trip of a reservation (ms). */
  let roundTrip = settings.leadMs;
  const queue: Waiter[] = [];
  let inFlight = false;
  /** No request before this (the budget's horizon said to ask again then); epoch ms. */
  let askAgainAt = 0;
  let askAgainTimer: ReturnType<typeof setTimeout> | undefined;
  /** Writes sent since the last request, to report with the next. */
  let sent: SentWrite[] = [];

  /** Sends one counted request for the writes waiting (at most a window's), then the next batch. */
  const flush = async (): Promise<void> => {
    if (inFlight) return;
    const notYet = askAgainAt - Date.now();
    if (notYet > 0) {
      askAgainTimer ??= setTimeout(() => {
        askAgainTimer = undefined;
        void flush();
      }, notYet);
      askAgainTimer.unref?.();
      return;
    }
    const batch = queue.splice(0, settings.limit).filter((w) => !w.signal?.aborted);
    if (batch.length === 0) return;
    inFlight = true;
    // The update stops waiting only when every write of the batch stopped waiting.
    const stop = new AbortController();
    const stopIfAllAborted = () => {
      if (batch.every((w) => w.signal?.aborted)) stop.abort(new Error('every write of the batch stopped'));
    };
    for (const w of batch) w.signal?.addEventListener('abort', stopIfAllAborted, { once: true });
    const asked = Date.now();
    const stalled = new AbortController();
    const deadline = setTimeout(
      () => stalled.abort(new WriteBudgetStalledError(account, settings.reserveDeadlineMs)),
      settings.reserveDeadlineMs,
    );
    deadline.unref?.();
    const unused = batch.flatMap((w) => (w.unused === undefined ? [] : [w.unused]));
    // Only the sends of the last window and margin can move a grant to come; at most a window's.
    const reported = sent
      .filter((w) => w.instant > asked - settings.windowMs - settings.marginMs)
      .slice(-settings.limit);
    sent = [];
    const request: WriteBudgetRequest = {
      limit: settings.limit,
      windowMs: settings.windowMs,
      marginMs: settings.marginMs,
      leadMs: Math.min(MAX_LEAD_MS, Math.max(settings.leadMs, Math.ceil(2 * roundTrip))),
      now: asked,
      count: batch.length,
      headroom: settings.headroom,
      headroomHoldMs: settings.headroomHoldMs,
      ...(options.interactive ? { interactive: true } : { horizonMs: settings.horizonMs }),
      ...(unused.length > 0 ? { unusedInstants: unused } : {}),
      ...(reported.length > 0 ? { lateMs: settings.lateMs, sent: reported } : {}),
      deadline: asked + settings.reserveDeadlineMs,
    };
    try {
      // Unused instants are handed back, and sends reported, by the first attempt only: a retry must
      // not apply them twice (an attempt whose answer was lost may have been applied).
      const reservation = await reserve(
        temporal(),
        account,
        randomUUID(),
        (attempt) => {
          const { unusedInstants: _, sent: __, lateMs: ___, ...rest } = request;
          return attempt === 1 ? { ...request, now: Date.now() } : { ...rest, now: Date.now() };
        },
        taskQueue,
        AbortSignal.any([stop.signal, stalled.signal]),
      );
      roundTrip = 0.8 * roundTrip + 0.2 * (Date.now() - asked);
      const instants = reservation.instants ?? [reservation.at];
      const ungranted = batch.slice(instants.length);
      for (const [i, at] of instants.entries()) batch[i]?.resolve(at);
      if (ungranted.length > 0 && reservation.retryAt === undefined)
        for (const w of ungranted) w.reject(new Error('the write budget answered fewer instants than asked'));
      else if (ungranted.length > 0) {
        // Their hand-backs went with this request. They wait first in line, with every write that
        // comes meanwhile, until the budget's retryAt: asking sooner would be told the same.
        for (const w of ungranted) w.unused = undefined;
        queue.unshift(...ungranted);
        askAgainAt = reservation.retryAt!;
      }
    } catch (error) {
      if (error instanceof WriteBudgetStalledError)
        publishWriteBudgetEvent({
          account,
          limit: settings.limit,
          waitedMs: Date.now() - asked,
          late: false,
          stalled: true,
          ...(options.interactive ? { interactive: true } : {}),
        });
      for (const w of batch) w.reject(error);
    } finally {
      clearTimeout(deadline);
      for (const w of batch) w.signal?.removeEventListener('abort', stopIfAllAborted);
      inFlight = false;
      void flush();
    }
  };

  /** This write's next instant: it joins the next batch. */
  const reserveOne = (unused: number | undefined, signal: AbortSignal | undefined) =>
    new Promise<number>((resolve, reject) => {
      if (signal?.aborted) return reject(abortReason(signal));
      const onAbort = () => reject(abortReason(signal!));
      signal?.addEventListener('abort', onAbort, { once: true });
      queue.push({
        unused,
        signal,
        resolve: (at) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(at);
        },
        reject: (error) => {
          signal?.removeEventListener('abort', onAbort);
          reject(error);
        },
      });
      void flush();
    });

  return {
    async acquire(signal, missed) {
      let unused = missed?.permit.instant;
      if (missed) {
        publishWriteBudgetEvent({
          account,
          limit: settings.limit,
          waitedMs: 0,
          late: true,
          ...(options.interactive ? { interactive: true } : {}),
        });
        options.onLate?.(account, settings.lateMs + missed.lateByMs);
      }
      for (;;) {
        const asked = Date.now();
        // A write that stops waiting leaves its instant unused (the budget only ever grants less).
        const at = await reserveOne(unused, signal);
        const wait = at - Date.now();
        if (wait > 0) await sleep(wait, signal);
        const late = Date.now() - at;
        const event = {
          account,
          limit: settings.limit,
          waitedMs: at - asked,
          ...(options.interactive ? { interactive: true } : {}),
        };
        if (late <= settings.lateMs) {
          publishWriteBudgetEvent({ ...event, late: false });
          return {
            instant: at,
            sendBy: at + settings.lateMs,
            sent: (when) => {
              sent.push({ instant: at, lateByMs: Math.max(0, when - at) });
            },
          };
        }
        publishWriteBudgetEvent({ ...event, late: true });
        options.onLate?.(account, late);
        unused = at;
      }
    },
  };
}

type AccountActivity = (input: { account: string }, ...rest: never[]) => Promise<unknown>;

/**
 * Every activity of `activities` (each takes `{account, ...}` first), with the registry writes it
 * sends taking their permits from the account's budget workflow.
 */
export function withWriteBudget<T extends object>(
  activities: T,
  settings: WriteBudgetSettings,
  options: WriteBudgetOptions = {},
): T {
  const permits = new Map<string, WritePermits>();
  const permitsOf = (account: string) => {
    let p = permits.get(account);
    if (!p) {
      p = writeBudgetPermits(account, settings, options);
      permits.set(account, p);
    }
    return p;
  };
  const out: Record<string, unknown> = {};
  for (const [name, fn] of Object.entries(activities)) {
    if (typeof fn !== 'function') {
      out[name] = fn;
      continue;
    }
    const wrapped = (input: { account: string }, ...rest: never[]) =>
      withWritePermits(permitsOf(input.account), () => (fn as AccountActivity)(input, ...rest));
    Object.defineProperty(wrapped, 'name', { value: fn.name });
    out[name] = wrapped;
  }
  return out as T;
}
