/**
 * Guarded registry calls: the only way workflow code calls an activity. A call returns a result
 * instead of throwing, so no registry answer can escape into the workflow and fail it:
 *
 *   const read = await guarded.call('read brand', () => reads.getBrand(...));
 *   if (!read.ok) ... read.failure.class ...
 *
 * `billed` calls (brand registration, campaign creation, vet orders) run in a non-cancellable scope:
 * a Temporal cancellation waits for the write in flight and the workflow records what it created.
 *
 * Faults (everything an operator cannot fix by changing the request) are recorded per entity: the
 * first one raises needs-action `registry-error` with the call site and the registry's words; the
 * next successful call clears it. `faultBackoff` tells the loop how long to wait before trying again.
 */
import { CancellationScope, isCancellation } from '@temporalio/workflow';
import type { EntityBookkeeping } from './bookkeeping.js';
import {
  classifyRegistryFailure,
  describeFailure,
  type RegistryFailure,
  requestRefusalClasses,
} from './registry-failure.js';
import { type BackoffSchedule, backoffDelay, HOUR_MS, MINUTE_MS } from './wait.js';

export type CallResult<T> = { ok: true; value: T } | { ok: false; failure: RegistryFailure };

/** The needs-action key of a registry fault. */
export const REGISTRY_ERROR_KEY = 'registry-error';

/** How the loop backs off while a fault lasts: 1 minute doubling to 1 hour. */
export const FAULT_BACKOFF: BackoffSchedule = { initialMs: MINUTE_MS, maxMs: HOUR_MS, factor: 2 };

/** Fault bookkeeping carried across continue-as-new. */
export interface FaultState {
  /** Consecutive failed calls (0 while healthy). */
  consecutive: number;
  /** The last fault, shown in status. */
  last?: { site: string; failure: RegistryFailure; at: string };
}

export function emptyFaultState(): FaultState {
  return { consecutive: 0 };
}

/** A registry call an operation made, as its outcome reports it if the operation is interrupted. */
export interface NotedCall {
  site: string;
  billed: boolean;
  /** How it ended; absent while in flight (a cancellation abandoned it, or it is running). */
  ended?: 'answered' | 'failed';
}

export class GuardedRegistry {
  /** The calls noted since `noteCalls()` (the loop notes those of the operation it runs). Plain memory. */
  private noted: NotedCall[] | undefined;

  constructor(
    private readonly faults: FaultState,
    private readonly books: EntityBookkeeping,
  ) {}

  /** True while the last registry call failed with a fault. */
  get faulted(): boolean {
    return this.faults.consecutive > 0;
  }

  /** The loop's wait before the next try while faulted. */
  faultBackoff(): number {
    return backoffDelay(FAULT_BACKOFF, Math.max(0, this.faults.consecutive - 1));
  }

  /**
   * Runs one registry call. A request refusal (400, client checks) is returned to the caller, who
   * decides (it is the operator's to fix, not a fault); every other failure is also recorded as a fault.
   */
  async call<T>(site: string, fn: () => Promise<T>, opts: { billed?: boolean } = {}): Promise<CallResult<T>> {
    const noted: NotedCall = { site, billed: opts.billed === true };
    this.noted?.push(noted);
    try {
      const value = opts.billed ? await CancellationScope.nonCancellable(fn) : await fn();
      noted.ended = 'answered';
      this.healthy();
      return { ok: true, value };
    } catch (error) {
      if (isCancellation(error)) throw error;
      noted.ended = 'failed';
      const failure = classifyRegistryFailure(error);
      if (!failure) throw error;
      if (requestRefusalClasses.includes(failure.class)) this.healthy();
      else this.fault(site, failure);
      return { ok: false, failure };
    }
  }

  /**
   * A registry read. Any failure is a fault, a 400 included: the workflow wrote the read's request
   * itself, so there is nothing an operator fixes by changing an order; the loop retries.
   */
  async read<T>(site: string, fn: () => Promise<T>): Promise<CallResult<T>> {
    const call = await this.call(site, fn);
    if (!call.ok && requestRefusalClasses.includes(call.failure.class)) this.fault(site, call.failure);
    return call;
  }

  /** Starts noting the registry calls made (site, billed, how each ended), forgetting earlier ones. */
  noteCalls(): void {
    this.noted = [];
  }

  /** The calls noted since `noteCalls()`, oldest first; noting stops. */
  takeNotedCalls(): NotedCall[] {
    const noted = this.noted ?? [];
    this.noted = undefined;
    return noted;
  }

  /** Records a fault seen by the caller (e.g. an unconfirmed 404). */
  fault(site: string, failure: RegistryFailure): void {
    this.faults.consecutive++;
    this.faults.last = { site, failure, at: new Date(Date.now()).toISOString() };
    const reason = describeFailure(site, failure);
    this.books.audit('timer', 'registry-fault', reason);
    this.books.setAction(
      REGISTRY_ERROR_KEY,
      'none needed if the fault clears: the workflow retries on its own; otherwise fix what the reason names',
      reason,
      failure.errors,
    );
  }

  private healthy(): void {
    if (this.faults.consecutive === 0) return;
    this.faults.consecutive = 0;
    this.books.audit('timer', 'registry-recovered', this.faults.last?.site);
    this.books.clearAction(REGISTRY_ERROR_KEY);
  }
}
