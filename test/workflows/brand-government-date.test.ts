/**
 * The GOVERNMENT cutover (spec: contact verification extends to GOVERNMENT brands from 21 January
 * 2027), on both sides of the date with clocks the test sets: the decision is a plain function of
 * workflow time, tested at the instant before and the instant of the cutover; and the workflow
 * applies it by workflow time (the time-skipping server's clock, moved past the date), whatever day
 * the suite runs on.
 */
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrandSnapshot } from '../../src/contracts/activity-types.js';
import { startBrandOrder } from '../../src/orders/index.js';
import { deriveBrandPhase } from '../../src/workflows/brand/derive.js';
import { FakeRegistry } from '../fixtures/workflow-fake-registry.js';
import {
  brandRegistration,
  uniqueReference,
  waitForStatus,
  withWorkers,
} from '../fixtures/workflow-harness.js';
import { timeSkippingEnv } from '../support/temporal-env.js';

const cutover = Date.parse('2027-01-21T00:00:00Z');
const government = (): BrandSnapshot => ({
  brandId: 'B1',
  entityType: 'GOVERNMENT',
  status: 'ACTIVE',
  identityStatus: 'VERIFIED',
  businessContactEmailVerifiedDate: null,
  optionalAttributes: {},
});

describe('GOVERNMENT contact verification from 2027-01-21: the decision, by the clock it is given', () => {
  const ctx = (now: number) => ({ entityType: 'GOVERNMENT', appealPending: false, now });

  it('the instant before the date: ready without contact verification', () => {
    expect(deriveBrandPhase(government(), ctx(cutover - 1)).phase).toBe('ready');
  });

  it('from the date: waits for contact verification, then ready once it is verified', () => {
    expect(deriveBrandPhase(government(), ctx(cutover)).phase).toBe('awaiting-contact-verification');
    const verified = { ...government(), businessContactEmailVerifiedDate: '2027-01-22T00:00:00.000Z' };
    expect(deriveBrandPhase(verified, ctx(cutover + 86_400_000)).phase).toBe('ready');
  });

  it('other entity types are unaffected on both sides (PRIVATE_PROFIT never, PUBLIC_PROFIT always)', () => {
    const privateProfit = { ...government(), entityType: 'PRIVATE_PROFIT' };
    const publicProfit = { ...government(), entityType: 'PUBLIC_PROFIT' };
    for (const now of [cutover - 1, cutover]) {
      expect(deriveBrandPhase(privateProfit, { ...ctx(now), entityType: 'PRIVATE_PROFIT' }).phase).toBe(
        'ready',
      );
      expect(deriveBrandPhase(publicProfit, { ...ctx(now), entityType: 'PUBLIC_PROFIT' }).phase).toBe(
        'awaiting-contact-verification',
      );
    }
  });
});

describe('GOVERNMENT contact verification: the workflow applies it by workflow time', () => {
  let env: TestWorkflowEnvironment;
  beforeAll(async () => {
    env = await timeSkippingEnv();
  });
  afterAll(async () => {
    await env?.teardown();
  });

  it('after the date (the server clock moved past it if needed) a GOVERNMENT brand waits for contact verification', async () => {
    const now = Number((await env.currentTimeMs?.()) ?? Date.now());
    if (now < cutover) await env.sleep(cutover - now + 3600_000);
    const fake = new FakeRegistry();
    await withWorkers(
      env,
      { reads: fake.readActivities(), writes: fake.writeActivities() },
      async ({ taskQueue, account, track }) => {
        const { handle } = await startBrandOrder(
          env.client,
          { reference: uniqueReference(), account, brand: brandRegistration({ entityType: 'GOVERNMENT' }) },
          { taskQueue },
        );
        track(handle);
        const waiting = await waitForStatus(handle, (s) => s.phase === 'awaiting-contact-verification');
        expect(Date.parse(waiting.audit.entries.at(-1)!.at)).toBeGreaterThanOrEqual(cutover);
        fake.verifyContact(waiting.brandId!);
        await env.sleep('10 minutes');
        await waitForStatus(handle, (s) => s.phase === 'ready');
      },
    );
  });
});
