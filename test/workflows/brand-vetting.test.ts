import { WorkflowUpdateFailedError } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registryEventSignal } from '../../src/contracts/signals.js';
import { orderVet } from '../../src/orders/index.js';
import { FakeRegistry } from '../fixtures/workflow-fake-registry.js';
import {
  brandRegistration,
  delivery,
  orderVetAndWait,
  recordHistory,
  type TestWorkers,
  waitForStatus,
  withWorkers,
} from '../fixtures/workflow-harness.js';
import { timeSkippingEnv } from '../support/temporal-env.js';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await timeSkippingEnv();
});
afterAll(async () => {
  await env?.teardown();
});

/** A ready brand with a STANDARD vet ordered from AEGIS and placed at the registry. */
async function readyWithStandardVet(orderBrand: TestWorkers['orderBrand']) {
  const { reference, handle, status: ready } = await orderBrand({ until: (s) => s.phase === 'ready' });
  const ordered = await orderVetAndWait(env.client, handle, reference, {
    evpId: 'AEGIS',
    vettingClass: 'STANDARD',
  });
  return { reference, handle, ready, ordered };
}

describe('external vetting', () => {
  it('a vet answered at hour 47 makes the brand VETTED_VERIFIED with its score', async () => {
    const fake = new FakeRegistry();
    await withWorkers(env, fake.activities(), async ({ orderBrand }) => {
      const { handle, ready, ordered } = await readyWithStandardVet(orderBrand);
      const vet = ordered.vets[0]!;
      expect(vet.state).toBe('pending');
      expect(vet.vettingId).toBeDefined();
      const deadline = Date.parse(vet.deadline!);
      const orderedAt = Date.parse(ordered.audit.entries.find((e) => e.event === 'vet-ordered')!.at);
      // 48 h + 2 h default grace, counted from when the vet workflow started
      expect(deadline - orderedAt).toBeGreaterThanOrEqual(50 * 3600_000);
      expect(deadline - orderedAt).toBeLessThan(50 * 3600_000 + 60_000);
      await env.sleep('47 hours');
      fake.decideVet(ready.brandId!, vet.vettingId!, { status: 'ACTIVE', score: 85 });
      await handle.signal(
        registryEventSignal,
        delivery({
          eventType: 'EVP_REPORT_SCORE',
          brandId: ready.brandId!,
          evpId: 'AEGIS',
          vettingId: vet.vettingId!,
        }),
      );
      const done = await waitForStatus(
        handle,
        (s) => s.vets[0]?.state === 'active' && s.identityStatus === 'VETTED_VERIFIED',
      );
      expect(done.vets[0]?.score).toBe(85);
      expect(done.phase).toBe('ready');
      expect(done.needsAction).toEqual([]);
      expect(done.audit.entries.find((e) => e.event === 'vet' && e.to === 'active')?.cause).toBe('webhook');
      await recordHistory(handle, 'brand-vet-hour-47');
    });
  });

  it('a vet never answered times out at 48 h + grace and the brand needs action', async () => {
    const fake = new FakeRegistry();
    await withWorkers(env, fake.activities(), async ({ orderBrand }) => {
      const { reference, handle } = await orderBrand({
        workflowOptions: { vetGraceMs: 3600_000 },
        until: (s) => s.phase === 'ready',
      });
      await orderVet(env.client, reference, { evpId: 'AEGIS', vettingClass: 'STANDARD' });
      await env.sleep('48 hours');
      expect((await waitForStatus(handle, () => true)).vets[0]?.state).toBe('pending');
      await env.sleep('2 hours');
      const status = await waitForStatus(handle, (s) => s.vets[0]?.state === 'timed-out');
      expect(status.needsAction.map((a) => a.key)).toEqual(['vet-1']);
      expect(status.audit.entries.find((e) => e.to === 'timed-out')?.cause).toBe('timer');
    });
  });

  it('a FAILED vet carries its reasons; dropped webhook recovered by the vet poll', async () => {
    const fake = new FakeRegistry();
    await withWorkers(env, fake.activities(), async ({ orderBrand }) => {
      const { handle, ready, ordered } = await readyWithStandardVet(orderBrand);
      fake.decideVet(ready.brandId!, ordered.vets[0]!.vettingId!, {
        status: 'FAILED',
        reasons: ['EIN mismatch'],
      });
      await env.sleep('2 hours');
      const failed = await waitForStatus(handle, (s) => s.vets[0]?.state === 'failed');
      expect(failed.vets[0]?.reasons).toEqual(['EIN mismatch']);
      expect(failed.needsAction[0]?.reason).toMatch(/EIN mismatch/);
      expect(failed.audit.entries.find((e) => e.to === 'failed')?.cause).toBe('poll');
    });
  });

  it('enhanced-after-low-score policy orders an ENHANCED vet after a low STANDARD score', async () => {
    const fake = new FakeRegistry();
    await withWorkers(env, fake.activities(), async ({ orderBrand }) => {
      const {
        reference,
        handle,
        status: ready,
      } = await orderBrand({
        workflowOptions: { enhancedVetPolicy: { belowScore: 50, evpId: 'WMC' } },
        until: (s) => s.phase === 'ready',
      });
      const ordered = await orderVetAndWait(env.client, handle, reference, {
        evpId: 'AEGIS',
        vettingClass: 'STANDARD',
      });
      fake.decideVet(ready.brandId!, ordered.vets[0]!.vettingId!, { status: 'ACTIVE', score: 30 });
      await handle.signal(registryEventSignal, delivery({ eventType: 'EVP_REPORT_SCORE', evpId: 'AEGIS' }));
      const status = await waitForStatus(
        handle,
        (s) => s.vets.length === 2 && s.vets[1]?.state === 'pending',
      );
      expect(status.vets[1]).toMatchObject({ evpId: 'WMC', vettingClass: 'ENHANCED', followUpOf: 1 });
      expect(fake.vetsOf(ready.brandId!).map((v) => v.vettingClass)).toEqual(['STANDARD', 'ENHANCED']);
    });
  });

  it('refuses a POLITICAL vet for a 501(c)(3) non-profit in the validator; an expired political vet is reported', async () => {
    const fake = new FakeRegistry();
    await withWorkers(env, fake.activities(), async ({ orderBrand }) => {
      const started = await orderBrand({
        brand: brandRegistration({ entityType: 'NON_PROFIT' }),
        until: (s) => s.phase === 'ready',
      });
      const ready = started.status;
      fake.setOptionalAttributes(ready.brandId!, { taxExemptStatus: '501(c)(3)' });
      await started.handle.signal(
        registryEventSignal,
        delivery({ eventType: 'BRAND_IDENTITY_STATUS_UPDATE', brandId: ready.brandId! }),
      );
      await waitForStatus(started.handle, (s) => s.optionalAttributes.taxExemptStatus === '501(c)(3)');
      const error = await orderVet(env.client, started.reference, {
        evpId: 'AEGIS',
        vettingClass: 'POLITICAL',
      }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(WorkflowUpdateFailedError);
      expect(String((error as Error & { cause?: Error }).cause?.message)).toMatch(
        /already has Political access/,
      );
      expect(fake.callCount('orderExternalVet')).toBe(0);

      const other = await orderBrand({ until: (s) => s.phase === 'ready' });
      const pacReady = other.status;
      const ordered = await orderVetAndWait(env.client, other.handle, other.reference, {
        evpId: 'AEGIS',
        vettingClass: 'POLITICAL',
      });
      fake.decideVet(pacReady.brandId!, ordered.vets[0]!.vettingId!, { status: 'ACTIVE', score: 90 });
      await other.handle.signal(
        registryEventSignal,
        delivery({ eventType: 'EVP_REPORT_SCORE', evpId: 'AEGIS' }),
      );
      await waitForStatus(other.handle, (s) => s.vets[0]?.state === 'active');
      fake.decideVet(pacReady.brandId!, ordered.vets[0]!.vettingId!, { status: 'EXPIRED' });
      await env.sleep('9 days'); // the brand's safety poll (7 days ± 20 %) notices
      const expired = await waitForStatus(other.handle, (s) => s.vets[0]?.state === 'expired');
      expect(expired.politicalCampaignsAffected).toBe(true);
      expect(expired.alerts[0]).toMatch(/political campaigns/);
      expect(expired.needsAction.map((a) => a.key)).toContain('vet-1');
    });
  });
});
