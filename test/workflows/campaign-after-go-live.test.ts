/**
 * Life after go-live (issue 34, item 2), on the time-skipping test server with the real simulator and
 * the real activities:
 * - `update autoRenewal=false` on a running campaign changes the registry's record (PUT /campaign/{id}),
 *   and the status shows the record the registry answered; an update answers a nudge;
 * - `cancel` of a running campaign turns renewal off at the registry and keeps the workflow watching it
 *   (`winding-down`) until the registry reports it EXPIRED, then `expired` with the cancel reason kept;
 * - a fault during the cancel's PUT is retried by the workflow (the cancel answers `accepted`).
 */
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CampaignStatus } from '../../src/contracts/campaign.js';
import { correctBrand, getBrandStatus } from '../../src/orders/brand-client.js';
import { cancelCampaign, getCampaignStatus, updateCampaign } from '../../src/orders/campaign-orders.js';
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

const handles: { terminate(reason?: string): Promise<unknown> }[] = [];
/** Benches closed before the strict one replaced them. */
const earlier: CampaignBench[] = [];
let env: TestWorkflowEnvironment;
let bench: CampaignBench;
let brandReference: string;

beforeAll(async () => {
  env = await timeSkippingEnv();
  ({ bench, brandReference } = await startSpecCampaignBench(env, handles));
});
afterAll(async () => {
  for (const b of earlier) await b.close();
  await closeCampaignBench(handles, bench, env);
});

/** Ordered, shared with a DCA, accepted: running. */
async function running() {
  const { reference, handle } = await orderBenchCampaign(bench, brandReference, { upstreamCnpId: 'SINCH' });
  handles.push(handle);
  const pending = await until(reference, (s) => s.phase === 'share-pending');
  const campaignId = pending.campaignId!;
  await bench.control.acceptShare(campaignId);
  await deliver(handle, { eventType: 'CAMPAIGN_SHARE_ACCEPT', campaignId, campaignReferenceId: reference });
  await until(reference, (s) => s.phase === 'running');
  return { reference, handle, campaignId };
}

/**
 * Waits (real time) until the workflow has no activity in flight. A Temporal cancellation sent while a
 * read is completing makes the workflow request that activity's cancellation as the server records its
 * end; the time-skipping test server answers ACTIVITY_UNKNOWN, fails the workflow task and, in runs
 * under load, never came back before the case's timeout (a real server takes the crossing). Time is
 * not skipped between the test's calls, so no timer starts a new call once the last one ended.
 */
async function idle(handle: { describe(): Promise<{ raw: { pendingActivities?: unknown[] | null } }> }) {
  const deadline = Date.now() + 15_000;
  let quiet = 0;
  while (quiet < 3) {
    if (Date.now() > deadline) throw new Error('the workflow kept an activity in flight for 15 s');
    const { raw } = await handle.describe();
    quiet = (raw.pendingActivities?.length ?? 0) === 0 ? quiet + 1 : 0;
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function registryRecord(campaignId: string): Promise<Record<string, unknown>> {
  const got = await bench.registry.getCampaign(campaignId);
  return got as unknown as Record<string, unknown>;
}

/** Waits (real time) until the status satisfies `predicate`. */
async function until(reference: string, predicate: (s: CampaignStatus) => boolean, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  let last: CampaignStatus | undefined;
  for (;;) {
    last = await getCampaignStatus(env.client, reference).catch(() => last);
    if (last && predicate(last)) return last;
    if (Date.now() > deadline)
      throw new Error(`campaign ${reference}: condition not met (phase ${last?.phase})`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('a running campaign changed at the registry', () => {
  it('update autoRenewal=false: the registry record changes, the status shows what it answered', async () => {
    const { reference, campaignId } = await running();
    expect((await registryRecord(campaignId)).autoRenewal).toBe(true);
    const outcome = await updateCampaign(env.client, reference, { changes: { autoRenewal: false } });
    expect(outcome).toMatchObject({ outcome: 'done', phase: 'running' });
    expect((await registryRecord(campaignId)).autoRenewal).toBe(false);
    const status = await getCampaignStatus(env.client, reference);
    expect(status.autoRenewal).toBe(false);
    expect(
      status.audit.entries.some((e) => e.event === 'campaign-updated' && e.detail === 'autoRenewal'),
    ).toBe(true);
  });

  it('an update answers a nudge: content changed at the registry, the nudge cleared', async () => {
    const { reference, handle, campaignId } = await running();
    await deliver(handle, {
      eventType: 'CAMPAIGN_NUDGE',
      campaignId,
      nudgeIntent: 'CONTENT',
      description: 'fix the samples',
    });
    await until(reference, (s) => s.needsAction.some((a) => a.key === 'nudge-CONTENT'));
    const sample1 = 'Acme: your order 1234 shipped. Reply STOP to opt out, HELP for help.';
    const outcome = await updateCampaign(env.client, reference, {
      changes: { sample1 },
      answers: 'nudge-CONTENT',
    });
    expect(outcome).toMatchObject({ outcome: 'done', phase: 'running' });
    expect((await registryRecord(campaignId)).sample1).toBe(sample1);
    const status = await getCampaignStatus(env.client, reference);
    expect(status.needsAction.map((a) => a.key)).not.toContain('nudge-CONTENT');
    expect(
      status.audit.entries.some((e) => e.event === 'answered' && /nudge-CONTENT/.test(e.detail ?? '')),
    ).toBe(true);
  });

  it('an update of an unknown field, or answering no entry, is refused naming it', async () => {
    const { reference } = await running();
    await expect(
      updateCampaign(env.client, reference, { changes: { colour: 'red' } as never }),
    ).rejects.toThrow(/colour/);
    expect(
      await refusedUpdate(
        updateCampaign(env.client, reference, { changes: { autoRenewal: false }, answers: 'nudge-X' }),
      ),
    ).toMatch(/answers/);
  });
});

describe('cancel of a created campaign', () => {
  it('turns renewal off at the registry, winds down until the registry expires it, then expired', async () => {
    const { reference, handle, campaignId } = await running();
    const outcome = await cancelCampaign(env.client, reference, 'customer left');
    expect(outcome).toMatchObject({ outcome: 'done', phase: 'winding-down' });
    expect((await registryRecord(campaignId)).autoRenewal).toBe(false);
    const winding = await until(reference, (s) => s.waitingFor !== undefined);
    expect(winding.phase).toBe('winding-down');
    expect(winding.renewalOff).toBe(true);
    expect(winding.cancelReason).toBe('customer left');
    expect(winding.nextRenewalOrExpirationDate).toBeDefined();
    expect(winding.waitingFor?.what).toMatch(/EXPIRED/);
    // Renewal cannot be turned back on here; a second cancel is refused (the phase allows none).
    expect(
      await refusedUpdate(updateCampaign(env.client, reference, { changes: { autoRenewal: true } })),
    ).toMatch(/autoRenewal/);
    // Still watched: the registry expires it, its webhook wakes the workflow, the read decides.
    await bench.control.expireCampaign(campaignId);
    await deliver(handle, { eventType: 'CAMPAIGN_EXPIRED', campaignId, campaignReferenceId: reference });
    const expired = await until(reference, (s) => s.phase === 'expired');
    expect(expired.cancelReason).toBe('customer left');
    const result = await handle.result();
    expect(result.phase).toBe('expired');
    await recordHistory(handle, 'campaign-cancel-winds-down');
  });

  // Its own timeout: the test server does not skip time while a client waits on an update, so the
  // PUT's six attempts and their backoffs (1, 2, 4, 8, 16 s) run on the real clock before the cancel
  // answers: about 31 s, close to the default 60 s on a loaded machine.
  it('a fault during the cancel PUT: accepted, retried by the workflow until the registry takes it', {
    timeout: 120_000,
  }, async () => {
    const { reference, campaignId } = await running();
    bench.faults.inject('updateCampaign', 500);
    const outcome = await cancelCampaign(env.client, reference, 'storm');
    expect(outcome.outcome).toBe('accepted');
    expect(outcome.phase).toBe('winding-down');
    expect(outcome.detail).toMatch(/retries/);
    expect((await registryRecord(campaignId)).autoRenewal).toBe(true);
    bench.faults.clear('updateCampaign');
    await env.sleep(60 * 60_000);
    const off = await until(reference, (s) => s.renewalOff === true);
    expect(off.phase).toBe('winding-down');
    expect(off.needsAction.map((a) => a.key)).not.toContain('registry-error');
    expect((await registryRecord(campaignId)).autoRenewal).toBe(false);
  });

  // A Temporal cancellation (Web UI, `temporal workflow cancel`) ends the workflow: nothing will watch
  // the campaign after it, so renewal goes off at the registry first (it would renew and be billed
  // every month with nothing managing it).
  it('a Temporal cancellation of a running campaign turns renewal off at the registry before the workflow ends', async () => {
    const { reference, handle, campaignId } = await running();
    expect((await registryRecord(campaignId)).autoRenewal).toBe(true);
    await idle(handle);
    await handle.cancel();
    const result = await handle.result();
    expect(result.phase).toBe('cancelled');
    expect((await registryRecord(campaignId)).autoRenewal).toBe(false);
    expect(result.status.renewalOff).toBe(true);
    expect(result.status.needsAction).toEqual([]);
    expect(result.status.audit.entries.map((a) => a.event)).toContain('renewal-off');
    expect((await getCampaignStatus(env.client, reference)).phase).toBe('cancelled');
    await recordHistory(handle, 'campaign-temporal-cancel-renewal-off');
  });

  // Its own timeout: the PUT's six attempts fail, and their backoffs (1, 2, 4, 8, 16 s) have run on
  // the real clock in CI runs; the failure reaches the workflow before its two-minute bound (workflow
  // time) and the cancellation ends with renewal still on.
  it('a Temporal cancellation during a registry outage still ends, bounded, and says renewal is still on', {
    timeout: 120_000,
  }, async () => {
    const { handle, campaignId } = await running();
    await idle(handle);
    bench.faults.inject('updateCampaign', 500);
    try {
      await handle.cancel();
      const result = await handle.result();
      expect(result.phase).toBe('cancelled');
      expect((await registryRecord(campaignId)).autoRenewal).toBe(true);
      expect(result.status.renewalOff).not.toBe(true);
      const renewalOn = result.status.needsAction.find((a) => a.key === 'renewal-on');
      expect(renewalOn?.action).toMatch(/portal/);
    } finally {
      bench.faults.clear('updateCampaign');
    }
  });
});

// Last in the file: it sends the file's brand back through verification.
describe('a brand change after ready (update groups)', () => {
  it('group 5 (address) on a ready brand: UNVERIFIED, the brand leaves ready for a revet; its running campaign runs on', async () => {
    const { reference, campaignId } = await running();
    const outcome = await correctBrand(env.client, brandReference, { patch: { street: '2 New St' } });
    expect(outcome).toMatchObject({ outcome: 'done', phase: 'needs-correction' });
    const brand = await getBrandStatus(env.client, brandReference);
    expect(brand.identityStatus).toBe('UNVERIFIED');
    expect(brand.needsAction.map((a) => a.key)).toContain('identity');
    // The registry does not deactivate an existing campaign for an UNVERIFIED brand (spec: only an
    // expired political vet does): the campaign stays running and ACTIVE.
    expect((await registryRecord(campaignId)).status).toBe('ACTIVE');
    expect((await getCampaignStatus(env.client, reference)).phase).toBe('running');
    const revetted = await correctBrand(env.client, brandReference, {
      patch: { city: 'Springfield' },
      revet: true,
    });
    expect(revetted.phase).toBe('ready');
  });
});

// A registry that answers only what the spec documents (the simulator's strict mode).
describe('strict registry (only the spec fields)', () => {
  beforeAll(async () => {
    await Promise.allSettled(handles.splice(0).map((h) => h.terminate('next bench')));
    earlier.push(bench);
    ({ bench, brandReference } = await startSpecCampaignBench(env, handles, { strict: true }));
  });

  it('update autoRenewal=false, then cancel: renewal off, winding-down, expired once the registry expires it', async () => {
    const { reference, handle, campaignId } = await running();
    const updated = await updateCampaign(env.client, reference, { changes: { autoRenewal: false } });
    expect(updated).toMatchObject({ outcome: 'done', phase: 'running' });
    expect((await registryRecord(campaignId)).autoRenewal).toBe(false);
    const outcome = await cancelCampaign(env.client, reference, 'strict');
    expect(outcome).toMatchObject({ outcome: 'done', phase: 'winding-down' });
    await bench.control.expireCampaign(campaignId);
    await deliver(handle, { eventType: 'CAMPAIGN_EXPIRED', campaignId, campaignReferenceId: reference });
    const expired = await until(reference, (s) => s.phase === 'expired');
    expect(expired.cancelReason).toBe('strict');
  });
});
