/**
 * A SOLE_PROPRIETOR's readiness on what the spec documents: it "requires further verification before
 * campaigns can be created", and `GET /campaignBuilder/brand/{brandId}/usecase/{usecase}` tells
 * whether the brand supports a use case. Against a fake registry that has NO `mobilePhoneVerifiedDate`
 * (the spec has no such field), the brand is ready exactly when the builder supports the
 * SOLE_PROPRIETOR use case, whichever way the builder says "not yet" (200 `qualified: false`, 400,
 * 404); the extra field alone never makes it ready.
 */
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrandSnapshot } from '../../src/contracts/activity-types.js';
import type { BrandStatus } from '../../src/contracts/brand.js';
import { deriveBrandPhase } from '../../src/workflows/brand/derive.js';
import { FakeRegistry } from '../fixtures/workflow-fake-registry.js';
import {
  brandRegistration,
  recordHistory,
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

const soleProprietor = () =>
  brandRegistration({
    entityType: 'SOLE_PROPRIETOR',
    firstName: 'Jane',
    lastName: 'Doe',
    mobilePhone: '+12025550199',
  });

const waitingWithPoll = (s: BrandStatus) =>
  s.phase === 'awaiting-sole-proprietor-verification' && s.waitingFor?.nextPollAt !== undefined;

describe('the decision: a SELF_DECLARED sole proprietor is ready exactly when the builder supports it', () => {
  const record = (mobilePhoneVerifiedDate: string | null | undefined): BrandSnapshot => ({
    brandId: 'B1',
    entityType: 'SOLE_PROPRIETOR',
    status: 'ACTIVE',
    identityStatus: 'SELF_DECLARED',
    ...(mobilePhoneVerifiedDate !== undefined ? { mobilePhoneVerifiedDate } : {}),
    optionalAttributes: {},
  });
  for (const phone of [undefined, null, '2026-11-01T00:00:00.000Z'])
    for (const supported of [false, true])
      it(`mobilePhoneVerifiedDate ${phone}, builder supports ${supported}`, () => {
        const { phase } = deriveBrandPhase(record(phone), {
          entityType: 'SOLE_PROPRIETOR',
          appealPending: false,
          now: Date.parse('2026-11-28T00:00:00Z'),
          soleProprietorSupported: supported,
        });
        expect(phase).toBe(supported ? 'ready' : 'awaiting-sole-proprietor-verification');
      });
});

describe('a sole proprietor is ready when the campaign builder supports SOLE_PROPRIETOR', () => {
  for (const notYet of [200, 400, 404] as const)
    it(`builder says "not yet" with ${notYet}: waits (no fault raised), then ready once it supports it`, async () => {
      const fake = new FakeRegistry();
      fake.builderNotYet = notYet;
      await withWorkers(env, { reads: fake.readActivities(), writes: fake.writeActivities() }, async (w) => {
        const { handle, status: waiting } = await w.orderBrand({
          brand: soleProprietor(),
          until: waitingWithPoll,
        });
        const brandId = waiting.brandId!;
        expect(fake.brand(brandId).mobilePhoneVerifiedDate).toBeUndefined();
        // Hours of polls: the builder is asked, says not yet, and the brand keeps waiting.
        await env.sleep('3 hours');
        const still = await waitForStatus(handle, waitingWithPoll);
        expect(fake.callCount('brandUseCaseSupport')).toBeGreaterThan(1);
        expect(still.needsAction.map((a) => a.key)).not.toContain('registry-error');

        fake.verifySoleProprietor(brandId);
        await env.sleep('2 hours');
        const ready = await waitForStatus(handle, (s) => s.phase === 'ready');
        expect(ready.identityStatus).toBe('SELF_DECLARED');
        const transition = ready.audit.entries.find((e) => e.event === 'phase' && e.to === 'ready');
        expect(transition?.detail).toMatch(/campaign builder/);
        if (notYet === 200) await recordHistory(handle, 'brand-sole-proprietor-builder');
      });
    });

  it('mobilePhoneVerifiedDate (not in the spec) never decides: it only makes the builder be asked at once', async () => {
    const fake = new FakeRegistry();
    await withWorkers(env, { reads: fake.readActivities(), writes: fake.writeActivities() }, async (w) => {
      const { handle, status: waiting } = await w.orderBrand({
        brand: soleProprietor(),
        until: waitingWithPoll,
      });
      const brandId = waiting.brandId!;
      fake.setMobilePhoneVerified(brandId);
      await env.sleep('3 hours');
      expect((await waitForStatus(handle, waitingWithPoll)).phase).toBe(
        'awaiting-sole-proprietor-verification',
      );

      fake.verifySoleProprietor(brandId);
      await env.sleep('2 hours');
      await waitForStatus(handle, (s) => s.phase === 'ready');
    });
  });

  it('a sole proprietor the registry reports VERIFIED is ready without the builder', async () => {
    const fake = new FakeRegistry();
    fake.identityOnRegister = () => 'VERIFIED';
    await withWorkers(env, { reads: fake.readActivities(), writes: fake.writeActivities() }, async (w) => {
      await w.orderBrand({ brand: soleProprietor(), until: (s) => s.phase === 'ready' });
    });
  });
});
