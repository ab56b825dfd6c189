/**
 * Live progress of the stack's workflows: every second, list the namespace's workflows, ask each
 * running brand and campaign workflow for its `status` query, and report what changed: phase, what it
 * waits for, what needs an operator. One change = one line.
 */
import type { Client } from '@temporalio/client';
import { withTimeout } from '../common/timeout.js';
import { BRAND_WORKFLOW_TYPE, type BrandStatus } from '../contracts/brand.js';
import { CAMPAIGN_WORKFLOW_TYPE, type CampaignStatus } from '../contracts/campaign.js';
import { settleWithin } from './settle.js';

export interface WorkflowProgress {
  workflowId: string;
  workflowType: string;
  /** The workflow's phase (status query or TcrPhase), or its execution status once closed. */
  phase: string;
  /** What it waits for ("registry: share decision by BANDWIDTH"), when it says. */
  waitingFor?: string;
  /** Operator actions it needs, "key: action (reason)". */
  needsAction: string[];
  /** A short extra: vets of a brand, the campaign id, the share state. */
  detail?: string;
}

export interface ProgressChange {
  at: Date;
  workflowId: string;
  from?: WorkflowProgress;
  to: WorkflowProgress;
}

const QUERY_TIMEOUT_MS = 2_000;

function fromBrand(workflowId: string, s: BrandStatus): WorkflowProgress {
  const vets = s.vets.map(
    (v) => `${v.evpId}/${v.vettingClass} ${v.state}${v.score !== undefined ? ` ${v.score}` : ''}`,
  );
  const detail = [s.identityStatus, s.brandId, vets.length ? `vets: ${vets.join(', ')}` : undefined]
    .filter((x) => x)
    .join(' · ');
  return {
    workflowId,
    workflowType: BRAND_WORKFLOW_TYPE,
    phase: s.phase,
    ...(s.waitingFor ? { waitingFor: s.waitingFor.what } : {}),
    needsAction: s.needsAction.map((a) => `${a.key}: ${a.action} (${a.reason})`),
    ...(detail ? { detail } : {}),
  };
}

function fromCampaign(workflowId: string, s: CampaignStatus): WorkflowProgress {
  const share = s.sharing ? `share ${s.sharing.upstreamCnpId} ${s.sharing.sharingStatus}` : undefined;
  const detail = [s.campaignId, share, s.dcaComplete ? 'DCA complete' : undefined]
    .filter((x) => x)
    .join(' · ');
  return {
    workflowId,
    workflowType: CAMPAIGN_WORKFLOW_TYPE,
    phase: s.phase,
    ...(s.waitingFor ? { waitingFor: s.waitingFor.what } : {}),
    needsAction: s.needsAction.map((a) => `${a.key}: ${a.action} (${a.reason})`),
    ...(detail ? { detail } : {}),
  };
}

const same = (a: WorkflowProgress, b: WorkflowProgress) =>
  a.phase === b.phase &&
  a.waitingFor === b.waitingFor &&
  a.detail === b.detail &&
  a.needsAction.join('\n') === b.needsAction.join('\n');

/** One line for a change: time, workflow id, old → new phase, waiting-for, needs-action. */
export function formatChange(change: ProgressChange): string {
  const time = change.at.toISOString().slice(11, 19);
  const phase = change.from
    ? change.from.phase === change.to.phase
      ? change.to.phase
      : `${change.from.phase} → ${change.to.phase}`
    : `→ ${change.to.phase}`;
  const parts = [`${time}  ${change.workflowId.padEnd(40)} ${phase}`];
  if (change.to.waitingFor) parts.push(`waiting for ${change.to.waitingFor}`);
  if (change.to.needsAction.length) parts.push(`NEEDS ACTION ${change.to.needsAction.join('; ')}`);
  if (change.to.detail) parts.push(`[${change.to.detail}]`);
  return parts.join('  ·  ');
}

export class ProgressWatcher {
  readonly #client: Client;
  readonly #onChange: (change: ProgressChange) => void;
  readonly #intervalMs: number;
  readonly #current = new Map<string, WorkflowProgress>();
  #timer: NodeJS.Timeout | undefined;
  #tick: Promise<void> | undefined;
  #stopped = false;
  /** Queries still in flight (a timed-out one keeps running): awaited by stop() before the connection closes. */
  readonly #inflight = new Set<Promise<unknown>>();

  constructor(client: Client, onChange: (change: ProgressChange) => void, intervalMs = 1_000) {
    this.#client = client;
    this.#onChange = onChange;
    this.#intervalMs = intervalMs;
  }

  /** The latest known progress of each workflow, by workflow id. */
  current(): ReadonlyMap<string, WorkflowProgress> {
    return this.#current;
  }

  start(): void {
    const loop = () => {
      if (this.#stopped) return;
      this.#tick = this.poll()
        .catch(() => undefined)
        .finally(() => {
          if (!this.#stopped) this.#timer = setTimeout(loop, this.#intervalMs);
        });
    };
    loop();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    // A query to a workflow no worker answers waits until the server gives up: bounded here.
    await settleWithin(Promise.allSettled([this.#tick, ...this.#inflight]), 5_000);
  }

  /** One round: list, query, report changes. */
  async poll(): Promise<void> {
    const seen: WorkflowProgress[] = [];
    const queries: Promise<void>[] = [];
    let count = 0;
    for await (const wf of this.#client.workflow.list({ pageSize: 200 })) {
      if (this.#stopped || ++count > 500) break;
      const type = wf.type;
      const running = wf.status.name === 'RUNNING';
      const phaseAttr = wf.searchAttributes?.TcrPhase;
      const phase = Array.isArray(phaseAttr) && typeof phaseAttr[0] === 'string' ? phaseAttr[0] : undefined;
      if (running && (type === BRAND_WORKFLOW_TYPE || type === CAMPAIGN_WORKFLOW_TYPE)) {
        queries.push(
          (async () => {
            const handle = this.#client.workflow.getHandle(wf.workflowId);
            const query = handle.query<BrandStatus | CampaignStatus>('status').catch(() => undefined);
            this.#inflight.add(query);
            void query.finally(() => this.#inflight.delete(query));
            const status = await withTimeout(query, QUERY_TIMEOUT_MS);
            if (!status) return; // busy or between runs: next round
            seen.push(
              status.workflowType === 'campaign'
                ? fromCampaign(wf.workflowId, status)
                : fromBrand(wf.workflowId, status as BrandStatus),
            );
          })(),
        );
      } else {
        const closed = running ? undefined : wf.status.name.toLowerCase();
        seen.push({
          workflowId: wf.workflowId,
          workflowType: type,
          phase: closed ? (phase ? `${phase} (${closed})` : closed) : (phase ?? 'running'),
          needsAction: [],
        });
      }
    }
    await Promise.all(queries);
    if (this.#stopped) return;
    for (const next of seen.sort((a, b) => a.workflowId.localeCompare(b.workflowId))) {
      const previous = this.#current.get(next.workflowId);
      if (previous && same(previous, next)) continue;
      this.#current.set(next.workflowId, next);
      this.#onChange({
        at: new Date(),
        workflowId: next.workflowId,
        ...(previous ? { from: previous } : {}),
        to: next,
      });
    }
  }
}
