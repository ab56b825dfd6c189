/**
 * How long a pending registration polls on its own (time-skipping server, fake registry):
 * - the schedule itself: 1 minute doubling to 1 hour, then, after a day of polls, every 2 days;
 * - a brand waiting for its business contact polls hourly on its first day, then not for at least a
 *   day and a half; a verification whose webhook was lost is still seen by the tail's next poll;
 * - an adopted brand (tcr import) in a pending phase starts in the tail: no minute-by-minute polls;
 * - an import's adoptees come due over a whole period (their first poll ± 50 %), not in a wave a
 *   period later; after that first poll, the usual ± 20 %.
 */
import type { WorkflowHandle } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrandStatus, BrandWorkflowInput } from '../../src/contracts/brand.js';
import { brandWorkflowId } from '../../src/contracts/ids.js';
import {
  backoffDelay,
  DAY_MS,
  DEFAULT_PENDING_POLL,
  firstAttemptAtMax,
  firstTailAttempt,
  GROWING_POLL,
  HOUR_MS,
  inTail,
  MINUTE_MS,
} from '../../src/workflows/entity/wait.js';
import { FakeRegistry } from '../fixtures/workflow-fake-registry.js';
import {
  brandRegistration,
  publicProfitRegistration,
  recordHistory,
  uniqueReference,
  waitForStatus,
  withWorkers,
} from '../fixtures/workflow-harness.js';
import { timeSkippingEnv } from '../support/temporal-env.js';

describe('the pending poll schedule', () => {
  it('grows from 1 minute to 1 hour, and polls every 2 days once its polls add up to a day', () => {
    const delays = Array.from({ length: 40 }, (_, attempt) => backoffDelay(DEFAULT_PENDING_POLL, attempt));
    expect(delays.slice(0, 8)).toEqual([1, 2, 4, 8, 16, 32, 60, 60].map((m) => m * MINUTE_MS));
    const first = firstTailAttempt(DEFAULT_PENDING_POLL)!;
    const before = delays.slice(0, first).reduce((a, b) => a + b, 0);
    expect(before).toBeGreaterThanOrEqual(DAY_MS);
    expect(before - delays[first - 1]!).toBeLessThan(DAY_MS);
    expect(delays.slice(first)).toEqual(Array(40 - first).fill(2 * DAY_MS));
    expect(inTail(DEFAULT_PENDING_POLL, first - 1)).toBe(false);
    expect(inTail(DEFAULT_PENDING_POLL, first)).toBe(true);
  });

  it('a schedule without a tail (a vet, bounded by its 48 h deadline) stays at its longest delay', () => {
    expect(firstTailAttempt(GROWING_POLL)).toBeUndefined();
    expect(inTail(GROWING_POLL, 500)).toBe(false);
    expect(backoffDelay(GROWING_POLL, 500)).toBe(HOUR_MS);
    // Where an adopted vet's polls start: the first hourly one (1, 2, 4, 8, 16, 32, then 60 minutes).
    expect(firstAttemptAtMax(GROWING_POLL)).toBe(6);
    expect(backoffDelay(GROWING_POLL, firstAttemptAtMax(GROWING_POLL))).toBe(HOUR_MS);
    expect(backoffDelay(GROWING_POLL, firstAttemptAtMax(GROWING_POLL) - 1)).toBeLessThan(HOUR_MS);
  });
});

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await timeSkippingEnv();
});
afterAll(async () => {
  await env?.teardown();
});

/** Hours from the test server's clock to the workflow's next poll. */
async function hoursToNextPoll(status: BrandStatus): Promise<number> {
  expect(status.waitingFor?.nextPollAt, 'the status shows the next poll').toEqual(expect.any(String));
  return (Date.parse(status.waitingFor!.nextPollAt!) - (await env.currentTimeMs())) / HOUR_MS;
}

/** Waits until the loop waits again (its status shows what for) after the clock moved. */
const idle = (handle: WorkflowHandle, phase: BrandStatus['phase']) =>
  waitForStatus(handle, (s) => s.phase === phase && s.waitingFor?.nextPollAt !== undefined);

describe('a brand waiting for its business contact', () => {
  it('polls hourly on its first day, then every 2 days; a verification whose webhook was lost is seen by the next one', async () => {
    const fake = new FakeRegistry();
    await withWorkers(env, { reads: fake.readActivities(), writes: fake.writeActivities() }, async (w) => {
      const { handle, status } = await w.orderBrand({
        brand: publicProfitRegistration(),
        until: (s) => s.phase === 'awaiting-contact-verification',
      });
      const brandId = status!.brandId!;
      await env.sleep('6 hours');
      const early = await idle(handle, 'awaiting-contact-verification');
      expect(await hoursToNextPoll(early)).toBeLessThanOrEqual(1.1);
      const readsOnDayOne = fake.callCount('getBrand');
      expect(readsOnDayOne).toBeGreaterThanOrEqual(7); // 1, 2, 4, 8, 16, 32, 60 minutes

      await env.sleep('24 hours');
      const late = await idle(handle, 'awaiting-contact-verification');
      // The tail's first poll came once the polls added up to a day: at 21.6 h to 26.5 h, each of them
      // being ± 10 %; the next is 2 days ± 20 % after it, so between 60 h and 85.3 h.
      expect(await hoursToNextPoll(late)).toBeGreaterThan(24);
      const readsAtDay = fake.callCount('getBrand');
      await env.sleep('25 hours');
      expect(fake.callCount('getBrand'), 'no poll between 30 h and 55 h').toBe(readsAtDay);

      // Verified at the registry, its webhook lost: the tail's next poll (by 85.3 h) sees it.
      fake.verifyContact(brandId);
      await env.sleep('35 hours');
      const ready = await waitForStatus(handle, (s) => s.phase === 'ready');
      expect(ready.contactVerifiedAt).toEqual(expect.any(String));
    });
  });
});

describe('an adopted brand in a pending phase', () => {
  it('starts in the tail: its first poll comes days later, not after a minute', async () => {
    const fake = new FakeRegistry();
    await withWorkers(env, { reads: fake.readActivities(), writes: fake.writeActivities() }, async (w) => {
      // A brand the registry has (made outside the product), its contact not verified.
      const existing = await fake.writeActivities().registerBrand({
        account: w.account,
        registration: { ...publicProfitRegistration(), referenceId: uniqueReference('adopt') },
      });
      const reference = existing.referenceId!;
      const handle = await env.client.workflow.start('brandWorkflow', {
        workflowId: brandWorkflowId(w.account, reference),
        taskQueue: w.taskQueue,
        args: [{ reference, account: w.account, adopt: existing } satisfies BrandWorkflowInput],
      });
      w.track(handle);
      const adopted = await idle(handle, 'awaiting-contact-verification');
      // The tail's 2 days, spread ± 50 % for an adoptee: 1 to 3 days.
      expect(await hoursToNextPoll(adopted)).toBeGreaterThan(24 - 1);
      await env.sleep('12 hours');
      expect(fake.callCount('getBrand'), 'no read in its first 12 hours').toBe(0);
    });
  });
});

describe("an import's settled adoptees", () => {
  it('come due over a whole safety period, not together; each then polls every 7 days ± 20 %', async () => {
    const fake = new FakeRegistry();
    await withWorkers(env, { reads: fake.readActivities(), writes: fake.writeActivities() }, async (w) => {
      // 20 verified brands the registry has, adopted together.
      const handles = await Promise.all(
        Array.from({ length: 20 }, async () => {
          const existing = await fake.writeActivities().registerBrand({
            account: w.account,
            registration: { ...brandRegistration(), referenceId: uniqueReference('settled') },
          });
          const reference = existing.referenceId!;
          return w.track(
            await env.client.workflow.start('brandWorkflow', {
              workflowId: brandWorkflowId(w.account, reference),
              taskQueue: w.taskQueue,
              args: [{ reference, account: w.account, adopt: existing } satisfies BrandWorkflowInput],
            }),
          );
        }),
      );
      const days: number[] = [];
      for (const handle of handles) days.push((await hoursToNextPoll(await idle(handle, 'ready'))) / 24);
      // 7 days ± 50 %, and spread wider than ± 20 % would (2.8 days): 20 draws from a uniform 7 days
      // fall within 2.8 days of each other about once in 10^7 runs.
      for (const d of days) expect(d).toBeGreaterThanOrEqual(3.5 - 0.01);
      for (const d of days) expect(d).toBeLessThanOrEqual(10.5 + 0.01);
      expect(Math.max(...days) - Math.min(...days)).toBeGreaterThan(2.8);

      // The first to come due polls, and its next poll is the usual 7 days ± 20 % later.
      const first = days.indexOf(Math.min(...days));
      const reads = fake.callCount('getBrand');
      await env.sleep(Math.ceil((days[first]! + 0.05) * DAY_MS));
      expect(fake.callCount('getBrand')).toBeGreaterThan(reads);
      const next = (await hoursToNextPoll(await idle(handles[first]!, 'ready'))) / 24;
      // Adopted, waited, polled, waiting again: the replay suite's adopted history.
      await recordHistory(handles[first]!, 'brand-adopted-settled');
      expect(next).toBeGreaterThanOrEqual(5.6 - 0.01);
      expect(next).toBeLessThanOrEqual(8.4 + 0.01);
    });
  }, 120_000);
});
