/**
 * What the happy path never tries, against the campaign workflow (time-skipping server, the real
 * simulator, real activities with injected faults at each call site):
 * - a registry that answers 401, 404 or 500 at any call site of creation, sharing or reconciliation,
 *   for as long as it likes: the campaign never ends `refused` (only the registry's 400 on creation
 *   refuses), never fails, shows needs-action, and goes on once the registry answers again, created
 *   once and billed once;
 * - operators and webhooks at once: the campaign's registry calls never overlap, every update is
 *   answered;
 * - cancel (operator and Temporal) during the billed creation: the create finishes and is recorded.
 */
import type { WorkflowHandle } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CampaignResult } from '../../src/contracts/campaign.js';
import { startBrandOrder, waitForBrandPhase } from '../../src/orders/brand-client.js';
import {
  acknowledgeCampaignAction,
  type CampaignStatus,
  cancelCampaign,
  getCampaignStatus,
  resubmitCampaign,
  waitForCampaignPhase,
} from '../../src/orders/campaign-orders.js';
import {
  type CampaignBench,
  type CampaignCallSite,
  deliver,
  type FaultStatus,
  orderBenchCampaign,
  privateBrand,
  startCampaignBench,
  uniqueRef,
} from '../fixtures/campaign-env.js';
import { recordHistory } from '../fixtures/workflow-harness.js';
import { registrationFeesFor } from '../support/registration-fees.js';
import { timeSkippingEnv } from '../support/temporal-env.js';

let env: TestWorkflowEnvironment;
let bench: CampaignBench;
let brandReference: string;
const started: WorkflowHandle[] = [];

beforeAll(async () => {
  env = await timeSkippingEnv();
  bench = await startCampaignBench(env);
  brandReference = uniqueRef('brand');
  const { handle } = await startBrandOrder(
    env.client,
    { reference: brandReference, account: bench.account, brand: privateBrand() },
    { taskQueue: bench.taskQueue },
  );
  started.push(handle);
  await waitForBrandPhase(env.client, brandReference, 'ready', 20_000);
});
afterAll(async () => {
  // Terminated, not cancelled one by one: the file leaves about 30 workflows behind.
  await Promise.allSettled(started.splice(0).map((h) => h.terminate('test done')));
  await bench?.close();
  await env?.teardown();
});

async function order(
  opts: { upstreamCnpId?: string } = {},
): Promise<{ reference: string; handle: WorkflowHandle }> {
  const { reference, handle } = await orderBenchCampaign(bench, brandReference, opts);
  started.push(handle);
  return { reference, handle };
}

/** Polls the status query until `predicate` holds (real time; the workflow moves by env.sleep). */
async function waitFor(
  handle: WorkflowHandle,
  predicate: (s: CampaignStatus) => boolean,
  timeoutMs = 15_000,
): Promise<CampaignStatus> {
  const started = Date.now();
  for (;;) {
    const status = await getCampaignStatus(env.client, handle.workflowId.replace(/^campaign\//, ''));
    if (predicate(status)) return status;
    if (Date.now() - started > timeoutMs)
      throw new Error(
        `condition not met within ${timeoutMs} ms; last status: ${JSON.stringify(status, null, 1)}`,
      );
    await new Promise((r) => setTimeout(r, 50));
  }
}

const registryError = (s: CampaignStatus) => s.needsAction.find((a) => a.key === 'registry-error');

async function campaignsAtRegistry(reference: string) {
  const page = await bench.registry.listCampaigns({ referenceId: reference });
  return page.records.filter((c) => c.referenceId === reference);
}

/** Lets the activity retry window (~31 s) and a fault backoff pass in workflow time. */
const pastRetryWindow = () => env.sleep('2 minutes');

/** Tests that loop over fault classes get more than the default 60 s on a loaded machine. */
const LOOP_TIMEOUT = { timeout: 300_000 };

const creationSites: CampaignCallSite[] = [
  'checkBrandReadiness',
  'checkCampaignBuilder',
  'getUseCaseLimits',
  'findCampaignByReference',
  'checkUpstreamPartner',
  'createCampaign',
  'shareCampaign',
];
const faultStatuses: FaultStatus[] = [401, 404, 500];

describe('registry faults on the way to share-pending never refuse or fail the campaign', () => {
  for (const site of creationSites)
    it(
      `${site}: 401, 404 and 500 until cleared → needs-action, then created once and shared`,
      LOOP_TIMEOUT,
      async () => {
        for (const status of faultStatuses) {
          bench.faults.inject(site, status);
          const { reference, handle } = await order();
          try {
            await pastRetryWindow();
            const faulted = await waitFor(handle, (s) => registryError(s) !== undefined);
            expect(faulted.phase, `${site} ${status}`).not.toBe('refused');
            expect(faulted.refusal, `${site} ${status}`).toBeUndefined();
            expect(registryError(faulted)!.reason, `${site} ${status}`).toMatch(String(status));
            // An hour of the registry answering the same: still waiting, still running.
            await env.sleep('1 hour');
            expect((await handle.describe()).status.name).toBe('RUNNING');
            expect((await getCampaignStatus(env.client, reference)).phase).not.toBe('refused');
          } finally {
            bench.faults.clear(site);
          }
          await env.sleep('1 hour');
          const shared = await waitForCampaignPhase(env.client, reference, 'share-pending', 20_000);
          expect(registryError(shared), `${site} ${status}`).toBeUndefined();
          expect(await campaignsAtRegistry(reference)).toHaveLength(1);
          expect((await registrationFeesFor(bench, reference)).map((e) => e.campaignId)).toEqual([
            shared.campaignId!,
          ]);
        }
      },
    );

  it("createCampaign: the registry's 400 is the one answer that refuses, in its words", async () => {
    bench.faults.inject('createCampaign', 400, 1);
    const { reference } = await order();
    const refused = await waitForCampaignPhase(env.client, reference, 'refused', 20_000);
    expect(refused.refusal?.details.join('\n')).toMatch(/fault injected into createCampaign/);
    expect(await campaignsAtRegistry(reference)).toHaveLength(0);
  });

  it('a 400 to a read is a fault, not a refusal', async () => {
    bench.faults.inject('checkCampaignBuilder', 400);
    const { reference, handle } = await order();
    try {
      await pastRetryWindow();
      const faulted = await waitFor(handle, (s) => registryError(s) !== undefined);
      expect(faulted.phase).not.toBe('refused');
    } finally {
      bench.faults.clear('checkCampaignBuilder');
    }
    await env.sleep('1 hour');
    await waitForCampaignPhase(env.client, reference, 'share-pending', 20_000);
  });
});

describe('a shared and a running campaign under registry faults', () => {
  /** One reconciliation woken by a webhook, with `site` answering `status`: contained, then cleared. */
  async function faultAndHeal(
    handle: WorkflowHandle,
    campaignId: string,
    reference: string,
    site: CampaignCallSite,
    status: FaultStatus,
  ): Promise<void> {
    const phase = (await getCampaignStatus(env.client, reference)).phase;
    bench.faults.inject(site, status);
    try {
      await deliver(handle, {
        eventType: 'CAMPAIGN_NUDGE',
        campaignId,
        campaignReferenceId: reference,
        nudgeIntent: 'REVIEW',
        description: `${site} ${status}`,
      });
      await pastRetryWindow();
      const faulted = await waitFor(handle, (s) => registryError(s) !== undefined);
      expect(faulted.phase, `${site} ${status}`).toBe(phase);
      expect(registryError(faulted)!.reason, `${site} ${status}`).toMatch(String(status));
      expect((await handle.describe()).status.name).toBe('RUNNING');
    } finally {
      bench.faults.clear(site);
    }
    await env.sleep('2 hours');
    const healed = await waitFor(handle, (s) => registryError(s) === undefined);
    expect(healed.phase, `${site} ${status}`).toBe(phase);
  }

  it(
    'share-pending (sharing read) and running (campaign read) answering 401/404/500: phase kept, needs-action, clears',
    LOOP_TIMEOUT,
    async () => {
      const { reference, handle } = await order();
      const pending = await waitForCampaignPhase(env.client, reference, 'share-pending', 20_000);
      const campaignId = pending.campaignId!;
      for (const status of faultStatuses)
        await faultAndHeal(handle, campaignId, reference, 'getCampaignSharing', status);
      await bench.control.acceptShare(campaignId);
      await deliver(handle, {
        eventType: 'CAMPAIGN_DCA_COMPLETE',
        campaignId,
        campaignReferenceId: reference,
      });
      await waitForCampaignPhase(env.client, reference, 'running', 20_000);
      for (const status of faultStatuses)
        await faultAndHeal(handle, campaignId, reference, 'getCampaign', status);
      await recordHistory(handle, 'campaign-registry-faults-contained');
    },
  );
});

describe('one writer per campaign', () => {
  it('operators and a webhook while a registry read is held: no two calls overlap, every update answered', async () => {
    const { reference, handle } = await order();
    const pending = await waitForCampaignPhase(env.client, reference, 'share-pending', 20_000);
    const campaignId = pending.campaignId!;
    await bench.control.declineShare(campaignId, 'samples do not match');
    await deliver(handle, { eventType: 'CAMPAIGN_SHARE_DELETE', campaignId, campaignReferenceId: reference });
    await waitForCampaignPhase(env.client, reference, 'share-declined', 20_000);
    // A webhook wakes the loop; its reconciliation read is held while operators act.
    const held = bench.faults.hold('getCampaign');
    await deliver(handle, {
      eventType: 'CAMPAIGN_NUDGE',
      campaignId,
      campaignReferenceId: reference,
      nudgeIntent: 'REVIEW',
      description: 'please look',
    });
    await held.entered();
    const updates = [
      resubmitCampaign(env.client, reference, { changes: { description: 'Account balance reminders, v2' } }),
      resubmitCampaign(env.client, reference, { changes: { description: 'Account balance reminders, v3' } }),
    ];
    await waitFor(handle, (s) => s.pendingOperations.length === 2);
    held.release();
    const outcomes = await Promise.all(updates);
    // Run one after the other: the first shares again (share-pending), where the second may not change it.
    expect(outcomes.map((o) => o.outcome).sort()).toEqual(['done', 'refused']);
    expect(outcomes.find((o) => o.outcome === 'refused')?.detail).toMatch(/PENDING|share-pending/);
    expect(bench.faults.overlaps.filter((o) => o.workflowId === handle.workflowId)).toEqual([]);
    expect(bench.faults.maxInFlight.get(handle.workflowId)).toBe(1);
    const nudge = (await getCampaignStatus(env.client, reference)).needsAction.find((a) =>
      a.key.startsWith('nudge-'),
    );
    expect(nudge).toBeDefined();
    const acked = await acknowledgeCampaignAction(env.client, reference, nudge!.key);
    expect(acked.outcome).toBe('done');
    await recordHistory(handle, 'campaign-concurrent-updates');
  });
});

describe('cancel during the billed creation', () => {
  for (const how of ['operator', 'temporal'] as const)
    it(`${how}: the create finishes and is recorded; billed once; the operator's cancel winds it down until it expires`, async () => {
      const held = bench.faults.hold('createCampaign');
      const { reference, handle } = await order();
      await held.entered();
      if (how === 'operator') {
        const cancelling = cancelCampaign(env.client, reference, 'customer withdrew');
        await waitFor(handle, (s) => s.pendingOperations.includes('cancel'));
        held.release();
        // Created by the create it was queued behind: renewal off at the registry, watched until it
        // expires (a Temporal cancellation ends the workflow at once).
        const cancelled = await cancelling;
        expect(cancelled).toMatchObject({ outcome: 'done', phase: 'winding-down' });
        const campaignId = cancelled.ids!.campaignId!;
        expect((await bench.registry.getCampaign(campaignId)).autoRenewal).toBe(false);
        await bench.control.expireCampaign(campaignId);
        await deliver(handle, { eventType: 'CAMPAIGN_EXPIRED', campaignId, campaignReferenceId: reference });
      } else {
        await handle.cancel();
        held.release();
      }
      const result = (await handle.result()) as CampaignResult;
      expect(result).toMatchObject({ phase: how === 'operator' ? 'expired' : 'cancelled', billed: true });
      expect(result.campaignId).toEqual(expect.any(String));
      expect(await campaignsAtRegistry(reference)).toHaveLength(1);
      expect((await registrationFeesFor(bench, reference)).map((e) => e.campaignId)).toEqual([
        result.campaignId!,
      ]);
      expect(bench.faults.count('createCampaign', handle.workflowId)).toBe(1);
      await recordHistory(handle, `campaign-${how}-cancel-during-create`);
    });
});
