/**
 * A brand's run continuing as new while registry events arrive, on the real Temporal dev server (not
 * the time-skipping one): the state, the audit trail and the delivery dedupe carry over, and no
 * delivery is lost or handled twice across the change of run.
 *
 * It ran on the time-skipping test server until 2026-11-29, which is not faithful here: a signal that
 * lands on a run as it continues as new is refused ("Completed workflow") or lost there (seen 7 of 9
 * handled), so the test could not count them; and in one full-suite run of ten it hung past its 60 s
 * with the worker told "workflow execution already completed" for a task of the run that had just
 * continued, and the file's next test, which waits for time to skip 7 days, hung too. The real server
 * routes a signal to the current run and fails a completion that would leave one unhandled.
 */
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrandStatus } from '../../src/contracts/brand.js';
import { registryEventSignal } from '../../src/contracts/signals.js';
import { FakeRegistry } from '../fixtures/workflow-fake-registry.js';
import { delivery, waitForStatus, withWorkers } from '../fixtures/workflow-harness.js';
import { devServerEnv } from '../support/temporal-env.js';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await devServerEnv();
}, 90_000);
afterAll(() => env?.teardown());

/** Registry events the brand handled (one audit entry each). */
const handledEvents = (s: BrandStatus) => s.audit.entries.filter((e) => e.event === 'event').length;

describe('a brand continuing as new', () => {
  it('keeps the state, the audit trail and the delivery dedupe; every delivery handled once', async () => {
    const fake = new FakeRegistry();
    await withWorkers(env, fake.activities(), async ({ orderBrand }) => {
      const {
        reference,
        handle,
        status: ready,
      } = await orderBrand({
        until: (s) => s.phase === 'ready',
        workflowOptions: { continueAsNewAtHistoryLength: 40 },
      });
      const firstRun = (await handle.describe()).runId;
      const event = () => delivery({ eventType: 'BRAND_IDENTITY_STATUS_UPDATE', brandId: ready.brandId! });
      const first = event();
      await handle.signal(registryEventSignal, first);
      // Nine deliveries 100 ms apart: the history passes 40 events among them, so some land while
      // the run continues as new.
      for (let i = 0; i < 8; i++) {
        await new Promise((r) => setTimeout(r, 100));
        await handle.signal(registryEventSignal, event());
      }
      const after = await waitForStatus(handle, (s) => handledEvents(s) >= 9);
      expect(handledEvents(after)).toBe(9);
      expect((await handle.describe()).runId).not.toBe(firstRun);
      expect(after.audit.entries.some((e) => e.event === 'continue-as-new')).toBe(true);
      expect(after.audit.entries.some((e) => e.event === 'registered')).toBe(true);
      expect(after.brandId).toBe(ready.brandId);
      expect(after.phase).toBe('ready');

      // A duplicate of the first delivery (from before the continue-as-new), then a fresh one: once
      // the fresh one shows, the duplicate before it was handled too (signals are handled in order),
      // so the count is not a race an unhandled duplicate would pass.
      await handle.signal(registryEventSignal, first);
      await handle.signal(registryEventSignal, event());
      const final = await waitForStatus(handle, (s) => handledEvents(s) > 9);
      await new Promise((r) => setTimeout(r, 500));
      expect(handledEvents(await waitForStatus(handle, () => true))).toBe(10);
      expect(final.brandId).toBe(ready.brandId);
      expect(fake.brands.size).toBe(1);
      expect(fake.registrationsOf(reference)).toBe(1);
    });
  }, 120_000);
});
