/**
 * The server's continue-as-new suggestion ends the entity loop's wait (issue 36, item 2): a settled
 * brand waiting on its 7-day safety poll receives signals that wake nothing (duplicate webhook
 * deliveries) until its history passes the server's suggestion threshold; the next workflow task
 * carries the suggestion and the run continues as new at once. On the dev server (the time-skipping
 * server never suggests), its threshold lowered to 60 events.
 */
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrandStatus } from '../../src/contracts/brand.js';
import { registryEventSignal } from '../../src/contracts/signals.js';
import { getBrandStatus } from '../../src/orders/index.js';
import { FakeRegistry } from '../fixtures/workflow-fake-registry.js';
import { delivery, withWorkers } from '../fixtures/workflow-harness.js';
import { devServerEnv } from '../support/temporal-env.js';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await devServerEnv({ 'limit.historyCount.suggestContinueAsNew': '60' });
}, 60_000);
afterAll(async () => {
  await env?.teardown();
});

describe('continue-as-new on the server suggestion', () => {
  it('a settled brand continues as new when the server suggests it, woken by a signal that wakes nothing else', async () => {
    const fake = new FakeRegistry();
    await withWorkers(env, { reads: fake.readActivities(), writes: fake.writeActivities() }, async (w) => {
      const {
        reference,
        handle,
        status: ready,
      } = await w.orderBrand({
        until: (s) => s.phase === 'ready' && s.waitingFor !== undefined,
      });
      const firstRunId = (await handle.describe()).runId;
      const duplicate = delivery({ eventType: 'BRAND_IDENTITY_STATUS_UPDATE', brandId: ready.brandId! });
      await handle.signal(registryEventSignal, duplicate);
      let runId = firstRunId;
      for (let i = 0; i < 40 && runId === firstRunId; i++) {
        // The same delivery again: a duplicate, it wakes nothing, but each grows the history.
        await handle.signal(registryEventSignal, duplicate).catch(() => undefined);
        await new Promise((r) => setTimeout(r, 100));
        runId = (await handle.describe()).runId;
      }
      expect(runId).not.toBe(firstRunId);
      let status: BrandStatus | undefined;
      for (let i = 0; i < 100 && status?.runs !== 2; i++) {
        status = await getBrandStatus(env.client, reference).catch(() => undefined);
        if (status?.runs !== 2) await new Promise((r) => setTimeout(r, 100));
      }
      expect(status?.phase).toBe('ready');
      expect(status?.audit.entries.find((e) => e.event === 'continue-as-new')?.detail).toMatch(
        /^suggested by the server at history length \d+, run 1$/,
      );
      expect(status?.audit.entries.filter((e) => e.event === 'event')).toHaveLength(1);
    });
  }, 90_000);
});
