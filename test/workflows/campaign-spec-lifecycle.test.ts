/**
 * The campaign lifecycle on what the spec documents (issue 33), on the time-skipping test server with
 * the real simulator and the real activities, the simulator's `mnoOperationStatus` extra stripped from
 * every campaign record the workflow reads (a registry as the spec describes it):
 * - a share ACCEPTED by a DCA (`GET /enum/dca` lists it) runs without CAMPAIGN_DCA_COMPLETE;
 * - a share ACCEPTED by a CSP waits for CAMPAIGN_DCA_COMPLETE; if it never comes, needs-action
 *   `dca-unconfirmed` after the deadline, and the operator's `confirmDcaComplete` runs it;
 * - `mnoOperationStatus` (even when the simulator sends it) decides no phase;
 * - acknowledging `decision-overdue` moves its deadline a full period on;
 * - an upstream partner the registry does not list is refused before the billed creation;
 * - an identical nudge or suspension after the operator acknowledged the first raises it again.
 */
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CampaignPhase, CampaignStatus } from '../../src/contracts/campaign.js';
import {
  acknowledgeCampaignAction,
  confirmCampaignDca,
  getCampaignStatus,
  shareCampaignWith,
  waitForCampaignPhase,
} from '../../src/orders/campaign-orders.js';
import {
  type CampaignBench,
  closeCampaignBench,
  deliver,
  orderBenchCampaign,
  refusedUpdate,
  startSpecCampaignBench,
} from '../fixtures/campaign-env.js';
import { recordHistory } from '../fixtures/workflow-harness.js';
import { timeSkippingEnv } from '../support/temporal-env.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const DECISION_DEADLINE_MS = 6 * HOUR;

let env: TestWorkflowEnvironment;
let bench: CampaignBench;
let brandReference: string;
const handles: { terminate(reason?: string): Promise<unknown> }[] = [];

beforeAll(async () => {
  env = await timeSkippingEnv();
  ({ bench, brandReference } = await startSpecCampaignBench(env, handles));
});
afterAll(() => closeCampaignBench(handles, bench, env));

async function order(upstreamCnpId: string) {
  const { reference, handle } = await orderBenchCampaign(bench, brandReference, {
    upstreamCnpId,
    workflowOptions: { decisionDeadlineMs: DECISION_DEADLINE_MS },
  });
  handles.push(handle);
  return { reference, handle };
}

/** Waits (real time) until the status satisfies `predicate` with the loop idle (waiting for a wake). */
async function waitForIdle(
  reference: string,
  predicate: (s: CampaignStatus) => boolean,
  timeoutMs = 15_000,
): Promise<CampaignStatus> {
  const deadline = Date.now() + timeoutMs;
  let last: CampaignStatus | undefined;
  for (;;) {
    // Each query is bounded: one that a run closing for continue-as-new never answers is asked again.
    last = await env.client
      .withDeadline(Date.now() + 5_000, () => getCampaignStatus(env.client, reference))
      .catch(() => last);
    if (last && last.waitingFor !== undefined && predicate(last)) return last;
    if (Date.now() > deadline)
      throw new Error(
        `campaign ${reference}: condition not met (phase ${last?.phase}, needs-action ${last?.needsAction.map((a) => a.key).join(', ')})`,
      );
    await new Promise((r) => setTimeout(r, 50));
  }
}

const idleIn = (reference: string, phase: CampaignPhase) => waitForIdle(reference, (s) => s.phase === phase);
const keys = (s: CampaignStatus) => s.needsAction.map((a) => a.key);

/** Ordered, created, shared and PENDING (idle), then ACCEPTED at the registry with its webhook. */
async function accepted(upstreamCnpId: string) {
  const { reference, handle } = await order(upstreamCnpId);
  const pending = await idleIn(reference, 'share-pending');
  const campaignId = pending.campaignId!;
  await bench.control.acceptShare(campaignId);
  await deliver(handle, { eventType: 'CAMPAIGN_SHARE_ACCEPT', campaignId, campaignReferenceId: reference });
  return { reference, handle, campaignId };
}

describe('DCA acceptance as the spec documents it', () => {
  it('shared with a DCA: ACCEPTED → running, with no CAMPAIGN_DCA_COMPLETE and no MNO operation status', async () => {
    const { reference, handle } = await accepted('SINCH');
    const running = await waitForCampaignPhase(env.client, reference, 'running', 10_000);
    expect(running.dcaComplete).toBe(true);
    expect(running.mno.length).toBeGreaterThan(0);
    expect(running.mno.every((m) => m.operationStatus === undefined)).toBe(true);
    expect(
      running.audit.entries.some((e) => e.event === 'event' && /DCA_COMPLETE/.test(e.detail ?? '')),
    ).toBe(false);
    const toRunning = running.audit.entries.find((e) => e.to === 'running');
    expect(toRunning?.from).toBe('share-pending');
    expect(toRunning?.detail).toMatch(/SINCH.*DCA/);
    expect(running.needsAction).toEqual([]);
    await recordHistory(handle, 'campaign-spec-dca-accepts');
  });

  it('shared via a CSP, CAMPAIGN_DCA_COMPLETE never comes: needs-action after the deadline; the operator confirms → running', async () => {
    const { reference, handle } = await accepted('CSPUPSTREAM');
    const waiting = await idleIn(reference, 'awaiting-dca');
    expect(keys(waiting)).toEqual([]);
    // Not yet confirmable outside awaiting-dca; here it is, but first the deadline passes.
    await env.sleep(DECISION_DEADLINE_MS + MINUTE);
    const overdue = await waitForIdle(reference, (s) => keys(s).includes('dca-unconfirmed'));
    expect(overdue.phase).toBe('awaiting-dca');
    const entry = overdue.needsAction.find((a) => a.key === 'dca-unconfirmed')!;
    expect(entry.action).toMatch(/portal/);
    expect(entry.action).toMatch(/confirm-dca|confirmDcaComplete/);
    expect(entry.reason).toMatch(/CSPUPSTREAM/);

    const confirmed = await confirmCampaignDca(env.client, reference, {
      confirmedBy: 'alice',
      note: 'portal shows it accepted by SINCH',
    });
    expect(confirmed).toMatchObject({ outcome: 'done', phase: 'running' });
    const running = await getCampaignStatus(env.client, reference);
    expect(running.phase).toBe('running');
    expect(running.dcaComplete).toBe(true);
    expect(running.dcaConfirmation).toMatchObject({ by: 'alice', note: 'portal shows it accepted by SINCH' });
    expect(running.needsAction).toEqual([]);
    const audited = running.audit.entries.find((e) => e.event === 'dca-confirmed');
    expect(audited?.cause).toBe('operator');
    expect(audited?.detail).toMatch(/alice/);
    expect(running.audit.entries.find((e) => e.to === 'running')?.cause).toBe('operator');

    // A second confirmation changes nothing and says so.
    const again = await confirmCampaignDca(env.client, reference, { confirmedBy: 'bob' });
    expect(again).toMatchObject({ outcome: 'done', phase: 'running' });
    expect(again.detail).toMatch(/already confirmed by alice/);
    expect((await getCampaignStatus(env.client, reference)).dcaConfirmation?.by).toBe('alice');
    await recordHistory(handle, 'campaign-spec-dca-confirmed');
  });

  it('confirmDcaComplete is refused outside awaiting-dca and checked like the other updates', async () => {
    const { reference } = await order('CSPUPSTREAM');
    await idleIn(reference, 'share-pending');
    expect(await refusedUpdate(confirmCampaignDca(env.client, reference, { confirmedBy: 'alice' }))).toMatch(
      /share-pending|PENDING/,
    );
    await expect(confirmCampaignDca(env.client, reference, { confirmedBy: '' })).rejects.toThrow(
      /confirmedBy/,
    );
  });

  it('shared via a CSP: a CAMPAIGN_DCA_COMPLETE webhook runs it without the operator', async () => {
    const { reference, handle, campaignId } = await accepted('CSPRELAY');
    await idleIn(reference, 'awaiting-dca');
    await bench.control.dcaComplete(campaignId);
    await deliver(handle, { eventType: 'CAMPAIGN_DCA_COMPLETE', campaignId, campaignReferenceId: reference });
    const running = await waitForCampaignPhase(env.client, reference, 'running', 10_000);
    expect(running.dcaComplete).toBe(true);
    expect(running.audit.entries.find((e) => e.to === 'running')?.cause).toBe('webhook');
    expect(running.dcaConfirmation).toBeUndefined();
  });

  it("the simulator's MNO operation status decides nothing: REGISTERED without the webhook leaves it awaiting-dca", async () => {
    bench.simulatorExtras.mnoOperationStatus = true;
    try {
      const { reference, campaignId } = await accepted('CSPRELAY');
      await idleIn(reference, 'awaiting-dca');
      await bench.control.dcaComplete(campaignId); // its webhook is lost
      await env.sleep(9 * DAY); // the deadline's read and the steady poll read the campaign: REGISTERED
      const still = await waitForIdle(reference, (s) =>
        s.mno.some((m) => m.operationStatus === 'REGISTERED'),
      );
      expect(still.phase).toBe('awaiting-dca');
    } finally {
      bench.simulatorExtras.mnoOperationStatus = false;
    }
  });
});

describe('the polls of a wait no read can decide', () => {
  it('awaiting-dca polls at the steady rate: only CAMPAIGN_DCA_COMPLETE or the operator ends it, so no pending schedule', async () => {
    const { reference, handle } = await accepted('CSPRELAY');
    await idleIn(reference, 'awaiting-dca');
    const sharingReads = () => bench.faults.count('getCampaignSharing', handle.workflowId);
    const before = sharingReads();
    // A pending schedule (1 minute doubling to hourly for a day, then every 2 days) would read the
    // share about 30 times in these 5 days; the steady one (7 days ± 20 %) not once. The decision
    // deadline (6 hours) reads it once and raises dca-unconfirmed.
    await env.sleep(5 * DAY);
    const overdue = await waitForIdle(reference, (s) => keys(s).includes('dca-unconfirmed'));
    expect(overdue.phase).toBe('awaiting-dca');
    expect(sharingReads() - before).toBeLessThanOrEqual(1);
    // The steady poll still comes: a share deleted or declined meanwhile is seen without a webhook.
    const beforeSteady = sharingReads();
    await env.sleep(4 * DAY);
    await waitForIdle(reference, () => sharingReads() > beforeSteady);
    await recordHistory(handle, 'campaign-spec-dca-steady-poll');
  });
});

describe('deadlines after an acknowledgement', () => {
  it('acknowledging decision-overdue does not raise it again before a new period', async () => {
    const { reference } = await order('CSPUPSTREAM');
    await idleIn(reference, 'share-pending');
    await env.sleep(DECISION_DEADLINE_MS + MINUTE);
    await waitForIdle(reference, (s) => keys(s).includes('decision-overdue'));
    await acknowledgeCampaignAction(env.client, reference, 'decision-overdue');
    const acknowledged = await idleIn(reference, 'share-pending');
    expect(keys(acknowledged)).not.toContain('decision-overdue');
    // Half a period later: still not raised.
    await env.sleep(DECISION_DEADLINE_MS / 2);
    const half = await idleIn(reference, 'share-pending');
    expect(keys(half)).not.toContain('decision-overdue');
    // A full period after the acknowledgement: raised again.
    await env.sleep(DECISION_DEADLINE_MS / 2 + 2 * MINUTE);
    await waitForIdle(reference, (s) => keys(s).includes('decision-overdue'));
  });
});

describe('the upstream partner is checked before money', () => {
  it('an unknown partner: refused before creation, nothing created or billed; shareWith a listed one goes on', async () => {
    const registrationFees = async () =>
      (await bench.control.ledger()).filter((e) => e.kind === 'CAMPAIGN_REGISTRATION').length;
    const feesBefore = await registrationFees();
    const { reference, handle } = await order('NOSUCHCNP');
    const refused = await waitForCampaignPhase(env.client, reference, ['refused', 'sharing'], 15_000);
    expect(refused.phase).toBe('refused');
    expect(refused.created).toBe(false);
    expect(refused.refusal?.reason).toMatch(/NOSUCHCNP/);
    const entry = refused.needsAction.find((a) => a.key === 'partner');
    expect(entry?.reason).toMatch(/NOSUCHCNP/);
    expect(entry?.reason).toMatch(/enum\/cnp/);
    expect(entry?.action).toMatch(/shareWith/);
    expect(entry?.action).toMatch(/cancel/);
    expect(bench.faults.count('createCampaign', handle.workflowId)).toBe(0);
    const page = await bench.registry.listCampaigns({ referenceId: reference });
    expect(page.records.filter((c) => c.referenceId === reference)).toEqual([]);
    expect(await registrationFees()).toBe(feesBefore);

    const shared = await shareCampaignWith(env.client, reference, 'SINCH');
    expect(shared).toMatchObject({ outcome: 'done', ids: { campaignId: expect.any(String) } });
    const pending = await waitForCampaignPhase(env.client, reference, 'share-pending', 10_000);
    expect(pending.upstreamCnpId).toBe('SINCH');
    expect(keys(pending)).not.toContain('partner');
    await recordHistory(handle, 'campaign-spec-unknown-partner');
  });
});

describe('repeated events after an acknowledgement', () => {
  it('a second identical nudge after an acknowledgement raises needs-action again; a duplicate before it does not', async () => {
    const { reference, handle } = await order('CSPUPSTREAM');
    const pending = await idleIn(reference, 'share-pending');
    const event = {
      eventType: 'CAMPAIGN_NUDGE',
      campaignId: pending.campaignId!,
      campaignReferenceId: reference,
      nudgeIntent: 'REVIEW',
      description: 'please review the samples',
    };
    await deliver(handle, event);
    await deliver(handle, event); // the same body again: a duplicate delivery
    const once = await waitForIdle(reference, (s) => keys(s).includes('nudge-REVIEW'));
    expect(once.nudges).toHaveLength(1);
    expect(once.deliveries).toMatchObject({ received: 1, duplicates: 1 });

    await acknowledgeCampaignAction(env.client, reference, 'nudge-REVIEW');
    expect(keys(await idleIn(reference, 'share-pending'))).not.toContain('nudge-REVIEW');
    await deliver(handle, event); // identical body, a new nudge
    const twice = await waitForIdle(reference, (s) => keys(s).includes('nudge-REVIEW'));
    expect(twice.nudges).toHaveLength(2);
    expect(twice.deliveries).toMatchObject({ received: 2, duplicates: 1 });
    await recordHistory(handle, 'campaign-spec-nudge-again');
  });

  it('what raised a nudge survives continue-as-new: acknowledged in the next run, the same nudge raises it again', async () => {
    const { reference, handle } = await orderBenchCampaign(bench, brandReference, {
      upstreamCnpId: 'CSPUPSTREAM',
      workflowOptions: { decisionDeadlineMs: DECISION_DEADLINE_MS, continueAsNewAtHistoryLength: 60 },
    });
    handles.push(handle);
    const pending = await idleIn(reference, 'share-pending');
    const campaignId = pending.campaignId!;
    const nudge = {
      eventType: 'CAMPAIGN_NUDGE',
      campaignId,
      campaignReferenceId: reference,
      nudgeIntent: 'VERIFY',
    };
    await deliver(handle, nudge);
    for (let i = 0; i < 12; i++)
      await deliver(handle, {
        eventType: 'CAMPAIGN_UPDATE',
        campaignId,
        campaignReferenceId: reference,
        description: `u${i}`,
      });
    const next = await waitForIdle(reference, (s) => s.runs >= 2 && keys(s).includes('nudge-VERIFY'));
    await deliver(handle, nudge); // still a duplicate in the new run
    expect((await idleIn(reference, 'share-pending')).deliveries.duplicates).toBe(
      next.deliveries.duplicates + 1,
    );

    await env.client.withDeadline(Date.now() + 20_000, () =>
      acknowledgeCampaignAction(env.client, reference, 'nudge-VERIFY'),
    );
    await deliver(handle, nudge);
    const again = await waitForIdle(reference, (s) => keys(s).includes('nudge-VERIFY'));
    expect(again.nudges.filter((n) => n.nudgeIntent === 'VERIFY')).toHaveLength(2);
  });

  it('a second identical suspension after an acknowledgement raises needs-action again', async () => {
    const { reference, handle } = await order('CSPUPSTREAM');
    const pending = await idleIn(reference, 'share-pending');
    const event = {
      eventType: 'MNO_CAMPAIGN_OPERATION_SUSPENDED',
      campaignId: pending.campaignId!,
      campaignReferenceId: reference,
      mnoId: 10017,
      mnoName: 'T-Mobile',
    };
    await deliver(handle, event);
    await deliver(handle, event);
    const once = await waitForIdle(reference, (s) => keys(s).includes('suspended-10017'));
    expect(once.suspensions).toHaveLength(1);
    expect(once.deliveries.duplicates).toBe(1);

    await acknowledgeCampaignAction(env.client, reference, 'suspended-10017');
    expect(keys(await idleIn(reference, 'share-pending'))).not.toContain('suspended-10017');
    await deliver(handle, event);
    const twice = await waitForIdle(reference, (s) => keys(s).includes('suspended-10017'));
    expect(twice.suspensions).toHaveLength(2);
    expect(twice.deliveries).toMatchObject({ received: 2, duplicates: 1 });
  });
});
