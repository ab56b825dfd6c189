/**
 * The campaign workflow on the time-skipping test server with the real simulator, the real registry
 * client and the real activities. Time only skips in `env.sleep` (and while awaiting a result), so
 * each test controls exactly when a reconciliation poll or deadline fires.
 */
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CampaignPhase, CampaignStatus } from '../../src/contracts/campaign.js';
import {
  acknowledgeCampaignAction,
  approveCampaignFee,
  CampaignOrderValidationError,
  cancelCampaign,
  getCampaignStatus,
  resubmitCampaign,
  shareCampaignWith,
  startCampaignOrder,
  waitForCampaignPhase,
} from '../../src/orders/campaign-orders.js';
import {
  type CampaignBench,
  deliver,
  orderBenchBrand,
  orderBenchCampaign,
  qualifyingCampaign,
  refusedUpdate,
  startCampaignBench,
} from '../fixtures/campaign-env.js';
import { recordHistory } from '../fixtures/workflow-harness.js';
import { registrationFeesFor } from '../support/registration-fees.js';
import { timeSkippingEnv } from '../support/temporal-env.js';

const MINUTE = 60_000;

let env: TestWorkflowEnvironment;
let bench: CampaignBench;
const handles: { terminate(reason?: string): Promise<unknown> }[] = [];

beforeAll(async () => {
  env = await timeSkippingEnv();
  bench = await startCampaignBench(env);
});
afterAll(async () => {
  // Not terminated after each test: terminating a workflow while one of its activities runs leaves the
  // Java test server's time-skipping lock held for that activity, and later env.sleep calls then run
  // in real time. Earlier tests' workflows keep polling (harmlessly) until here.
  await Promise.allSettled(handles.splice(0).map((h) => h.terminate('test done')));
  await bench?.close();
  await env?.teardown();
});

/**
 * Waits (real time) until the campaign is in `phase` (or one of `phase`) with its loop waiting (its run
 * over: the status says what for).
 */
async function waitForIdleCampaign(
  reference: string,
  phase: CampaignPhase | CampaignPhase[],
  timeoutMs = 20_000,
): Promise<CampaignStatus> {
  const phases = Array.isArray(phase) ? phase : [phase];
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    // Each query bounded: the time-skipping server can leave a query to a run that is continuing as
    // new unanswered for ever.
    const status = await env.client
      .withDeadline(Date.now() + 2_000, () => getCampaignStatus(env.client, reference))
      .catch(() => undefined);
    if (status && phases.includes(status.phase) && status.waitingFor !== undefined) return status;
    if (Date.now() > deadline)
      throw new Error(`campaign ${reference} not idle in ${phase}: ${JSON.stringify(status?.waitingFor)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A ready brand and a campaign of it (a qualifying one shared with SINCH unless told otherwise), both tracked. */
async function order(opts: Parameters<typeof orderBenchCampaign>[2] = {}) {
  const brand = await orderBenchBrand(bench, (h) => handles.push(h), { until: 'ready' });
  const { reference, handle } = await orderBenchCampaign(bench, brand.brandReference, opts);
  handles.push(handle);
  return { reference, brandReference: brand.brandReference, brandId: brand.status!.brandId!, handle };
}

async function campaignsAtRegistry(reference: string) {
  const page = await bench.registry.listCampaigns({ referenceId: reference });
  return page.records.filter((c) => c.referenceId === reference);
}

describe('campaign order validation', () => {
  it('refuses a bad order naming every field, starting nothing', async () => {
    const error = await startCampaignOrder(env.client, {
      reference: 'bad reference!',
      account: bench.account,
      brandReference: '',
      upstreamCnpId: 'SINCH',
      campaign: { usecase: 'ACCOUNT_NOTIFICATION', privacyPolicyLink: 'not a url' },
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CampaignOrderValidationError);
    const paths = (error as CampaignOrderValidationError).errors.map((e) => e.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        'reference',
        'brandReference',
        'campaign.description',
        'campaign.privacyPolicyLink',
      ]),
    );
  });
});

describe('campaign lifecycle', () => {
  it('happy path: brand ready → checks → created once → shared with a DCA → running; a second start changes nothing', async () => {
    const { reference, handle, brandId } = await order();
    const shared = await waitForCampaignPhase(env.client, reference, 'share-pending', 20_000);
    expect(shared.brandId).toBe(brandId);
    expect(shared.created).toBe(true);
    expect(shared.campaignId).toMatch(/.+/);
    // mnoMetadata kept and shown per MNO.
    expect(shared.mno.length).toBeGreaterThan(0);
    for (const m of shared.mno) {
      expect(m).toMatchObject({ qualify: true });
      expect(m.mno).toEqual(expect.any(String));
      expect(m.brandTier).toEqual(expect.any(String));
      expect(m.brandDailyCap).toEqual(expect.any(Number));
      expect(typeof m.mnoReview).toBe('boolean');
      expect(typeof m.mnoSupport).toBe('boolean');
    }
    const campaignId = shared.campaignId!;

    // Same order again: same workflow, nothing new at the registry.
    const again = await startCampaignOrder(
      env.client,
      {
        reference,
        account: bench.account,
        brandReference: shared.brandReference,
        upstreamCnpId: 'SINCH',
        campaign: qualifyingCampaign(),
      },
      { taskQueue: bench.taskQueue },
    );
    expect(again.handle.workflowId).toBe(handle.workflowId);

    await bench.control.acceptShare(campaignId);
    await deliver(handle, { eventType: 'CAMPAIGN_SHARE_ACCEPT', campaignId, campaignReferenceId: reference });
    await deliver(handle, { eventType: 'CAMPAIGN_DCA_COMPLETE', campaignId, campaignReferenceId: reference });
    const running = await waitForCampaignPhase(env.client, reference, 'running', 20_000);
    expect(running.dcaComplete).toBe(true);
    expect(running.sharing).toMatchObject({ upstreamCnpId: 'SINCH', sharingStatus: 'ACCEPTED' });
    expect(running.monthlyFee).toEqual(expect.any(Number));
    expect(running.nextRenewalOrExpirationDate).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(running.needsAction).toEqual([]);
    // SINCH is a DCA (GET /enum/dca): its acceptance runs the campaign, with no awaiting-dca between.
    expect(running.audit.entries.filter((e) => e.event === 'phase').map((e) => e.to)).toEqual([
      'checking',
      'creating',
      'sharing',
      'share-pending',
      'running',
    ]);
    expect(await campaignsAtRegistry(reference)).toHaveLength(1);
    expect((await registrationFeesFor(bench, reference)).map((e) => e.campaignId)).toEqual([campaignId]);
    await recordHistory(handle, 'campaign-running');
  });

  it('no qualifying MNO: refused with per-MNO reasons and no fee; a resubmit with the fix creates it', async () => {
    const { reference, brandId } = await order({ campaign: { sample2: undefined } });
    const refused = await waitForCampaignPhase(env.client, reference, 'refused', 20_000);
    expect(refused.created).toBe(false);
    expect(refused.refusal?.reason).toMatch(/no MNO/);
    expect(refused.refusal?.details.length).toBeGreaterThan(1);
    expect(refused.refusal?.details.join('\n')).toMatch(/sample messages/);
    expect(refused.mno.every((m) => m.qualify === false && m.reasons.length > 0)).toBe(true);
    expect(refused.needsAction.map((a) => a.key)).toContain('refused');
    expect(await campaignsAtRegistry(reference)).toHaveLength(0);
    expect((await bench.control.ledger()).filter((e) => e.brandId === brandId)).toEqual([]);

    const after = await resubmitCampaign(env.client, reference, {
      changes: { sample2: 'Acme: payment received. Reply STOP to opt out.' },
    });
    expect(after).toMatchObject({ outcome: 'done', ids: { campaignId: expect.any(String) } });
    expect((await getCampaignStatus(env.client, reference)).created).toBe(true);
    expect((await registrationFeesFor(bench, reference)).map((e) => e.campaignId)).toEqual([
      after.ids!.campaignId,
    ]);
  });

  it('decline then resubmit to the same partner; changes and cancel are refused while the share is PENDING', async () => {
    const { reference, handle } = await order({ upstreamCnpId: 'CSPUPSTREAM' });
    const pending = await waitForCampaignPhase(env.client, reference, 'share-pending', 20_000);
    const campaignId = pending.campaignId!;

    expect(
      await refusedUpdate(
        resubmitCampaign(env.client, reference, { changes: { description: 'other text' } }),
      ),
    ).toMatch(/PENDING/);
    expect(await refusedUpdate(shareCampaignWith(env.client, reference, 'SINCH'))).toMatch(/PENDING/);
    expect(await refusedUpdate(cancelCampaign(env.client, reference, 'changed my mind'))).toMatch(/PENDING/);

    await bench.control.declineShare(campaignId, 'Sample messages do not match the described use case');
    await deliver(handle, { eventType: 'CAMPAIGN_SHARE_DELETE', campaignId, campaignReferenceId: reference });
    const declined = await waitForCampaignPhase(env.client, reference, 'share-declined', 20_000);
    expect(declined.sharing?.explanation).toBe('Sample messages do not match the described use case');
    expect(declined.needsAction.find((a) => a.key === 'share-declined')?.reason).toMatch(/do not match/);

    const resubmitted = await resubmitCampaign(env.client, reference, {
      changes: { description: 'Account balance reminders; samples updated to match' },
    });
    expect(resubmitted).toMatchObject({ outcome: 'done', phase: 'share-pending' });
    expect((await getCampaignStatus(env.client, reference)).sharing).toMatchObject({
      upstreamCnpId: 'CSPUPSTREAM',
      sharingStatus: 'PENDING',
    });
    const record = await bench.registry.getCampaign(campaignId);
    expect(record.description).toBe('Account balance reminders; samples updated to match');

    // Accepted by the CSP partner, then its DCA accepts.
    await bench.control.acceptShare(campaignId);
    await deliver(handle, { eventType: 'CAMPAIGN_SHARE_ACCEPT', campaignId, campaignReferenceId: reference });
    await waitForCampaignPhase(env.client, reference, 'awaiting-dca', 20_000);
    await bench.control.dcaComplete(campaignId);
    await deliver(handle, { eventType: 'CAMPAIGN_DCA_COMPLETE', campaignId, campaignReferenceId: reference });
    await waitForCampaignPhase(env.client, reference, 'running', 20_000);
    expect((await registrationFeesFor(bench, reference)).map((e) => e.campaignId)).toEqual([campaignId]);
    await recordHistory(handle, 'campaign-decline-resubmit');
  });

  it('decline then share with another partner', async () => {
    const { reference, handle } = await order({ upstreamCnpId: 'CSPRELAY' });
    const pending = await waitForCampaignPhase(env.client, reference, 'share-pending', 20_000);
    const campaignId = pending.campaignId!;
    await bench.control.declineShare(campaignId, 'We do not carry this vertical');
    await deliver(handle, { eventType: 'CAMPAIGN_SHARE_DELETE', campaignId, campaignReferenceId: reference });
    await waitForCampaignPhase(env.client, reference, 'share-declined', 20_000);
    // The same partner needs a change first.
    expect(await refusedUpdate(shareCampaignWith(env.client, reference, 'CSPRELAY'))).toMatch(/declined/);
    const shared = await shareCampaignWith(env.client, reference, 'SINCH');
    expect(shared).toMatchObject({ outcome: 'done', phase: 'share-pending' });
    const afterShare = await getCampaignStatus(env.client, reference);
    expect(afterShare.upstreamCnpId).toBe('SINCH');
    expect(afterShare.shareHistory.map((s) => [s.upstreamCnpId, s.sharingStatus])).toEqual([
      ['CSPRELAY', 'DECLINED'],
      ['SINCH', 'PENDING'],
    ]);
    await recordHistory(handle, 'campaign-decline-other-partner');
  });

  it('lost webhooks: the reconciliation poll finds the acceptance; duplicated webhooks act once', async () => {
    const { reference, handle } = await order();
    // Idle in share-pending: the start run has ended and the loop waits for a wake. Accepted
    // any earlier, the start run's own read of the sharing record could find the acceptance.
    const pending = await waitForIdleCampaign(reference, 'share-pending');
    const campaignId = pending.campaignId!;
    // Every step of the start run is audited as the start's (checking → creating → sharing → share-pending).
    const startRun = pending.audit.entries.filter((e) => e.event === 'phase');
    expect(startRun.map((e) => e.to)).toContain('share-pending');
    expect(new Set(startRun.map((e) => e.cause))).toEqual(new Set(['start']));
    await bench.control.acceptShare(campaignId); // SINCH is a DCA: accepted means DCA complete too
    // No webhook at all: the next poll (1 minute) reads the sharing record and the MNO registration.
    await env.sleep(2 * MINUTE);
    const running = await waitForCampaignPhase(env.client, reference, 'running', 20_000);
    expect(running.audit.entries.find((e) => e.to === 'running')?.cause).toBe('poll');

    const event = {
      eventType: 'CAMPAIGN_NUDGE',
      campaignId,
      campaignReferenceId: reference,
      nudgeIntent: 'REVIEW',
    };
    const id = await deliver(handle, event);
    await deliver(handle, event, id);
    await deliver(handle, event, id);
    const status = await getCampaignStatus(env.client, reference);
    expect(status.deliveries.duplicates).toBe(2);
    expect(status.nudges).toHaveLength(1);
  });

  it('timeout after commit on POST /campaignBuilder: exactly one campaign and one fee', async () => {
    await bench.control.addFault({
      kind: 'timeout-after-commit',
      method: 'POST',
      pathPattern: '^/v2/campaignBuilder$',
      count: 1,
      delayMs: 200,
    });
    const { reference } = await order();
    const shared = await waitForCampaignPhase(env.client, reference, ['share-pending', 'refused'], 30_000);
    expect(shared.refusal).toBeUndefined();
    expect(shared.alreadyExisted).toBe(true);
    expect(shared.mno.length).toBeGreaterThan(0);
    expect(await campaignsAtRegistry(reference)).toHaveLength(1);
    expect((await registrationFeesFor(bench, reference)).map((e) => e.campaignId)).toEqual([
      shared.campaignId,
    ]);
    expect((await bench.control.faults()).length).toBe(0);
  });

  // The registry took the share, its answer was lost (a 5xx after the commit here; a timeout or a worker
  // killed mid-call the same), and the retried PUT was refused because the share it made is PENDING.
  // Seen failing before the read-back: idle in `sharing` with needs-action `share` (an operator asked to
  // share again what the registry holds), as a bench drill's SIGKILLed worker left one campaign of 20.
  it('error after commit on PUT sharing: the refused retry is its own share, adopted; share-pending, nothing for an operator', async () => {
    await bench.control.addFault({
      kind: 'error-after-commit',
      method: 'PUT',
      pathPattern: '^/v2/campaign/[^/]+/sharing/',
      count: 1,
      status: 500,
    });
    const { reference, handle } = await order();
    // Idle in either phase: `sharing` is where the refusal left it before the read-back.
    const status = await waitForIdleCampaign(reference, ['share-pending', 'sharing'], 30_000);
    expect((await bench.control.faults()).length).toBe(0);
    expect(status.needsAction.map((a) => a.key)).not.toContain('share');
    expect(status.phase).toBe('share-pending');
    expect(status.sharing).toMatchObject({ upstreamCnpId: 'SINCH', sharingStatus: 'PENDING' });
    await recordHistory(handle, 'campaign-share-refused-retry-adopted');
  });

  it('fee approval: waits for approveFee with the expected monthly fee; nothing billed before', async () => {
    const { reference } = await order({ requireFeeApproval: true });
    const waiting = await waitForCampaignPhase(env.client, reference, 'awaiting-fee-approval', 20_000);
    expect(waiting.expectedMonthlyFee).toEqual(expect.any(Number));
    expect(waiting.needsAction.find((a) => a.key === 'fee-approval')?.reason).toContain(
      String(waiting.expectedMonthlyFee),
    );
    expect(await campaignsAtRegistry(reference)).toHaveLength(0);
    expect(
      await refusedUpdate(
        approveCampaignFee(env.client, reference, {
          approvedBy: 'ops',
          maxMonthlyFee: waiting.expectedMonthlyFee! - 1,
        }),
      ),
    ).toMatch(/maxMonthlyFee/);
    const approved = await approveCampaignFee(env.client, reference, { approvedBy: 'ops@csp' });
    expect(approved).toMatchObject({ outcome: 'done', ids: { campaignId: expect.any(String) } });
    const afterApproval = await getCampaignStatus(env.client, reference);
    expect(afterApproval.created).toBe(true);
    expect(afterApproval.feeApprovedBy).toBe('ops@csp');
    expect((await registrationFeesFor(bench, reference)).map((e) => e.campaignId)).toEqual([
      approved.ids!.campaignId,
    ]);
  });

  it('an approval covers the order it was given for: after a refused creation, the changed order waits for a new one', async () => {
    const { reference, handle } = await order({ requireFeeApproval: true });
    await waitForCampaignPhase(env.client, reference, 'awaiting-fee-approval', 20_000);
    bench.faults.inject('createCampaign', 400, 1);
    const first = await approveCampaignFee(env.client, reference, { approvedBy: 'ops@csp' });
    expect(first.outcome).not.toBe('done');
    expect((await getCampaignStatus(env.client, reference)).created).toBe(false);
    // The operator changes the order: its fee is a new question (the use case could change it).
    const resubmitted = await resubmitCampaign(env.client, reference, {
      changes: { description: 'Account balance reminders and payment receipts for Acme customers' },
    });
    expect(resubmitted.phase).toBe('awaiting-fee-approval');
    const waiting = await getCampaignStatus(env.client, reference);
    expect(waiting.created).toBe(false);
    expect(waiting.feeApprovedBy).toBeUndefined();
    expect(waiting.needsAction.map((a) => a.key)).toContain('fee-approval');
    expect(await registrationFeesFor(bench, reference)).toEqual([]);
    const approved = await approveCampaignFee(env.client, reference, { approvedBy: 'ops@csp' });
    expect(approved).toMatchObject({ outcome: 'done', ids: { campaignId: expect.any(String) } });
    expect((await registrationFeesFor(bench, reference)).map((e) => e.campaignId)).toEqual([
      approved.ids!.campaignId,
    ]);
    await recordHistory(handle, 'campaign-resubmit-needs-approval');
  });

  it('suspension and nudge raise needs-action per MNO; acknowledge clears them', async () => {
    const { reference, handle } = await order();
    const pending = await waitForCampaignPhase(env.client, reference, 'share-pending', 20_000);
    const campaignId = pending.campaignId!;
    await bench.control.acceptShare(campaignId);
    await deliver(handle, { eventType: 'CAMPAIGN_DCA_COMPLETE', campaignId, campaignReferenceId: reference });
    await waitForCampaignPhase(env.client, reference, 'running', 20_000);

    await bench.control.suspendCampaign(campaignId, 10017);
    await deliver(handle, {
      eventType: 'MNO_CAMPAIGN_OPERATION_SUSPENDED',
      campaignId,
      campaignReferenceId: reference,
      mnoId: 10017,
      mnoName: 'T-Mobile',
    });
    await deliver(handle, {
      eventType: 'CAMPAIGN_NUDGE',
      campaignId,
      campaignReferenceId: reference,
      nudgeIntent: 'APPEAL_REJECTION',
      description: 'please review samples',
    });
    const status = await getCampaignStatus(env.client, reference);
    expect(status.suspensions).toEqual([expect.objectContaining({ mnoId: '10017', mnoName: 'T-Mobile' })]);
    expect(status.nudges).toEqual([expect.objectContaining({ nudgeIntent: 'APPEAL_REJECTION' })]);
    expect(status.needsAction.map((a) => a.key).sort()).toEqual([
      'nudge-APPEAL_REJECTION',
      'suspended-10017',
    ]);
    // A poll reads the MNO operation status: the suspension is not raised twice.
    await env.sleep(7 * 60 * MINUTE);
    const polled = await getCampaignStatus(env.client, reference);
    expect(polled.suspensions).toHaveLength(1);
    expect(polled.mno.find((m) => m.mnoId === '10017')?.operationStatus).toBe('SUSPENDED');
    await acknowledgeCampaignAction(env.client, reference, 'suspended-10017');
    const acked = await acknowledgeCampaignAction(env.client, reference, 'nudge-APPEAL_REJECTION');
    expect(acked).toMatchObject({ outcome: 'done', phase: 'running' });
    expect((await getCampaignStatus(env.client, reference)).needsAction).toEqual([]);
  });

  it('expiry: found by the slow reconciliation poll (no webhook); the workflow ends', async () => {
    const { reference, handle } = await order();
    const pending = await waitForCampaignPhase(env.client, reference, 'share-pending', 20_000);
    const campaignId = pending.campaignId!;
    await bench.control.acceptShare(campaignId);
    await deliver(handle, { eventType: 'CAMPAIGN_DCA_COMPLETE', campaignId, campaignReferenceId: reference });
    const running = await waitForCampaignPhase(env.client, reference, 'running', 20_000);
    expect(running.autoRenewal).toBe(true);
    await bench.control.expireCampaign(campaignId);
    const result = await handle.result(); // time skips to the next safety poll (7 days ± 20 %)
    expect(result.phase).toBe('expired');
    expect(result.status.campaignStatus).toBe('EXPIRED');
    expect(result.status.expirationDate).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it('continue-as-new keeps state', async () => {
    const { reference, handle } = await order({ workflowOptions: { continueAsNewAtHistoryLength: 60 } });
    const pending = await waitForCampaignPhase(env.client, reference, 'share-pending', 20_000);
    const campaignId = pending.campaignId!;
    await bench.control.acceptShare(campaignId);
    await deliver(handle, { eventType: 'CAMPAIGN_DCA_COMPLETE', campaignId, campaignReferenceId: reference });
    await waitForCampaignPhase(env.client, reference, 'running', 20_000);
    // Deliveries until a continue-as-new follows one the audit shows handled: the run can continue as
    // new before the first delivery (its history reached the limit on the way to running), and the
    // check below needs a delivery handled by an earlier run. One at a time, each seen idle.
    const handledBeforeLastCan = (s: CampaignStatus) => {
      const lastCan = s.audit.entries.findLastIndex((e) => e.event === 'continue-as-new');
      return s.audit.entries
        .slice(0, Math.max(lastCan, 0))
        .map((e) => /^CAMPAIGN_UPDATE: (n\d+)$/.exec(e.detail ?? '')?.[1])
        .filter((d): d is string => d !== undefined);
    };
    let status = await waitForIdleCampaign(reference, 'running');
    for (let i = 0, deadline = Date.now() + 60_000; ; i++) {
      if (handledBeforeLastCan(status).length > 0 && status.runs >= 2) break;
      if (Date.now() > deadline) break;
      await deliver(handle, {
        eventType: 'CAMPAIGN_UPDATE',
        campaignId,
        campaignReferenceId: reference,
        description: `n${i}`,
      });
      status = await waitForIdleCampaign(reference, 'running');
    }
    expect(status.runs).toBeGreaterThanOrEqual(2);
    expect(status.phase).toBe('running');
    expect(status.campaignId).toBe(campaignId);
    const withoutOperation = (views: typeof status.mno) =>
      views.map(({ operationStatus: _o, ...view }) => view);
    expect(withoutOperation(status.mno)).toEqual(withoutOperation(pending.mno));
    expect(status.mno.every((m) => m.operationStatus === 'REGISTERED')).toBe(true);
    expect(status.audit.entries.some((e) => e.event === 'continue-as-new')).toBe(true);
    // Deliveries seen before continue-as-new are still recognised as duplicates: one the audit shows
    // handled before a continue-as-new, delivered again, is counted a duplicate and never received as
    // new. Delivered until one is counted: the time-skipping server can drop a signal that lands as a
    // run continues as new (a CI run counted none of one delivery), and each copy is the same duplicate.
    const handledBefore = handledBeforeLastCan(status);
    expect(handledBefore.length).toBeGreaterThan(0);
    const again = handledBefore[0] as string;
    let after = status;
    for (
      const deadline = Date.now() + 20_000;
      after.deliveries.duplicates === status.deliveries.duplicates;
    ) {
      if (Date.now() > deadline) break;
      await deliver(handle, {
        eventType: 'CAMPAIGN_UPDATE',
        campaignId,
        campaignReferenceId: reference,
        description: again,
      });
      for (const settle = Date.now() + 2_000; Date.now() < settle; ) {
        after = await waitForIdleCampaign(reference, 'running');
        if (after.deliveries.duplicates !== status.deliveries.duplicates) break;
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    expect(after.deliveries.duplicates).toBeGreaterThan(status.deliveries.duplicates);
    expect(after.deliveries.received).toBe(status.deliveries.received);
    expect((await registrationFeesFor(bench, reference)).map((e) => e.campaignId)).toEqual([campaignId]);
    // The latest run's input (what the run before it continued as new with): the state, without the
    // campaign fields once created.
    const latest = await handle.fetchHistory();
    const next = (await env.client.options.loadedDataConverter.payloadConverter.fromPayload(
      latest.events![0]!.workflowExecutionStartedEventAttributes!.input!.payloads![0]!,
    )) as { campaign?: unknown; carried: { content?: unknown; status: { created: boolean } } };
    expect(next).not.toHaveProperty('campaign');
    expect(next.carried).not.toHaveProperty('content');
    expect(next.carried.status.created).toBe(true);
  });

  it('cancel before creation ends the workflow with nothing created', async () => {
    const { reference, handle } = await order({ requireFeeApproval: true });
    await waitForCampaignPhase(env.client, reference, 'awaiting-fee-approval', 20_000);
    await cancelCampaign(env.client, reference, 'customer withdrew');
    const result = await handle.result();
    expect(result.phase).toBe('cancelled');
    expect(await campaignsAtRegistry(reference)).toHaveLength(0);
  });
});
