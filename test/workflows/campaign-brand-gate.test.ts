/**
 * The gates before any billable call (brand readiness with its deadline, sub-use-case count) and the
 * political-vet deactivation, on the time-skipping server with the real simulator and activities.
 */
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getBrandStatus, orderVet } from '../../src/orders/brand-client.js';
import { getCampaignStatus, waitForCampaignPhase } from '../../src/orders/campaign-orders.js';
import {
  type CampaignBench,
  deliver,
  orderBenchBrand,
  orderBenchCampaign,
  privateBrand,
  publicProfitBrand,
  startCampaignBench,
} from '../fixtures/campaign-env.js';
import { timeSkippingEnv } from '../support/temporal-env.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

let env: TestWorkflowEnvironment;
let bench: CampaignBench;
const handles: { terminate(reason?: string): Promise<unknown> }[] = [];

beforeAll(async () => {
  env = await timeSkippingEnv();
  bench = await startCampaignBench(env);
});
afterAll(async () => {
  // Terminated only at the end (see campaign-lifecycle.test.ts: time-skipping lock of running activities).
  await Promise.allSettled(handles.splice(0).map((h) => h.terminate('test done')));
  await bench?.close();
  await env?.teardown();
});

async function campaignsAtRegistry(reference: string) {
  const page = await bench.registry.listCampaigns({ referenceId: reference });
  return page.records.filter((c) => c.referenceId === reference);
}

describe('before any billable call', () => {
  it('waits for the brand; past the deadline raises needs-action; proceeds once the registry confirms the brand', async () => {
    const brand = await orderBenchBrand(bench, (h) => handles.push(h), {
      brand: publicProfitBrand(),
      until: 'awaiting-contact-verification',
    });
    const waitingBrand = brand.status!;
    const { reference, handle } = await orderBenchCampaign(bench, brand.brandReference, {
      workflowOptions: { brandReadyDeadlineMs: 30 * MINUTE, steadyPollMs: HOUR },
    });
    handles.push(handle);
    let waiting = await waitForCampaignPhase(env.client, reference, 'awaiting-brand', 20_000);
    for (let i = 0; i < 100 && !waiting.brandReadiness; i++) {
      await new Promise((r) => setTimeout(r, 50));
      waiting = await getCampaignStatus(env.client, reference);
    }
    expect(waiting.brandReadiness?.workflowPhase).toBe('awaiting-contact-verification');
    expect(waiting.needsAction).toEqual([]);

    await env.sleep(45 * MINUTE);
    const overdue = await getCampaignStatus(env.client, reference);
    expect(overdue.phase).toBe('awaiting-brand');
    expect(overdue.needsAction.map((a) => a.key)).toEqual(['brand']);
    expect(overdue.needsAction[0]?.reason).toMatch(/awaiting-contact-verification/);
    expect(await campaignsAtRegistry(reference)).toHaveLength(0);

    await bench.control.verifyContact(waitingBrand.brandId!);
    await env.sleep(3 * HOUR); // the brand's poll, then the campaign's (now hourly) poll
    const shared = await waitForCampaignPhase(env.client, reference, 'share-pending', 20_000);
    expect(shared.needsAction).toEqual([]);
    expect(shared.brandReadiness?.workflowPhase).toBe('ready');
    expect(await campaignsAtRegistry(reference)).toHaveLength(1);
  });

  it('refuses a sub-use-case count outside the use case min..max before any registry write', async () => {
    const brand = await orderBenchBrand(bench, (h) => handles.push(h), { until: 'ready' });
    const { reference, handle } = await orderBenchCampaign(bench, brand.brandReference, {
      campaign: { usecase: 'MIXED', subUsecases: ['ACCOUNT_NOTIFICATION'] },
    });
    handles.push(handle);
    const refused = await waitForCampaignPhase(env.client, reference, 'refused', 20_000);
    expect(refused.refusal?.details.join('\n')).toMatch(
      /subUsecases: use case MIXED needs between 2 and 5 sub-use-cases; got 1/,
    );
    expect(await campaignsAtRegistry(reference)).toHaveLength(0);
  });
});

describe('political campaigns', () => {
  it('a political campaign is marked deactivated when the brand political vet expires', async () => {
    const brand = await orderBenchBrand(bench, (h) => handles.push(h), {
      brand: privateBrand({ vertical: 'POLITICAL' }),
      until: 'ready',
    });
    const { brandReference } = brand;
    const ordered = await orderVet(env.client, brandReference, { evpId: 'AEGIS', vettingClass: 'POLITICAL' });
    expect(ordered.outcome).toBe('done');
    // The vet workflow orders it at the registry: its vettingId shows in the brand's status.
    let vettingId: string | undefined;
    for (let i = 0; i < 100 && !vettingId; i++) {
      vettingId = (await getBrandStatus(env.client, brandReference)).vets[0]?.vettingId;
      if (!vettingId) await new Promise((r) => setTimeout(r, 100));
    }
    expect(vettingId).toEqual(expect.any(String));
    await bench.control.decideVet(vettingId!, { outcome: 'ACTIVE', score: 80 });

    const { reference, handle } = await orderBenchCampaign(bench, brandReference, {
      campaign: { usecase: 'POLITICAL', description: 'Get out the vote reminders for our members' },
    });
    handles.push(handle);
    // The builder may need the vet to be seen ACTIVE: the vet workflow polls it.
    await env.sleep(5 * MINUTE);
    const pending = await waitForCampaignPhase(env.client, reference, ['share-pending', 'refused'], 20_000);
    expect(pending.refusal).toBeUndefined();
    const campaignId = pending.campaignId!;
    await bench.control.acceptShare(campaignId);
    await deliver(handle, { eventType: 'CAMPAIGN_DCA_COMPLETE', campaignId, campaignReferenceId: reference });
    await waitForCampaignPhase(env.client, reference, 'running', 20_000);

    // The simulator deactivates political campaigns by expiring them; no webhook here: the slow poll finds it.
    await bench.control.expireVet(vettingId!);
    const result = await handle.result();
    expect(result.phase).toBe('deactivated');
    expect(result.status.deactivated).toBe(true);
    expect(result.status.campaignStatus).toBe('EXPIRED');
    expect(result.status.needsAction.map((a) => a.key)).toEqual(['deactivated']);
  });
});
