/**
 * A Temporal cancellation (Web UI, `temporal workflow cancel`, here `handle.cancel()`) that lands while
 * an operator operation runs (issue 34, item 4): the update is answered (it never hangs), the outcome
 * says the workflow was cancelled and what became of the registry call in flight, and the workflow
 * ends. For every operator operation of the brand (a fake registry whose call for that operation is
 * held until the cancel lands) and of the campaign (the simulator bench, a call site held); operations
 * still queued behind the one running are answered too.
 *
 * Every wait for an answer is bounded (real time): a hang fails the test instead of stalling the file.
 */
import type { WorkflowHandle } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrandResult } from '../../src/contracts/brand.js';
import type { OperationOutcome } from '../../src/contracts/operations.js';
import {
  appealBrand,
  cancelBrand,
  correctBrand,
  importVet,
  orderVet,
  revetBrand,
  startBrandOrder,
} from '../../src/orders/index.js';
import { FakeRegistry } from '../fixtures/workflow-fake-registry.js';
import {
  brandRegistration,
  recordHistory,
  type TestWorkers,
  uniqueReference,
  waitForStatus,
  withWorkers,
} from '../fixtures/workflow-harness.js';
import { timeSkippingEnv } from '../support/temporal-env.js';

/** Real time an answer may take before the test calls it a hang. */
const ANSWER_MS = 20_000;

/** `promise`'s value, or a failure naming `what` if it has not settled within ANSWER_MS. */
async function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ANSWER_MS / 1000} s`)), ANSWER_MS);
  });
  try {
    return await Promise.race([promise, hung]);
  } finally {
    clearTimeout(timer);
  }
}

/** The workflow has closed (its result came), and is no longer Running. */
async function expectEnded(handle: WorkflowHandle): Promise<unknown> {
  const result = await within(handle.result(), `${handle.workflowId} result`);
  expect((await handle.describe()).status.name).not.toBe('RUNNING');
  return result;
}

let env: TestWorkflowEnvironment;

describe('brand: a Temporal cancellation during an operator operation', () => {
  beforeAll(async () => {
    env = await timeSkippingEnv();
  });
  afterAll(async () => {
    await env?.teardown();
  });

  const activities = (fake: FakeRegistry) => ({
    reads: fake.readActivities(),
    writes: fake.writeActivities(),
  });

  async function order(w: TestWorkers): Promise<{ reference: string; handle: WorkflowHandle }> {
    const reference = uniqueReference('cxl');
    const { handle } = await startBrandOrder(
      env.client,
      { reference, account: w.account, brand: brandRegistration() },
      { taskQueue: w.taskQueue },
    );
    w.track(handle);
    return { reference, handle };
  }

  type Case = {
    operation: string;
    /** The brand's identity at registration: UNVERIFIED puts it in needs-correction. */
    identity: 'VERIFIED' | 'UNVERIFIED';
    /** The registry call the operation makes, held until the cancel lands. */
    held: string;
    /** The call site the outcome names (GuardedRegistry's site of that call). */
    site: RegExp;
    run(reference: string): Promise<OperationOutcome>;
  };
  const cases: Case[] = [
    {
      operation: 'correctBrand',
      identity: 'UNVERIFIED',
      held: 'updateBrand',
      site: /update brand/,
      run: (reference) => correctBrand(env.client, reference, { patch: { email: 'ops@acme.example' } }),
    },
    {
      operation: 'revet',
      identity: 'UNVERIFIED',
      held: 'revetBrand',
      site: /revet/,
      run: (r) => revetBrand(env.client, r),
    },
    {
      operation: 'appeal',
      identity: 'UNVERIFIED',
      held: 'appealBrand',
      site: /appeal/,
      run: (reference) =>
        appealBrand(env.client, reference, {
          appealCategories: ['VERIFY_TAX_ID'],
          attachmentUuids: [],
          explanation: 'the EIN is right',
        }),
    },
    {
      operation: 'orderVet',
      identity: 'VERIFIED',
      held: 'vettingProviderOffer',
      site: /check vetting provider/,
      run: (reference) => orderVet(env.client, reference, { evpId: 'AEGIS', vettingClass: 'STANDARD' }),
    },
    {
      operation: 'importVet',
      identity: 'VERIFIED',
      held: 'vettingProviderOffer',
      site: /check vetting provider/,
      run: (reference) => importVet(env.client, reference, { evpId: 'AEGIS', vettingId: 'v-imported-1' }),
    },
  ];

  for (const c of cases)
    it(`${c.operation}: its held ${c.held} call is interrupted; the update answers cancelled, the brand ends cancelled`, async () => {
      const fake = new FakeRegistry();
      fake.identityOnRegister = () => c.identity;
      await withWorkers(env, activities(fake), async (w) => {
        const { reference, handle } = await order(w);
        await waitForStatus(
          handle,
          (s) => s.phase === (c.identity === 'UNVERIFIED' ? 'needs-correction' : 'ready'),
        );
        const held = fake.block(c.held);
        let outcome: OperationOutcome;
        try {
          const running = c.run(reference);
          await held.reached;
          await handle.cancel();
          outcome = await within(running, c.operation);
        } finally {
          held.release();
        }
        expect(outcome).toMatchObject({ operation: c.operation, outcome: 'cancelled', phase: 'cancelled' });
        expect(outcome.detail).toMatch(/cancelled through Temporal/);
        expect(outcome.detail).toMatch(c.site);
        const result = (await expectEnded(handle)) as BrandResult;
        expect(result).toMatchObject({ phase: 'cancelled', registered: true });
        if (c.operation === 'correctBrand')
          await recordHistory(handle, 'brand-temporal-cancel-during-correct');
      });
    });

  it("the operator's cancel, waiting for a vet held in its billed order: answered, the vet's order finishes", async () => {
    const fake = new FakeRegistry();
    await withWorkers(env, activities(fake), async (w) => {
      const { reference, handle } = await order(w);
      await waitForStatus(handle, (s) => s.phase === 'ready');
      const heldOrder = fake.block('orderExternalVet');
      try {
        await orderVet(env.client, reference, { evpId: 'AEGIS', vettingClass: 'STANDARD' });
        await heldOrder.reached;
        // The operator's cancel stops the vet and waits for it to close; the vet's billed order is held.
        const cancelling = cancelBrand(env.client, reference, 'customer withdrew');
        await waitForStatus(handle, (s) => s.phase === 'cancelled');
        const queued = correctBrand(env.client, reference, { patch: { email: 'late@acme.example' } }).catch(
          (e: unknown) => e,
        );
        await handle.cancel();
        const outcome = await within(cancelling, 'cancel');
        expect(outcome).toMatchObject({ operation: 'cancel', phase: 'cancelled' });
        expect(['done', 'cancelled']).toContain(outcome.outcome);
        // An update sent after the brand was cancelled is refused by its validator, or answered.
        await within(queued, 'correctBrand after the cancel');
      } finally {
        heldOrder.release();
      }
      const result = (await expectEnded(handle)) as BrandResult;
      expect(result.phase).toBe('cancelled');
      // The billed vet order finished at the registry (non-cancellable), once.
      expect(fake.callCount('orderExternalVet')).toBe(1);
    });
  });
});
