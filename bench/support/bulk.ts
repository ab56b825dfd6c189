/**
 * A bulk onboarding run: N brand orders and N campaign orders (campaign i on brand i) started through
 * the order API at once, then watched until every brand is `ready` and every campaign `running`;
 * afterwards the registry's state is checked: one brand and one campaign per order, one fee per
 * campaign.
 */
import type { Client } from '@temporalio/client';
import { getBrandStatus, startBrandOrder } from '../../src/orders/brand-client.js';
import {
  type CampaignWorkflowOptions,
  getCampaignStatus,
  startCampaignOrder,
} from '../../src/orders/campaign-orders.js';
import { RegistryClient } from '../../src/registry/client.js';
import type { SimulatorControl } from '../../src/simulator/control-client.js';
import { DEFAULT_ACCOUNT } from '../../src/simulator/index.js';
import type { AuditTrail } from '../../src/workflows/entity/audit.js';
import { brandOrder, campaignOrder } from './orders.js';
import { sleep } from './stats.js';

export interface BulkOptions {
  n: number;
  prefix: string;
  /** Campaign poll of its brand (the product default is 1 min doubling to 1 h: too slow for a benchmark). */
  brandPoll?: { initialMs: number; maxMs: number };
  /** Brand options (e.g. a long pendingPoll, so only webhooks can wake). */
  brandWorkflowOptions?: Parameters<typeof startBrandOrder>[2];
  /** Campaign options over `brandPoll` (e.g. a shorter pendingPoll). */
  campaignWorkflowOptions?: Omit<CampaignWorkflowOptions, 'brandPoll'>;
}

export interface OrderTiming {
  reference: string;
  kind: 'brand' | 'campaign';
  startedAt: number;
  /** Workflow time of the transition to ready / running (from the audit trail). */
  doneAt?: number;
  /** What caused the transition to ready / running (audit cause: webhook, poll, start, ...). */
  doneCause?: string;
  phase?: string;
}

export interface BulkRun {
  references: { brands: string[]; campaigns: string[] };
  timings: OrderTiming[];
  startedAt: number;
  prefix: string;
}

export const brandRef = (prefix: string, i: number) => `${prefix}-b${i}`;
export const campaignRef = (prefix: string, i: number) => `${prefix}-c${i}`;

export async function startBulk(client: Client, options: BulkOptions): Promise<BulkRun> {
  const brands: string[] = [];
  const campaigns: string[] = [];
  const timings: OrderTiming[] = [];
  const startedAt = Date.now();
  await Promise.all(
    Array.from({ length: options.n }, async (_, i) => {
      const b = brandRef(options.prefix, i);
      const c = campaignRef(options.prefix, i);
      brands.push(b);
      campaigns.push(c);
      const brandTiming: OrderTiming = { reference: b, kind: 'brand', startedAt: Date.now() };
      timings.push(brandTiming);
      await startBrandOrder(client, brandOrder(b), options.brandWorkflowOptions ?? {});
      const campaignTiming: OrderTiming = { reference: c, kind: 'campaign', startedAt: Date.now() };
      timings.push(campaignTiming);
      await startCampaignOrder(client, campaignOrder(c, b), {
        workflowOptions: {
          ...options.campaignWorkflowOptions,
          brandPoll: options.brandPoll ?? { initialMs: 2_000, maxMs: 8_000 },
        },
      });
    }),
  );
  return { references: { brands, campaigns }, timings, startedAt, prefix: options.prefix };
}

function markDone(t: OrderTiming, audit: AuditTrail, to: string): void {
  const entry = audit.entries.find((e) => e.event === 'phase' && e.to === to);
  t.doneAt = entry ? Date.parse(entry.at) : Date.now();
  if (entry) t.doneCause = entry.cause;
}

/** Polls every order's status query until all are done (brand ready, campaign running) or the deadline. */
export async function waitForBulk(
  client: Client,
  run: BulkRun,
  timeoutMs: number,
  onProgress?: (done: number, total: number) => void,
): Promise<{ done: number; pending: OrderTiming[] }> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const pending = run.timings.filter((t) => t.doneAt === undefined);
    // Query in small batches: two shared cores.
    for (let i = 0; i < pending.length; i += 16) {
      await Promise.all(
        pending.slice(i, i + 16).map(async (t) => {
          try {
            if (t.kind === 'brand') {
              const s = await getBrandStatus(client, t.reference);
              t.phase = s.phase;
              if (s.phase === 'ready') markDone(t, s.audit, 'ready');
            } else {
              const s = await getCampaignStatus(client, t.reference);
              t.phase = s.phase;
              if (s.phase === 'running') markDone(t, s.audit, 'running');
            }
          } catch {
            // not answering right now (worker killed, server restarting): try again next round
          }
        }),
      );
    }
    const left = run.timings.filter((t) => t.doneAt === undefined);
    onProgress?.(run.timings.length - left.length, run.timings.length);
    if (left.length === 0 || Date.now() > deadline)
      return { done: run.timings.length - left.length, pending: left };
    await sleep(1_000);
  }
}

export interface RegistryCensus {
  /** Registry entities per order reference (expected: exactly 1 each). */
  brandsPerReference: Map<string, number>;
  campaignsPerReference: Map<string, number>;
  /** CAMPAIGN_REGISTRATION fee entries per order reference (expected: exactly 1 each). */
  feesPerReference: Map<string, number>;
  /** References (of this run) with a count other than 1, by kind. */
  anomalies: string[];
}

/** Reads the registry's state straight from the simulator (not through the counting proxy). */
export async function registryCensus(
  simulatorUrl: string,
  control: SimulatorControl,
  run: BulkRun,
): Promise<RegistryCensus> {
  const registry = new RegistryClient({
    environment: 'local',
    baseUrl: simulatorUrl,
    apiKey: DEFAULT_ACCOUNT.apiKey,
    apiSecret: DEFAULT_ACCOUNT.apiSecret,
  });
  try {
    const count = (map: Map<string, number>, key: string | null | undefined) => {
      if (key) map.set(key, (map.get(key) ?? 0) + 1);
    };
    const brandsPerReference = new Map<string, number>();
    const campaignsPerReference = new Map<string, number>();
    const feesPerReference = new Map<string, number>();
    const campaignRefById = new Map<string, string>();
    for await (const b of registry.brands()) count(brandsPerReference, b.referenceId);
    for await (const c of registry.campaigns()) {
      count(campaignsPerReference, c.referenceId);
      if (c.referenceId) campaignRefById.set(c.campaignId, c.referenceId);
    }
    for (const entry of await control.ledger())
      if (entry.kind === 'CAMPAIGN_REGISTRATION')
        count(feesPerReference, campaignRefById.get(entry.campaignId));
    const anomalies: string[] = [];
    for (const b of run.references.brands)
      if ((brandsPerReference.get(b) ?? 0) !== 1)
        anomalies.push(`brand ${b}: ${brandsPerReference.get(b) ?? 0}`);
    for (const c of run.references.campaigns) {
      if ((campaignsPerReference.get(c) ?? 0) !== 1)
        anomalies.push(`campaign ${c}: ${campaignsPerReference.get(c) ?? 0}`);
      if ((feesPerReference.get(c) ?? 0) !== 1) anomalies.push(`fee ${c}: ${feesPerReference.get(c) ?? 0}`);
    }
    return { brandsPerReference, campaignsPerReference, feesPerReference, anomalies };
  } finally {
    await registry.close();
  }
}
