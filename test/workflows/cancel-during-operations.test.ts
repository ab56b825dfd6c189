/**
 * A Temporal cancellation (Web UI, `temporal workflow cancel`, here `handle.cancel()`) that lands while
 * an operator operation runs (issue 34, item 4): the update is answered (it never hangs), the outcome
 * says the workflow was cancelled and what became of the registry call in flight, and the workflow
 * ends. For every operator operation of the brand (a fake registry whose call for that operation is
 * held until the cancel lands) and of the campaign (the simulator bench, a call site held); operations
 * still queued behind the one running are answered too.
 *
 * Every wait for an answer is bounded (real time): a hang fails the test instead of stalling the file.
 */
import type { WorkflowHandle } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrandResult } from '../../src/contracts/brand.js';
import type { CampaignPhase, CampaignResult } from '../../src/contracts/campaign.js';
import type { OperationOutcome } from '../../src/contracts/operations.js';
import {
  acknowledgeCampaignAction,
  approveCampaignFee,
  type CampaignStatus,
  cancelCampaign,
  confirmCampaignDca,
  getCampaignStatus,
  resubmitCampaign,
  shareCampaignWith,
} from '../../src/orders/campaign-orders.js';
import {
  appealBrand,
  cancelBrand,
  correctBrand,
  importVet,
  orderVet,
  revetBrand,
  startBrandOrder,
} from '../../src/orders/index.js';
import { idleCampaignIn, within } from '../fixtures/answers.js';
import {
  type CampaignBench,
  type CampaignCallSite,
  closeCampaignBench,
  deliver,
  orderBenchCampaign,
  startSpecCampaignBench,
} from '../fixtures/campaign-env.js';
import { FakeRegistry } from '../fixtures/workflow-fake-registry.js';
import {
  brandRegistration,
  recordHistory,
  type TestWorkers,
  uniqueReference,
  waitForStatus,
  withWorkers,
} from '../fixtures/workflow-harness.js';
import { timeSkippingEnv } from '../support/temporal-env.js';

/** The workflow has closed (its result came), and is no longer Running. */
async function expectEnded(handle: WorkflowHandle): Promise<unknown> {
  const result = await within(handle.result(), `${handle.workflowId} result`);
  expect((await handle.describe()).status.name).not.toBe('RUNNING');
  return result;
}

/**
 * Runs the operation, cancels the workflow once its held registry call is reached, then releases the
 * call. The update must answer `cancelled`, naming the interrupted call's site.
 */
async function cancelDuringHeldCall(opts: {
  operation: string;
  site: string | RegExp;
  run: () => Promise<OperationOutcome>;
  reached: () => Promise<unknown>;
  release: () => void;
  handle: { cancel(): Promise<unknown> };
}): Promise<OperationOutcome> {
  let outcome: OperationOutcome;
  try {
    const running = opts.run();
    await within(opts.reached(), `${opts.operation}: its held call reached`);
    await opts.handle.cancel();
    outcome = await within(running, opts.operation);
  } finally {
    opts.release();
  }
  expect(outcome).toMatchObject({ operation: opts.operation, outcome: 'cancelled', phase: 'cancelled' });
  expect(outcome.detail).toMatch(/cancelled through Temporal/);
  expect(outcome.detail).toMatch(opts.site);
  return outcome;
}

let env: TestWorkflowEnvironment;

describe('brand: a Temporal cancellation during an operator operation', () => {
  beforeAll(async () => {
    env = await timeSkippingEnv();
  });
  afterAll(async () => {
    await env?.teardown();
  });

  const activities = (fake: FakeRegistry) => ({
    reads: fake.readActivities(),
    writes: fake.writeActivities(),
  });

  async function order(w: TestWorkers): Promise<{ reference: string; handle: WorkflowHandle }> {
    const reference = uniqueReference('cxl');
    const { handle } = await startBrandOrder(
      env.client,
      { reference, account: w.account, brand: brandRegistration() },
      { taskQueue: w.taskQueue },
    );
    w.track(handle);
    return { reference, handle };
  }

  type Case = {
    operation: string;
    /** The brand's identity at registration: UNVERIFIED puts it in needs-correction. */
    identity: 'VERIFIED' | 'UNVERIFIED';
    /** The registry call the operation makes, held until the cancel lands. */
    held: string;
    /** The call site the outcome names (GuardedRegistry's site of that call). */
    site: RegExp;
    run(reference: string): Promise<OperationOutcome>;
  };
  const cases: Case[] = [
    {
      operation: 'correctBrand',
      identity: 'UNVERIFIED',
      held: 'updateBrand',
      site: /update brand/,
      run: (reference) => correctBrand(env.client, reference, { patch: { email: 'ops@acme.example' } }),
    },
    {
      operation: 'revet',
      identity: 'UNVERIFIED',
      held: 'revetBrand',
      site: /revet/,
      run: (r) => revetBrand(env.client, r),
    },
    {
      operation: 'appeal',
      identity: 'UNVERIFIED',
      held: 'appealBrand',
      site: /appeal/,
      run: (reference) =>
        appealBrand(env.client, reference, {
          appealCategories: ['VERIFY_TAX_ID'],
          attachmentUuids: [],
          explanation: 'the EIN is right',
        }),
    },
    {
      operation: 'orderVet',
      identity: 'VERIFIED',
      held: 'vettingProviderOffer',
      site: /check vetting provider/,
      run: (reference) => orderVet(env.client, reference, { evpId: 'AEGIS', vettingClass: 'STANDARD' }),
    },
    {
      operation: 'importVet',
      identity: 'VERIFIED',
      held: 'vettingProviderOffer',
      site: /check vetting provider/,
      run: (reference) => importVet(env.client, reference, { evpId: 'AEGIS', vettingId: 'v-imported-1' }),
    },
  ];

  for (const c of cases)
    it(`${c.operation}: its held ${c.held} call is interrupted; the update answers cancelled, the brand ends cancelled`, async () => {
      const fake = new FakeRegistry();
      fake.identityOnRegister = () => c.identity;
      await withWorkers(env, activities(fake), async (w) => {
        const { reference, handle } = await order(w);
        await waitForStatus(
          handle,
          (s) => s.phase === (c.identity === 'UNVERIFIED' ? 'needs-correction' : 'ready'),
        );
        const held = fake.block(c.held);
        await cancelDuringHeldCall({
          operation: c.operation,
          site: c.site,
          run: () => c.run(reference),
          reached: () => held.reached,
          release: () => held.release(),
          handle,
        });
        const result = (await expectEnded(handle)) as BrandResult;
        expect(result).toMatchObject({ phase: 'cancelled', registered: true });
        if (c.operation === 'correctBrand')
          await recordHistory(handle, 'brand-temporal-cancel-during-correct');
      });
    });

  it("the operator's cancel, waiting for a vet held in its billed order: answered, the vet's order finishes", async () => {
    const fake = new FakeRegistry();
    await withWorkers(env, activities(fake), async (w) => {
      const { reference, handle } = await order(w);
      await waitForStatus(handle, (s) => s.phase === 'ready');
      const heldOrder = fake.block('orderExternalVet');
      try {
        await orderVet(env.client, reference, { evpId: 'AEGIS', vettingClass: 'STANDARD' });
        await heldOrder.reached;
        // The operator's cancel stops the vet and waits for it to close; the vet's billed order is held.
        const cancelling = cancelBrand(env.client, reference, 'customer withdrew');
        await waitForStatus(handle, (s) => s.phase === 'cancelled');
        const queued = correctBrand(env.client, reference, { patch: { email: 'late@acme.example' } }).catch(
          (e: unknown) => e,
        );
        await handle.cancel();
        const outcome = await within(cancelling, 'cancel');
        expect(outcome).toMatchObject({ operation: 'cancel', phase: 'cancelled' });
        expect(['done', 'cancelled']).toContain(outcome.outcome);
        // An update sent after the brand was cancelled is refused by its validator, or answered.
        await within(queued, 'correctBrand after the cancel');
      } finally {
        heldOrder.release();
      }
      const result = (await expectEnded(handle)) as BrandResult;
      expect(result.phase).toBe('cancelled');
      // The billed vet order finished at the registry (non-cancellable), once.
      expect(fake.callCount('orderExternalVet')).toBe(1);
    });
  });
});

describe('campaign: a Temporal cancellation during an operator operation', () => {
  let bench: CampaignBench;
  let brandReference: string;
  const handles: WorkflowHandle[] = [];

  beforeAll(async () => {
    env = await timeSkippingEnv();
    ({ bench, brandReference } = await startSpecCampaignBench(env, handles)); // a registry as the spec describes it
  });
  afterAll(() => closeCampaignBench(handles, bench, env));

  async function order(opts: { upstreamCnpId?: string; requireFeeApproval?: boolean } = {}) {
    const { reference, handle } = await orderBenchCampaign(bench, brandReference, opts);
    handles.push(handle);
    return { reference, handle };
  }

  /** Waits (real time) until the campaign is in `phase` with its loop idle (waiting for a wake). */
  const idleIn = (reference: string, phase: CampaignPhase): Promise<CampaignStatus> =>
    idleCampaignIn(env.client, reference, phase);

  /** Created and shared, then DECLINED at the registry with its webhook: share-declined. */
  async function declined() {
    const { reference, handle } = await order();
    const { campaignId } = await idleIn(reference, 'share-pending');
    await bench.control.declineShare(campaignId!, 'samples do not match');
    await deliver(handle, {
      eventType: 'CAMPAIGN_SHARE_DELETE',
      campaignId: campaignId!,
      campaignReferenceId: reference,
    });
    await idleIn(reference, 'share-declined');
    return { reference, handle, campaignId: campaignId! };
  }

  /** Shared via a CSP, ACCEPTED with its webhook: awaiting-dca. */
  async function awaitingDca() {
    const { reference, handle } = await order({ upstreamCnpId: 'CSPUPSTREAM' });
    const { campaignId } = await idleIn(reference, 'share-pending');
    await bench.control.acceptShare(campaignId!);
    await deliver(handle, {
      eventType: 'CAMPAIGN_SHARE_ACCEPT',
      campaignId: campaignId!,
      campaignReferenceId: reference,
    });
    await idleIn(reference, 'awaiting-dca');
    return { reference, handle, campaignId: campaignId! };
  }

  type Case = {
    operation: string;
    setup(): Promise<{ reference: string; handle: WorkflowHandle }>;
    held: CampaignCallSite;
    /** The call site the outcome names, and what became of it. */
    site: RegExp;
    run(reference: string): Promise<OperationOutcome>;
  };
  const cases: Case[] = [
    {
      operation: 'resubmit',
      setup: declined,
      held: 'updateCampaign',
      site: /"update campaign" was in flight and abandoned/,
      run: (reference) =>
        resubmitCampaign(env.client, reference, {
          changes: { description: 'Account balance reminders, v2' },
        }),
    },
    {
      operation: 'shareWith',
      setup: declined,
      held: 'shareCampaign',
      site: /"share campaign" was in flight and abandoned/,
      run: (reference) => shareCampaignWith(env.client, reference, 'CSPUPSTREAM'),
    },
    {
      operation: 'confirmDcaComplete',
      setup: awaitingDca,
      held: 'getCampaignSharing',
      site: /"read campaign sharing" was in flight and abandoned/,
      run: (reference) => confirmCampaignDca(env.client, reference, { confirmedBy: 'alice' }),
    },
  ];

  for (const c of cases)
    it(`${c.operation}: its held ${c.held} call is interrupted; the update answers cancelled, the campaign ends cancelled`, async () => {
      const { reference, handle } = await c.setup();
      const held = bench.faults.hold(c.held);
      await cancelDuringHeldCall({
        operation: c.operation,
        site: c.site,
        run: () => c.run(reference),
        reached: () => held.entered(),
        release: () => held.release(),
        handle,
      });
      const result = (await expectEnded(handle)) as CampaignResult;
      expect(result).toMatchObject({ phase: 'cancelled', billed: true });
      if (c.operation === 'resubmit') await recordHistory(handle, 'campaign-temporal-cancel-during-resubmit');
    });

  it('approveFee: the billed creation it runs finishes and is recorded; the update is answered, billed once', async () => {
    const { reference, handle } = await order({ requireFeeApproval: true });
    await idleIn(reference, 'awaiting-fee-approval');
    const held = bench.faults.hold('createCampaign');
    let approving: Promise<OperationOutcome> | undefined;
    try {
      approving = approveCampaignFee(env.client, reference, { approvedBy: 'ops' });
      await within(held.entered(), 'createCampaign reached');
      await handle.cancel();
    } finally {
      held.release();
    }
    const outcome = await within(approving!, 'approveFee');
    // Done if the creation returned before the cancellation was seen, else cancelled saying it finished.
    expect(['done', 'cancelled']).toContain(outcome.outcome);
    if (outcome.outcome === 'cancelled')
      expect(outcome.detail).toMatch(
        /billed registry call "create campaign" finished \(answered\) and is recorded/,
      );
    const result = (await expectEnded(handle)) as CampaignResult;
    expect(result).toMatchObject({ phase: 'cancelled', billed: true });
    const fees = (await bench.control.ledger()).filter(
      (e) => e.kind === 'CAMPAIGN_REGISTRATION' && e.campaignId === result.campaignId,
    );
    expect(fees).toHaveLength(1);
  });

  it('cancel and acknowledge queued behind a held reconciliation read: both answered cancelled, nothing sent', async () => {
    const { reference, handle, campaignId } = await declined();
    const nudge = {
      eventType: 'CAMPAIGN_NUDGE',
      campaignId,
      campaignReferenceId: reference,
      nudgeIntent: 'REVIEW',
    };
    await deliver(handle, { ...nudge, description: 'please look' } as Parameters<typeof deliver>[1]);
    const nudged = await within(
      (async () => {
        for (;;) {
          const s = await getCampaignStatus(env.client, reference);
          const key = s.needsAction.find((a) => a.key.startsWith('nudge-'))?.key;
          if (key && s.waitingFor !== undefined) return key;
          await new Promise((r) => setTimeout(r, 50));
        }
      })(),
      'the nudge raised',
    );
    const held = bench.faults.hold('getCampaign');
    let updates: Promise<OperationOutcome>[] = [];
    try {
      await deliver(handle, { ...nudge, description: 'please look again' } as Parameters<typeof deliver>[1]);
      await within(held.entered(), 'getCampaign reached');
      updates = [
        acknowledgeCampaignAction(env.client, reference, nudged),
        cancelCampaign(env.client, reference, 'customer withdrew'),
      ];
      await within(
        (async () => {
          while ((await getCampaignStatus(env.client, reference)).pendingOperations.length < 2)
            await new Promise((r) => setTimeout(r, 50));
        })(),
        'both queued',
      );
      await handle.cancel();
      const outcomes = await within(Promise.all(updates), 'the queued updates');
      for (const outcome of outcomes) {
        expect(outcome).toMatchObject({ outcome: 'cancelled', phase: 'cancelled' });
        expect(outcome.detail).toMatch(/cancelled through Temporal before it ran/);
      }
    } finally {
      held.release();
    }
    const result = (await expectEnded(handle)) as CampaignResult;
    expect(result.phase).toBe('cancelled');
  });
});
