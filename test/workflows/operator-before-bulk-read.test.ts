/**
 * Operators before bulk reads (issue 36, item 5): an adopted brand's first reconciliation (`tcr
 * import`) reads its vets at the bulk priority, behind every other adoptee's read. An operator's step
 * on it must not wait for that read: the pending read is cancelled (reads are idempotent), the step
 * runs at the operator priority and is answered, and the brand reads again after it.
 *
 * Time-skipping server, fake registry whose vet list does not answer while the backlog lasts (the
 * adoptee's bulk read held in the queue). Seen failing first: before the change the correction was
 * not answered while the read was held (it waited for the backlog).
 */
import { Context } from '@temporalio/activity';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrandWorkflowInput } from '../../src/contracts/brand.js';
import { brandWorkflowId } from '../../src/contracts/ids.js';
import { correctBrand } from '../../src/orders/brand-client.js';
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

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await timeSkippingEnv();
});
afterAll(async () => {
  await env?.teardown();
});

/** How long (real time) an operator's answer may take here: far less than the held backlog. */
const PROMPT_MS = 10_000;

/** Resolves to 'timed out' if `promise` has not settled within `ms` (real time). */
function within<T>(promise: Promise<T>, ms: number): Promise<T | 'timed out'> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timed out'>((resolve) => {
    timer = setTimeout(() => resolve('timed out'), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

describe('an operator step on an adoptee whose bulk read waits behind the import', () => {
  it('is answered at once; the pending bulk read is cancelled and the brand reads again after', async () => {
    const fake = new FakeRegistry();
    const reads = fake.readActivities();
    /** While true, the vet list does not answer (the bulk read waits its turn behind the backlog). */
    let backlog = true;
    let heldReads = 0;
    const cancelledReads: string[] = [];
    const gatedReads = {
      ...reads,
      listExternalVets: async (args: Parameters<typeof reads.listExternalVets>[0]) => {
        const ctx = Context.current();
        heldReads++;
        try {
          while (backlog) {
            ctx.heartbeat();
            await ctx.sleep(100);
          }
        } catch (error) {
          cancelledReads.push(args.brandId);
          throw error;
        }
        return reads.listExternalVets(args);
      },
    };
    await withWorkers(env, { reads: gatedReads, writes: fake.writeActivities() }, async (w) => {
      try {
        await adoptAndCorrect(w);
      } finally {
        backlog = false; // the held read ends however the test does (the workers shut down after it)
      }
    });

    async function adoptAndCorrect(w: TestWorkers): Promise<void> {
      // A verified brand the registry has (made outside the product), adopted as `tcr import` does.
      const reference = uniqueReference('adopt');
      const { account, taskQueue } = w;
      const registration = { ...brandRegistration(), referenceId: reference };
      const existing = await fake.writeActivities().registerBrand({ account, registration });
      const input: BrandWorkflowInput = { reference, account, adopt: existing };
      const workflowId = brandWorkflowId(account, reference);
      const handle = await env.client.workflow.start('brandWorkflow', {
        workflowId,
        taskQueue,
        args: [input],
      });
      w.track(handle);
      await waitForStatus(handle, (s) => s.phase === 'ready');
      // Its first reconciliation's bulk read is out and held.
      await expect.poll(() => heldReads).toBe(1);
      expect(fake.callCount('listExternalVets'), 'the vet list has not answered yet').toBe(0);

      const answer = await within(
        correctBrand(env.client, { account: w.account, reference }, { patch: { email: 'ops@acme.example' } }),
        PROMPT_MS,
      );
      expect(answer, 'the correction is answered while the bulk read still waits').toMatchObject({
        outcome: 'done',
      });
      expect(fake.callCount('updateBrand')).toBe(1);
      expect(fake.callCount('listExternalVets'), 'the held read never answered').toBe(0);
      await expect
        .poll(() => cancelledReads, { message: 'the held read was cancelled', timeout: 15_000 })
        .toEqual([existing.brandId]);

      // The backlog drains: the brand reads again (its vets among it) after the operator's step.
      backlog = false;
      await expect.poll(() => fake.callCount('listExternalVets'), { timeout: PROMPT_MS }).toBe(1);
      expect(fake.callCount('getBrand')).toBeGreaterThanOrEqual(1);
      const history = await handle.fetchHistory();
      expect(
        history.events?.some((e) => e.activityTaskCancelRequestedEventAttributes),
        'the bulk read was cancelled',
      ).toBe(true);
      await recordHistory(handle, 'brand-adopted-operator-before-bulk-read');
    }
  });
});
