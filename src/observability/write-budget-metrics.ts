/**
 * The write budget's use as Prometheus metrics (issue 22, "budget used per account"). The activity
 * side of the budget (src/activities/write-budget.ts) publishes one event per reservation on a
 * diagnostics channel; when the worker serves metrics, `observeWriteBudget` counts them on the
 * Temporal Runtime's meter:
 *
 * - `tcr_write_budget_writes_total{account,kind}`: writes given a reservation (the budget spent);
 *   `kind` is `interactive` (an operator's, or woken by a webhook) or `background`;
 * - `tcr_write_budget_late_total{account}`: reservations that came too late to be used and were
 *   handed back (a slow answer, a stalled process, or a write that waited for a connection past its
 *   deadline: that one was counted in the writes too; a rising rate means the margin is too thin);
 * - `tcr_write_budget_wait_seconds{account,kind}`: how long a write waited from asking to its instant
 *   (0 when the window had room; up to the window when it was full);
 * - `tcr_write_budget_limit{account}`: the account's writes per window, to divide by;
 * - `tcr_write_budget_stalled_total{account}`: reservations the budget did not answer within their
 *   deadline (20 s): its workflow is not served or stuck, and the account's writes wait (alert
 *   TcrWriteBudgetStalled).
 *
 * The account label is a configured account name (bounded, never personal data); `kind` has two values.
 */
import diagnosticsChannel from 'node:diagnostics_channel';
import type { MetricMeter } from '@temporalio/common';

export const WRITE_BUDGET_CHANNEL = 'tcr:write-budget';

export interface WriteBudgetEvent {
  account: string;
  /** The account's writes per window. */
  limit: number;
  /** From asking for the reservation to its instant (ms). */
  waitedMs: number;
  /** The reservation came too late to be used: it was handed back and another asked for. */
  late: boolean;
  /** The write is interactive (the account's interactive writes queue). */
  interactive?: boolean;
  /** The budget answered nothing within the reservation's deadline (counted apart; `late` is false). */
  stalled?: boolean;
}

const channel = diagnosticsChannel.channel(WRITE_BUDGET_CHANNEL);

export function publishWriteBudgetEvent(event: WriteBudgetEvent): void {
  if (channel.hasSubscribers) channel.publish(event);
}

/** Seconds: a write waits from nothing to a full window (10 s) and, behind a backlog, longer. */
export const WRITE_BUDGET_WAIT_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120];

let unsubscribe: (() => void) | undefined;

/** Starts counting the budget's events on `meter` (replaces an earlier observer); returns a stop function. */
export function observeWriteBudget(meter: MetricMeter): () => void {
  unsubscribe?.();
  const writes = meter.createCounter(
    'tcr_write_budget_writes_total',
    undefined,
    'Writes sent on a budget reservation',
  );
  const late = meter.createCounter(
    'tcr_write_budget_late_total',
    undefined,
    'Budget reservations that came too late to be used and were handed back',
  );
  const waited = meter.createHistogram(
    'tcr_write_budget_wait_seconds',
    'float',
    undefined,
    'From asking the write budget to the reserved instant',
  );
  const limit = meter.createGauge(
    'tcr_write_budget_limit',
    'int',
    undefined,
    'Writes the account may send per window',
  );
  const stalled = meter.createCounter(
    'tcr_write_budget_stalled_total',
    undefined,
    'Budget reservations not answered within their deadline (the budget workflow stalled)',
  );
  const onEvent = (message: unknown) => {
    const event = message as WriteBudgetEvent;
    const tags = { account: event.account };
    limit.set(event.limit, tags);
    // The account's stalled series exists (at 0) from its first write on, so the alert sees its first
    // increase (a counter that appears at 1 shows no increase).
    stalled.add(event.stalled ? 1 : 0, tags);
    if (event.stalled) return;
    if (event.late) {
      late.add(1, tags);
      return;
    }
    const kinded = { ...tags, kind: event.interactive ? 'interactive' : 'background' };
    writes.add(1, kinded);
    waited.record(Math.max(0, event.waitedMs) / 1000, kinded);
  };
  diagnosticsChannel.subscribe(WRITE_BUDGET_CHANNEL, onEvent);
  const stop = () => {
    diagnosticsChannel.unsubscribe(WRITE_BUDGET_CHANNEL, onEvent);
    if (unsubscribe === stop) unsubscribe = undefined;
  };
  unsubscribe = stop;
  return stop;
}
