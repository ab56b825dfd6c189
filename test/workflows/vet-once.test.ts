/**
 * Vets billed once and unique across runs (issue 34): a second identical vet order while the first is
 * queued or in flight is answered with the first's outcome, not ordered again; a caller's idempotency
 * key (the Temporal update id) answers a repeat with the first outcome, also after a continue-as-new;
 * vet workflow ids carry something unique to the brand's run, so a brand terminated while its vet runs
 * and ordered again collides with nothing, reads its vets at the registry and follows them.
 */
import { WorkflowUpdateStage } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brandStatusQuery } from '../../src/contracts/brand.js';
import { orderVetUpdate } from '../../src/contracts/brand-operations.js';
import { orderVet, startBrandOrder } from '../../src/orders/index.js';
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

const ENHANCED = { evpId: 'AEGIS', vettingClass: 'ENHANCED' } as const;

describe('a vet is ordered once', () => {
  it('two concurrent identical orders: one vet at the registry, both callers answered', async () => {
    const fake = new FakeRegistry();
    await withWorkers(env, fake.activities(), async ({ orderBrand }) => {
      const { reference, handle } = await orderBrand({ until: (s) => s.phase === 'ready' });
      const gate = fake.block('orderExternalVet');
      const first = orderVet(env.client, reference, ENHANCED);
      await gate.reached;
      // Both accepted (validated and running) while the first order is in flight at the registry.
      const accepted = { args: [ENHANCED] as [typeof ENHANCED], waitForStage: WorkflowUpdateStage.ACCEPTED };
      const second = await handle.startUpdate(orderVetUpdate, accepted);
      const third = await handle.startUpdate(orderVetUpdate, accepted);
      gate.release();
      const outcomes = await Promise.all([first, second.result(), third.result()]);
      expect(outcomes.map((o) => o.outcome)).toEqual(['done', 'done', 'done']);
      expect(new Set(outcomes.map((o) => o.ids?.vetWorkflowId)).size).toBe(1);
      const status = await waitForStatus(handle, (s) => s.vets.every((v) => v.state === 'pending'));
      expect(status.vets).toHaveLength(1);
      expect(fake.callCount('orderExternalVet')).toBe(1);
      // Once the first is placed, a repeat is told the vet is in progress.
      const later = await orderVet(env.client, reference, ENHANCED);
      expect(later.detail).toMatch(/already in progress: vet #1/);
      expect(fake.callCount('orderExternalVet')).toBe(1);
      await recordHistory(handle, 'brand-vet-once-concurrent');
    });
  });

  it('the same idempotency key twice, also after a continue-as-new: the first outcome, one vet', async () => {
    const fake = new FakeRegistry();
    await withWorkers(env, fake.activities(), async ({ orderBrand }) => {
      const { reference, handle } = await orderBrand({
        until: (s) => s.phase === 'ready',
        workflowOptions: { continueAsNewAtHistoryLength: 40 },
      });
      const key = 'order-system-42';
      const first = await orderVet(env.client, reference, ENHANCED, { idempotencyKey: key });
      expect(first.outcome).toBe('done');
      // Ordering the vet takes the short-threshold brand past 40 events: it continues as new.
      await waitForStatus(handle, (s) => s.runs > 1 && s.vets[0]?.state === 'pending');
      const again = await orderVet(env.client, reference, ENHANCED, { idempotencyKey: key });
      // The first outcome itself (not an "already in progress" answer to a new operation).
      expect(again).toEqual(first);
      expect(again.detail).toBeUndefined();
      expect(fake.callCount('orderExternalVet')).toBe(1);
      const { vets } = await handle.query(brandStatusQuery);
      expect(vets).toHaveLength(1);
      // The Java test server keeps an update id per workflow id, not per run: after the id came back in
      // the second run, it can refuse the completion of the harness's cancel update (Invalid Transition
      // NONE → COMPLETE) and the brand's tasks then retry forever. This brand ends by termination here.
      await handle.terminate('test finished');
      await env.client.workflow.getHandle(vets[0]!.workflowId).terminate('test finished');
    });
  });
});

describe('vet ids unique across runs', () => {
  it('a brand terminated while its vet runs and ordered again: no collision, the vet followed, no second order', async () => {
    const fake = new FakeRegistry();
    await withWorkers(env, fake.activities(), async ({ orderBrand, account, taskQueue, track }) => {
      const { reference, handle } = await orderBrand({ until: (s) => s.phase === 'ready' });
      const ordered = await orderVet(env.client, reference, ENHANCED);
      expect(ordered.outcome).toBe('done');
      await waitForStatus(handle, (s) => s.vets[0]?.state === 'pending');
      await handle.terminate('operator terminated the brand');

      const { handle: again } = await startBrandOrder(
        env.client,
        { reference, account, brand: brandRegistration() },
        { taskQueue },
      );
      track(again);
      const adopted = await waitForStatus(again, (s) => s.phase === 'ready' && s.vets.length > 0);
      expect(adopted.vets).toEqual([
        expect.objectContaining({ evpId: 'AEGIS', vettingClass: 'ENHANCED', state: 'pending' }),
      ]);
      const repeat = await orderVet(env.client, reference, ENHANCED);
      expect(repeat.outcome).toBe('done');
      expect(repeat.detail).toMatch(/already in progress/);
      const status = await again.query(brandStatusQuery);
      expect(status.phase).toBe('ready');
      expect(status.vets).toHaveLength(1);
      expect(fake.callCount('orderExternalVet')).toBe(1);
      expect((await again.describe()).status.name).toBe('RUNNING');
      await recordHistory(again, 'brand-vet-reordered');
    });
  });
});
