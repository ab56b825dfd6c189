import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrandOrder } from '../../src/orders/index.js';
import { FakeRegistry } from '../fixtures/workflow-fake-registry.js';
import {
  brandRegistration,
  uniqueReference,
  waitForStatus,
  withWorkers,
} from '../fixtures/workflow-harness.js';
import { timeSkippingEnv } from '../support/temporal-env.js';

// One server clock for the file: the "before" case runs first, then the clock moves past the date.
let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await timeSkippingEnv();
});
afterAll(async () => {
  await env?.teardown();
});

const government = () => brandRegistration({ entityType: 'GOVERNMENT', displayName: 'City of Springfield' });
const cutover = Date.parse('2027-01-21T00:00:00Z');

describe('GOVERNMENT contact verification from 2027-01-21 (workflow time)', () => {
  it('before the date a GOVERNMENT brand is ready without contact verification', async () => {
    const fake = new FakeRegistry();
    await withWorkers(
      env,
      { reads: fake.readActivities(), writes: fake.writeActivities() },
      async ({ taskQueue, account, track }) => {
        const { handle } = await startBrandOrder(
          env.client,
          { reference: uniqueReference(), account, brand: government() },
          { taskQueue },
        );
        track(handle);
        const status = await waitForStatus(handle, (s) => s.phase === 'ready');
        expect(Date.parse(status.audit.entries.at(-1)!.at)).toBeLessThan(cutover);
      },
    );
  });

  it('on or after the date a GOVERNMENT brand waits for contact verification', async () => {
    const now = (await env.currentTimeMs?.()) ?? Date.now();
    await env.sleep(Math.max(0, cutover - Number(now)) + 3600_000);
    const fake = new FakeRegistry();
    await withWorkers(
      env,
      { reads: fake.readActivities(), writes: fake.writeActivities() },
      async ({ taskQueue, account, track }) => {
        const { handle } = await startBrandOrder(
          env.client,
          { reference: uniqueReference(), account, brand: government() },
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
