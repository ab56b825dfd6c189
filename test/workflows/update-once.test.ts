/**
 * Operator updates once each, and outcomes that tell the truth (issue 34, items 1 and 3), on a registry
 * as the spec describes it (the simulator bench): two approve-fee calls at once (a double click, an
 * order system's retry under a new key) create one campaign and both get the first outcome; the same
 * idempotency key after a continue-as-new gets the first outcome whatever the phase now; an approval
 * whose creation meets a registry storm answers `accepted` (never `failed`) and the campaign goes on.
 *
 * Every wait for an answer is bounded (real time): a hang fails the test instead of stalling the file.
 */
import type { WorkflowHandle } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CampaignPhase } from '../../src/contracts/campaign.js';
import { approveCampaignFee, getCampaignStatus } from '../../src/orders/campaign-orders.js';
import { correctBrand } from '../../src/orders/index.js';
import { REGISTRY_CALL_ATTEMPTS } from '../../src/workflows/entity/stubs.js';
import { idleCampaignIn, within } from '../fixtures/answers.js';
import {
  type CampaignBench,
  closeCampaignBench,
  orderBenchCampaign,
  startSpecCampaignBench,
} from '../fixtures/campaign-env.js';
import { FakeRegistry } from '../fixtures/workflow-fake-registry.js';
import { recordHistory, waitForStatus, withWorkers } from '../fixtures/workflow-harness.js';
import { timeSkippingEnv } from '../support/temporal-env.js';

let env: TestWorkflowEnvironment;
let bench: CampaignBench;
let brandReference: string;
const handles: WorkflowHandle[] = [];

beforeAll(async () => {
  env = await timeSkippingEnv();
  ({ bench, brandReference } = await startSpecCampaignBench(env, handles));
});
afterAll(() => closeCampaignBench(handles, bench, env));

async function order(opts: Parameters<typeof orderBenchCampaign>[2] = {}) {
  const { reference, handle } = await orderBenchCampaign(bench, brandReference, {
    requireFeeApproval: true,
    ...opts,
  });
  handles.push(handle);
  return { reference, handle };
}

const idleIn = (reference: string, phase: CampaignPhase) => idleCampaignIn(env.client, reference, phase);

async function registrationFees(campaignId: string | undefined) {
  return (await bench.control.ledger()).filter(
    (e) => e.kind === 'CAMPAIGN_REGISTRATION' && e.campaignId === campaignId,
  );
}

describe('approveFee once', () => {
  it('two approvals at once under different keys: one creation at the registry, both answered alike', async () => {
    const { reference, handle } = await order();
    await idleIn(reference, 'awaiting-fee-approval');
    const held = bench.faults.hold('createCampaign');
    let first: Promise<unknown> | undefined;
    let second: Promise<unknown> | undefined;
    try {
      first = approveCampaignFee(env.client, reference, { approvedBy: 'ops' }, { idempotencyKey: 'click-1' });
      await within(held.entered(), 'createCampaign reached');
      // The double click: the campaign is `creating` now, and the first approval is in flight.
      second = approveCampaignFee(
        env.client,
        reference,
        { approvedBy: 'ops' },
        { idempotencyKey: 'click-2' },
      );
      second.catch(() => undefined);
      await new Promise((r) => setTimeout(r, 300));
    } finally {
      held.release();
    }
    const [a, b] = await within(Promise.all([first!, second!]), 'both approvals');
    expect(a).toMatchObject({ outcome: 'done', ids: { campaignId: expect.any(String) } });
    expect(b).toEqual(a);
    expect(bench.faults.count('createCampaign', handle.workflowId)).toBe(1);
    const campaignId = (a as { ids: { campaignId: string } }).ids.campaignId;
    expect(await registrationFees(campaignId)).toHaveLength(1);
    // The first key again, later: the first outcome, nothing run.
    const again = await within(
      approveCampaignFee(env.client, reference, { approvedBy: 'ops' }, { idempotencyKey: 'click-1' }),
      'approval repeated',
    );
    expect(again).toEqual(a);
    expect(bench.faults.count('createCampaign', handle.workflowId)).toBe(1);
    await recordHistory(handle, 'campaign-approve-fee-once');
  });

  it('the same key after a continue-as-new: the first outcome, whatever the phase now', async () => {
    const { reference, handle } = await order({ workflowOptions: { continueAsNewAtHistoryLength: 40 } });
    await idleIn(reference, 'awaiting-fee-approval');
    const key = 'order-system-approval-7';
    const first = await within(
      approveCampaignFee(env.client, reference, { approvedBy: 'ops' }, { idempotencyKey: key }),
      'approval',
    );
    expect(first.outcome).toBe('done');
    // Creating and sharing take the short-threshold campaign past 40 events: it continues as new.
    const deadline = Date.now() + 15_000;
    let status = await getCampaignStatus(env.client, reference);
    while (status.runs < 2 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      status = await getCampaignStatus(env.client, reference).catch(() => status);
    }
    expect(status.runs).toBeGreaterThan(1);
    expect(status.phase).not.toBe('awaiting-fee-approval');
    const again = await within(
      approveCampaignFee(env.client, reference, { approvedBy: 'ops' }, { idempotencyKey: key }),
      'approval after continue-as-new',
    );
    expect(again).toEqual(first);
    expect(bench.faults.count('createCampaign', handle.workflowId)).toBe(1);
  });
});

describe('truthful outcomes', () => {
  it('a registry storm during approve-fee: the answer is accepted, not failed; the campaign is created once the storm ends', async () => {
    const { reference, handle } = await order();
    await idleIn(reference, 'awaiting-fee-approval');
    // Every attempt of the creation answers 500: past the activity's retry window, the workflow has it.
    bench.faults.inject('createCampaign', 500, REGISTRY_CALL_ATTEMPTS);
    let outcome: Awaited<ReturnType<typeof approveCampaignFee>>;
    try {
      const approving = approveCampaignFee(env.client, reference, { approvedBy: 'ops' });
      approving.catch(() => undefined);
      await env.sleep('2 minutes');
      outcome = await within(approving, 'approval');
    } finally {
      bench.faults.clear('createCampaign');
    }
    expect(outcome.outcome).not.toBe('failed');
    expect(outcome.outcome).toBe('accepted');
    expect(outcome.detail).toMatch(/fee approval is recorded/);
    expect(outcome.detail).toMatch(/retries it/);
    await env.sleep('2 hours');
    const after = await idleIn(reference, 'share-pending');
    expect(after.created).toBe(true);
    expect(after.feeApprovedBy).toBe('ops');
    expect(await registrationFees(after.campaignId)).toHaveLength(1);
    expect(handle.workflowId).toContain(reference);
  });
});

describe('brand updates once', () => {
  it('two identical corrections at once under different keys: one write; the first key after a continue-as-new: the first outcome', async () => {
    const fake = new FakeRegistry();
    await withWorkers(env, fake.activities(), async ({ orderBrand }) => {
      const { reference, handle } = await orderBrand({
        until: (s) => s.phase === 'ready',
        workflowOptions: { continueAsNewAtHistoryLength: 40 },
      });
      const patch = { patch: { businessContactEmail: 'ops@acme.example' } };
      const gate = fake.block('updateBrand');
      const first = correctBrand(env.client, reference, patch, { idempotencyKey: 'fix-1' });
      await within(gate.reached, 'updateBrand reached');
      const second = correctBrand(env.client, reference, patch, { idempotencyKey: 'fix-2' });
      second.catch(() => undefined);
      await new Promise((r) => setTimeout(r, 300));
      gate.release();
      const [a, b] = await within(Promise.all([first, second]), 'both corrections');
      expect(a.outcome).toBe('done');
      expect(b).toEqual(a);
      expect(fake.callCount('updateBrand')).toBe(1);
      await waitForStatus(handle, (s) => s.runs > 1 && s.pendingOperations.length === 0);
      const again = await within(
        correctBrand(env.client, reference, patch, { idempotencyKey: 'fix-1' }),
        'correction after continue-as-new',
      );
      expect(again).toEqual(a);
      expect(fake.callCount('updateBrand')).toBe(1);
      // The Java test server keeps update ids per workflow id (see vet-once.test.ts): end by termination.
      await handle.terminate('test finished');
    });
  });
});
