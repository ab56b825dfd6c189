/**
 * Needs-action as gauges (issue 22, "needs-action count and oldest age"), per account, from Temporal's
 * visibility: no workflow is woken, and the figures are the namespace's, whichever worker or run
 * raised the need.
 *
 * - `tcr_needs_action_open{account}`: running registrations with an open needs-action
 *   (`TcrNeedsAction = true`);
 * - `tcr_needs_action_oldest_seconds{account}`: how long the oldest of them has waited, from
 *   `TcrNeedsActionSince` (the workflow's oldest open entry). Visibility cannot sort on it, so the
 *   oldest is found by bisection over counts (`TcrNeedsActionSince <= t`): about 25 count queries per
 *   account and refresh, to the second. 0 when none is open (or none carries the attribute yet:
 *   workflows started before it).
 *
 * Every worker process with metrics on refreshes them (every minute by default); take the max across
 * processes. Labels are configured account names: bounded, never personal data.
 */
import type { Client } from '@temporalio/client';
import type { MetricMeter } from '@temporalio/common';
import { Runtime } from '@temporalio/worker';
import { AccountKey, NeedsActionKey, NeedsActionSinceKey } from '../contracts/search-attributes.js';

export interface NeedsActionFigures {
  open: number;
  oldestSeconds: number;
}

/** How far back the bisection looks: a need older than this is reported at this age. */
const HORIZON_MS = 400 * 24 * 3600_000;

function quoted(value: string): string {
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/** The open needs-action of `account` and the age of the oldest, at `now`. */
export async function needsActionFigures(
  client: Client,
  account: string,
  now: number = Date.now(),
): Promise<NeedsActionFigures> {
  const open = `${AccountKey.name} = ${quoted(account)} AND ExecutionStatus = "Running" AND ${NeedsActionKey.name} = true`;
  const count = async (query: string) => (await client.workflow.count(query)).count;
  const openCount = await count(open);
  if (openCount === 0) return { open: 0, oldestSeconds: 0 };
  const raisedBy = (t: number) =>
    count(`${open} AND ${NeedsActionSinceKey.name} <= ${quoted(new Date(t).toISOString())}`);
  let hi = now;
  if ((await raisedBy(hi)) === 0) return { open: openCount, oldestSeconds: 0 };
  let lo = now - HORIZON_MS;
  if ((await raisedBy(lo)) > 0) return { open: openCount, oldestSeconds: HORIZON_MS / 1000 };
  // Invariant: none raised by lo, some by hi.
  while (hi - lo > 1000) {
    const mid = Math.floor((lo + hi) / 2);
    if ((await raisedBy(mid)) > 0) hi = mid;
    else lo = mid;
  }
  return { open: openCount, oldestSeconds: Math.round((now - hi) / 1000) };
}

export interface NeedsActionGaugesOptions {
  client: Client;
  meter: MetricMeter;
  accounts: readonly string[];
  /** Between refreshes (default 60 s). */
  everyMs?: number;
  /** A refresh that failed (Temporal unreachable, ...): the gauges keep their last values. */
  onError?: (account: string, error: unknown) => void;
}

export const NEEDS_ACTION_GAUGES_EVERY_MS = 60_000;

/** Refreshes the gauges now and every `everyMs` until the returned stop is called. */
export function startNeedsActionGauges(options: NeedsActionGaugesOptions): { stop(): Promise<void> } {
  const open = options.meter.createGauge(
    'tcr_needs_action_open',
    'int',
    undefined,
    'Running registrations with an open needs-action',
  );
  const oldest = options.meter.createGauge(
    'tcr_needs_action_oldest_seconds',
    'float',
    's',
    'Age of the oldest open needs-action',
  );
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const refresh = async () => {
    for (const account of options.accounts) {
      if (stopped) return;
      try {
        const figures = await needsActionFigures(options.client, account);
        open.set(figures.open, { account });
        oldest.set(figures.oldestSeconds, { account });
      } catch (error) {
        options.onError?.(account, error);
      }
    }
  };
  let current: Promise<void> = Promise.resolve();
  const loop = () => {
    current = refresh().finally(() => {
      if (!stopped) timer = setTimeout(loop, options.everyMs ?? NEEDS_ACTION_GAUGES_EVERY_MS).unref();
    });
  };
  loop();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await current.catch(() => undefined);
    },
  };
}

/**
 * The gauges' settings for a worker process whose Runtime serves metrics (`metricsOn`), on the
 * Runtime's meter; a failed refresh is logged once until it fails differently. Undefined when off.
 */
export function needsActionGaugesForProcess(
  metricsOn: boolean,
  log: (line: string) => void,
): Omit<NeedsActionGaugesOptions, 'client' | 'accounts'> | undefined {
  if (!metricsOn) return undefined;
  let last = '';
  return {
    meter: Runtime.instance().metricMeter,
    onError(account, error) {
      const line = `tcr worker: needs-action gauges of ${account} not refreshed: ${error instanceof Error ? error.message : String(error)}`;
      if (line !== last) log(line);
      last = line;
    },
  };
}
