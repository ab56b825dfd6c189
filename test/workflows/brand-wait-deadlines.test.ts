/**
 * The brand's operator-facing waits end: awaiting-contact-verification (3 days),
 * awaiting-sole-proprietor-verification (3 days) and appeal-pending (7 days) each raise needs-action
 * with what to do once their deadline passes; leaving the phase clears it; acknowledging it moves the
 * deadline a full period instead of raising it again at once.
 */
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrandStatus } from '../../src/contracts/brand.js';
import { acknowledgeBrandAction, appealBrand } from '../../src/orders/brand-client.js';
import { FakeRegistry } from '../fixtures/workflow-fake-registry.js';
import {
  brandRegistration,
  publicProfitRegistration,
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

const keys = (s: BrandStatus) => s.needsAction.map((a) => a.key);
/** The loop waits in `phase` (its step done, its next poll planned). */
const waitingIn = (phase: BrandStatus['phase']) => (s: BrandStatus) =>
  s.phase === phase && s.waitingFor !== undefined;

describe('awaiting-contact-verification has a deadline', () => {
  it('raises needs-action after 3 days with what to do, and clears it once the contact verifies', async () => {
    const fake = new FakeRegistry();
    await withWorkers(env, fake.activities(), async (w) => {
      const { handle, status: waiting } = await w.orderBrand({
        brand: publicProfitRegistration(),
        until: waitingIn('awaiting-contact-verification'),
      });
      expect(waiting.waitingFor?.until).toBeDefined();
      await env.sleep('2 days');
      expect(keys(await waitForStatus(handle, waitingIn('awaiting-contact-verification')))).toEqual([]);
      await env.sleep('1 day');
      const overdue = await waitForStatus(handle, (s) => keys(s).includes('contact-verification-overdue'));
      const action = overdue.needsAction.find((a) => a.key === 'contact-verification-overdue')!;
      expect(action.action).toMatch(
        /remind the business contact to complete the verification e-mail \(or correct businessContactEmail\)/,
      );
      expect(overdue.phase).toBe('awaiting-contact-verification');

      fake.verifyContact(waiting.brandId!);
      await env.sleep('3 days');
      const ready = await waitForStatus(handle, (s) => s.phase === 'ready');
      expect(keys(ready)).toEqual([]);
    });
  });

  it('acknowledging moves the deadline a full period: not raised again at once, raised again 3 days later', async () => {
    const fake = new FakeRegistry();
    await withWorkers(env, fake.activities(), async (w) => {
      const { reference, handle } = await w.orderBrand({
        brand: publicProfitRegistration(),
        until: waitingIn('awaiting-contact-verification'),
      });
      await env.sleep('3 days');
      await waitForStatus(handle, (s) => keys(s).includes('contact-verification-overdue'));
      const acknowledged = await acknowledgeBrandAction(
        env.client,
        reference,
        'contact-verification-overdue',
      );
      expect(acknowledged).toMatchObject({ outcome: 'done', phase: 'awaiting-contact-verification' });
      await env.sleep('2 days');
      const quiet = await waitForStatus(handle, waitingIn('awaiting-contact-verification'));
      expect(keys(quiet)).toEqual([]);
      await env.sleep('1 day');
      await waitForStatus(handle, (s) => keys(s).includes('contact-verification-overdue'));
      await recordHistory(handle, 'brand-contact-overdue-acknowledged');
    });
  });
});

describe('awaiting-sole-proprietor-verification has a deadline', () => {
  it('raises needs-action after 3 days, cleared once the builder supports the sole proprietor', async () => {
    const fake = new FakeRegistry();
    await withWorkers(env, fake.activities(), async (w) => {
      const { handle, status: waiting } = await w.orderBrand({
        brand: brandRegistration({ entityType: 'SOLE_PROPRIETOR', mobilePhone: '+12025550199' }),
        until: waitingIn('awaiting-sole-proprietor-verification'),
      });
      await env.sleep('3 days');
      const overdue = await waitForStatus(handle, (s) =>
        keys(s).includes('sole-proprietor-verification-overdue'),
      );
      const action = overdue.needsAction.find((a) => a.key === 'sole-proprietor-verification-overdue')!;
      expect(action.action).toMatch(/ask the sole proprietor to answer the verification text/);

      fake.verifySoleProprietor(waiting.brandId!);
      await env.sleep('3 days');
      const ready = await waitForStatus(handle, (s) => s.phase === 'ready');
      expect(keys(ready)).toEqual([]);
      await recordHistory(handle, 'brand-sole-proprietor-overdue-then-ready');
    });
  });
});

describe('appeal-pending has a deadline', () => {
  it('raises needs-action after 7 days, cleared once the registry decides', async () => {
    const fake = new FakeRegistry();
    fake.identityOnRegister = () => 'UNVERIFIED';
    await withWorkers(env, fake.activities(), async (w) => {
      const {
        reference,
        handle,
        status: stuck,
      } = await w.orderBrand({
        until: waitingIn('needs-correction'),
      });
      await appealBrand(env.client, reference, {
        appealCategories: ['VERIFY_TAX_ID'],
        attachmentUuids: ['att-1'],
        explanation: 'The EIN is correct.',
      });
      await waitForStatus(handle, waitingIn('appeal-pending'));
      await env.sleep('6 days');
      expect(keys(await waitForStatus(handle, waitingIn('appeal-pending')))).toEqual([]);
      await env.sleep('1 day');
      const overdue = await waitForStatus(handle, (s) => keys(s).includes('appeal-overdue'));
      const action = overdue.needsAction.find((a) => a.key === 'appeal-overdue')!;
      expect(action.action).toMatch(/call the registry about the appeal \/ appeal again/);

      fake.setIdentity(stuck.brandId!, 'VERIFIED');
      await env.sleep('3 days');
      const ready = await waitForStatus(handle, (s) => s.phase === 'ready');
      expect(keys(ready)).toEqual([]);
    });
  });
});
