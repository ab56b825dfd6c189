/**
 * Registrations by phase and needs-action as gauges (issue 22, "registrations by kind and phase",
 * "needs-action count and oldest age"), per account, from Temporal's visibility: no workflow is woken,
 * and the figures are the namespace's, whichever worker or run made them.
 *
 * - `tcr_registrations{account, kind, phase}`: running brand and campaign workflows in each phase that
 *   is not final (`TcrPhase`; one count per phase: visibility groups by execution status only);
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
import { messageOf } from '../common/error-message.js';
import { BRAND_WORKFLOW_TYPE, brandPhaseNames, terminalBrandPhases } from '../contracts/brand.js';
import { CAMPAIGN_WORKFLOW_TYPE, campaignPhaseNames, terminalCampaignPhases } from '../contracts/campaign.js';
import { AccountKey, NeedsActionKey, NeedsActionSinceKey, PhaseKey } from '../contracts/search-attributes.js';

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

/** The phases whose running registrations are counted, per kind (final phases end their workflow). */
const countedPhases = {
  brand: {
    type: BRAND_WORKFLOW_TYPE,
    phases: brandPhaseNames.filter((p) => !terminalBrandPhases.includes(p)),
  },
  campaign: {
    type: CAMPAIGN_WORKFLOW_TYPE,
    phases: campaignPhaseNames.filter((p) => !terminalCampaignPhases.includes(p)),
  },
} as const;

export interface PhaseCount {
  kind: 'brand' | 'campaign';
  phase: string;
  running: number;
}

/** Running registrations of `account` in each phase that is not final, per kind. */
export async function registrationsByPhase(client: Client, account: string): Promise<PhaseCount[]> {
  const counts: PhaseCount[] = [];
  for (const kind of ['brand', 'campaign'] as const) {
    const { type, phases } = countedPhases[kind];
    for (const phase of phases) {
      const query = `WorkflowType = ${quoted(type)} AND ${AccountKey.name} = ${quoted(account)} AND ExecutionStatus = "Running" AND ${PhaseKey.name} = ${quoted(phase)}`;
      counts.push({ kind, phase, running: (await client.workflow.count(query)).count });
    }
  }
  return counts;
}

export interface RegistrationGaugesOptions {
  client: Client;
  meter: MetricMeter;
  accounts: readonly string[];
  /** Between refreshes (default 60 s). */
  everyMs?: number;
  /** A refresh that failed (Temporal unreachable, ...): the gauges keep their last values. */
  onError?: (account: string, error: unknown) => void;
}

export const REGISTRATION_GAUGES_EVERY_MS = 60_000;

/** Refreshes the gauges now and every `everyMs` until the returned stop is called. */
export function startRegistrationGauges(options: RegistrationGaugesOptions): { stop(): Promise<void> } {
  const registrations = options.meter.createGauge(
    'tcr_registrations',
    'int',
    undefined,
    'Running registrations in each phase that is not final',
  );
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
        for (const { kind, phase, running } of await registrationsByPhase(options.client, account))
          registrations.set(running, { account, kind, phase });
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
      if (!stopped) timer = setTimeout(loop, options.everyMs ?? REGISTRATION_GAUGES_EVERY_MS).unref();
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
export function registrationGaugesForProcess(
  metricsOn: boolean,
  log: (line: string) => void,
): Omit<RegistrationGaugesOptions, 'client' | 'accounts'> | undefined {
  if (!metricsOn) return undefined;
  let last = '';
  return {
    meter: Runtime.instance().metricMeter,
    onError(account, error) {
      const line = `tcr worker: registration gauges of ${account} not refreshed: ${messageOf(error)}`;
      if (line !== last) log(line);
      last = line;
    },
  };
}
