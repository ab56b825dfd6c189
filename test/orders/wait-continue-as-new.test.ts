/**
 * The order API's durable wait (src/orders/notifications.ts) on the real Temporal dev server (not the
 * time-skipping one): a `waitForPhase` update in flight when the brand's run continues as new fails
 * WAIT_INTERRUPTED and is asked again of the next run under a new update id; the caller's wait then
 * ends when the phase comes, well before its own timeout.
 */
import type { WorkflowHandle } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { registryEventSignal } from '../../src/contracts/signals.js';
import { waitForEntityPhase } from '../../src/orders/notifications.js';
import { FakeRegistry } from '../fixtures/workflow-fake-registry.js';
import { delivery, withWorkers } from '../fixtures/workflow-harness.js';
import { devServerEnv } from '../support/temporal-env.js';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await devServerEnv();
}, 90_000);
afterAll(async () => {
  await env?.teardown();
});

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Update ids the current run of `handle` accepted. */
async function acceptedUpdates(handle: WorkflowHandle): Promise<string[]> {
  const { events } = await handle.fetchHistory();
  return (events ?? []).flatMap((e) => {
    const id = e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.meta?.updateId;
    return id ? [id] : [];
  });
}

async function until<T>(what: string, fn: () => Promise<T | undefined>, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await pause(100);
  }
}

it('a wait in flight across a continue-as-new is asked again of the next run and ends reached', async () => {
  const fake = new FakeRegistry();
  await withWorkers(env, fake.activities(), async ({ orderBrand, account }) => {
    const { reference, handle, status } = await orderBrand({
      until: (s) => s.phase === 'ready',
      workflowOptions: { continueAsNewAtHistoryLength: 40 },
    });
    const firstRun = (await handle.describe()).runId;
    const started = Date.now();
    const waiting = waitForEntityPhase(env.client, 'brand', { account, reference }, ['deleted'], 60_000, {
      waitId: 'fulfilment-1',
    });
    let failed: unknown;
    waiting.catch((error: unknown) => {
      failed = error;
    });
    await until('the wait accepted by the first run', async () =>
      (await acceptedUpdates(handle)).includes('wait-for-phase/fulfilment-1') ? true : undefined,
    );
    // Registry events grow the history past 40 events: the run continues as new with the wait in flight.
    await until('the next run', async () => {
      await handle
        .signal(
          registryEventSignal,
          delivery({ eventType: 'BRAND_IDENTITY_STATUS_UPDATE', brandId: status.brandId! }),
        )
        .catch(() => undefined);
      const run = (await handle.describe()).runId;
      return run !== firstRun ? run : undefined;
    });
    // The caller asked the next run again, under the next id.
    const again = await until('the wait accepted by the next run', async () => {
      if (failed) throw failed; // the caller gave up on the interrupted wait
      const ids = await acceptedUpdates(handle);
      return ids.some((id) => id.startsWith('wait-for-phase/fulfilment-1/')) ? ids : undefined;
    });
    expect(again).not.toContain('wait-for-phase/fulfilment-1');
    fake.deleteBrand(status.brandId!);
    await handle.signal(
      registryEventSignal,
      delivery({ eventType: 'BRAND_IDENTITY_STATUS_UPDATE', brandId: status.brandId! }),
    );
    const outcome = await waiting;
    expect(outcome).toMatchObject({ result: 'reached', current: { phase: 'deleted' } });
    expect(Date.now() - started).toBeLessThan(45_000);
  });
}, 120_000);
