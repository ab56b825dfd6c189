/**
 * The GOVERNMENT cutover (spec: contact verification extends to GOVERNMENT brands from 21 January
 * 2027), on both sides of the date with clocks the test sets, whatever day the suite runs on: the
 * decision is a plain function of workflow time, tested at the instant before and the instant of the
 * cutover; and the workflow applies it by workflow time. After the date: the time-skipping server's
 * clock, moved past the date. Before it: workers whose workflow clock is shifted back to the day
 * before the date (test/fixtures/workflow-clock-before-government-date.ts), since the server's
 * clock cannot go back. The order API decides by the clock it is given (`now`), here the workflow's,
 * so an order is judged by the same instant the workflow starts at
 * (test/orders/brand-order-dated-rules.test.ts tests the edge on both sides of the date).
 */
import { fileURLToPath } from 'node:url';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrandSnapshot } from '../../src/contracts/activity-types.js';
import { OrderValidationError, startBrandOrder } from '../../src/orders/index.js';
import { deriveBrandPhase } from '../../src/workflows/brand/derive.js';
import { SHIFTED_RUN_STARTS_AT } from '../fixtures/workflow-clock-before-government-date.js';
import { FakeRegistry } from '../fixtures/workflow-fake-registry.js';
import {
  brandRegistration,
  uniqueReference,
  waitForStatus,
  withWorkers,
} from '../fixtures/workflow-harness.js';
import { timeSkippingEnv } from '../support/temporal-env.js';

const cutover = Date.parse('2027-01-21T00:00:00Z');
const shiftedClock = fileURLToPath(
  new URL('../fixtures/workflow-clock-before-government-date.ts', import.meta.url),
);
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

  const serverNow = async () => Number((await env.currentTimeMs?.()) ?? Date.now());

  it('after the date (the server clock moved past it if needed) a GOVERNMENT brand waits for contact verification', async () => {
    const before = await serverNow();
    if (before < cutover) await env.sleep(cutover - before + 3600_000);
    const now = await serverNow();
    const fake = new FakeRegistry();
    await withWorkers(env, fake.activities(), async ({ taskQueue, account, track }) => {
      const government = brandRegistration({ entityType: 'GOVERNMENT' });
      // By the server's clock the order API refuses it without a business contact to verify.
      const refused = await startBrandOrder(
        env.client,
        { reference: uniqueReference(), account, brand: government },
        { taskQueue, now: new Date(now) },
      ).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(OrderValidationError);
      expect((refused as OrderValidationError).errors.map((e) => e.path)).toEqual([
        'brand.businessContactEmail',
      ]);
      const { handle } = await startBrandOrder(
        env.client,
        {
          reference: uniqueReference(),
          account,
          brand: { ...government, businessContactEmail: 'clerk@springfield.example' },
        },
        { taskQueue, now: new Date(now) },
      );
      track(handle);
      const waiting = await waitForStatus(handle, (s) => s.phase === 'awaiting-contact-verification');
      expect(Date.parse(waiting.audit.entries.at(-1)!.at)).toBeGreaterThanOrEqual(cutover);
      fake.verifyContact(waiting.brandId!);
      await env.sleep('10 minutes');
      await waitForStatus(handle, (s) => s.phase === 'ready');
    });
  });

  // Runs after the case above, so the server's clock is past the date here whatever today is: the
  // workers' workflow clock is shifted back to the day before it (a test interceptor), and the order
  // API is given that day too.
  it('started before the date (workflow time), a GOVERNMENT brand without businessContactEmail is ordered and ready at once', async () => {
    expect(await serverNow()).toBeGreaterThanOrEqual(cutover);
    const fake = new FakeRegistry();
    await withWorkers(
      env,
      fake.activities(),
      async ({ taskQueue, account, track }) => {
        const brand = brandRegistration({ entityType: 'GOVERNMENT' });
        expect(brand).not.toHaveProperty('businessContactEmail');
        const { handle } = await startBrandOrder(
          env.client,
          { reference: uniqueReference(), account, brand },
          { taskQueue, now: new Date(SHIFTED_RUN_STARTS_AT) },
        );
        track(handle);
        const ready = await waitForStatus(handle, (s) => s.phase === 'ready');
        expect(ready.audit.entries.some((e) => e.to === 'awaiting-contact-verification')).toBe(false);
        // Every step was taken by the shifted workflow clock: on the day before the date.
        for (const entry of ready.audit.entries) {
          expect(Date.parse(entry.at)).toBeGreaterThanOrEqual(SHIFTED_RUN_STARTS_AT);
          expect(Date.parse(entry.at)).toBeLessThan(cutover);
        }
      },
      { workflowInterceptorModules: [shiftedClock] },
    );
  });
});
