/**
 * The import paced to the worker (issue 36, item 5): `tcr import` starts adoptees at the bulk key, and
 * an operator's Update on an adoptee rides on its first workflow task, behind every adoptee task queued
 * before it (test/workflows/operator-dispatch-order.test.ts). The import's page activity starts its
 * adoptees ADOPT_CHUNK at a time and waits for their first tasks before the next chunk, so an
 * operator's correction on one of the last adoptees of a 60-brand import is dispatched behind at most
 * ADOPT_PENDING_BOUND + ADOPT_CHUNK - 1 of the import's first tasks.
 *
 * Not timed: the real `importPage` runs against the fake registry's brands while one workflow worker
 * with a single task slot (each slot handed out a little late: a slow worker) runs the adoptees. The
 * histories say how many other adoptees' first tasks started between the target's start and its own
 * first task. Dev server (priority dispatch; visibility for the import's owner lookups).
 * Seen failing with the pacing removed (the whole page started at once): 54 and 57 of 59 ahead (bound
 * 24); paced: 9-20.
 */
import { randomUUID } from 'node:crypto';
import type { WorkflowHandle } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADOPT_CHUNK,
  ADOPT_PENDING_BOUND,
  createEstateActivities,
} from '../../src/activities/estate-activities.js';
import { createFeeApprovalActivities } from '../../src/activities/fee-approval.js';
import { brandWorkflowId } from '../../src/contracts/ids.js';
import { registryReadsTaskQueue, registryWriteTaskQueues } from '../../src/contracts/task-queues.js';
import { correctBrand } from '../../src/orders/brand-client.js';
import type { RegistryClient } from '../../src/registry/client.js';
import { FakeRegistry } from '../fixtures/workflow-fake-registry.js';
import { brandRegistration, eventTimeMs, workflowsPath } from '../fixtures/workflow-harness.js';
import { testNote } from '../support/quiet-log.js';
import { devServerEnv, workflowBundle } from '../support/temporal-env.js';

const BRANDS = 60;
/**
 * Each workflow-task slot handed out this late: a worker slower than the import's starts. A margin only
 * (without it the unpaced import still put 54 of 59 ahead here); the paced bound does not depend on it.
 */
const SLOT_DELAY_MS = 20;

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await devServerEnv();
  await workflowBundle(workflowsPath);
});
afterAll(async () => {
  await env?.teardown();
});

/** Server time (ms) of the first event of `handle`'s history matching `pick`. */
async function eventTime(
  handle: WorkflowHandle,
  pick: (e: {
    workflowTaskStartedEventAttributes?: unknown;
    workflowExecutionStartedEventAttributes?: unknown;
  }) => unknown,
): Promise<number> {
  const history = await handle.fetchHistory();
  const event = history.events?.find((e) => pick(e));
  return event?.eventTime ? eventTimeMs(event.eventTime) : Number.POSITIVE_INFINITY;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('an import paced to the worker', () => {
  it("dispatches an operator's step on one of the last adoptees behind at most the pace's bound", async () => {
    const fake = new FakeRegistry();
    const account = `acct-${randomUUID().slice(0, 8)}`;
    const taskQueue = `tcr-workflows-${randomUUID()}`;
    const connection = env.nativeConnection;
    const references: string[] = [];
    for (let i = 0; i < BRANDS; i++) {
      const reference = `paced-${String(i).padStart(2, '0')}-${randomUUID().slice(0, 6)}`;
      await fake
        .writeActivities()
        .registerBrand({ account, registration: { ...brandRegistration(), referenceId: reference } });
      references.push(reference);
    }
    // The registry's list, as the fake holds it (one page).
    const registry = {
      listBrands: async () => ({ totalRecords: fake.brands.size, records: [...fake.brands.values()] }),
    } as unknown as RegistryClient;
    const { importPage } = createEstateActivities(() => registry, {
      temporalClient: env.client,
      workflowTaskQueue: taskQueue,
    });

    // The adoptees' registry calls (reads, writes) on the fake; the workflow worker, slow, last.
    const registryQueues: [string, object][] = [
      [registryReadsTaskQueue(account), fake.readActivities()],
      ...registryWriteTaskQueues(account).map((q): [string, object] => [q, fake.writeActivities()]),
    ];
    const workers = [
      ...(await Promise.all(
        registryQueues.map(([queue, activities]) =>
          Worker.create({ connection, taskQueue: queue, activities }),
        ),
      )),
      await Worker.create({
        connection,
        taskQueue,
        workflowBundle: await workflowBundle(workflowsPath),
        activities: createFeeApprovalActivities({ approversFile: undefined }),
        maxCachedWorkflows: 0,
        tuner: {
          // One slot, each handed out SLOT_DELAY_MS late.
          workflowTaskSlotSupplier: slowSingleSlot(),
          activityTaskSlotSupplier: { type: 'fixed-size', numSlots: 10 },
          localActivityTaskSlotSupplier: { type: 'fixed-size', numSlots: 10 },
          nexusTaskSlotSupplier: { type: 'fixed-size', numSlots: 1 },
        },
      }),
    ];
    const runs = workers.map((w) => w.run());
    const target = env.client.workflow.getHandle(brandWorkflowId(account, references.at(-1)!));
    try {
      const imported = importPage({ account, kind: 'brand', page: 1, recordsPerPage: 500, dryRun: false });
      // The operator's correction, as soon as the target adoptee exists.
      while (
        !(await target.describe().then(
          () => true,
          () => false,
        ))
      )
        await sleep(20);
      const answer = correctBrand(
        env.client,
        { account, reference: references.at(-1)! },
        { patch: { email: 'ops@acme.example' } },
      )
        .then((outcome) => `answered: ${outcome.outcome}`)
        .catch((error: Error) => `refused: ${error.message}`);
      const result = await imported;
      expect(result.adopted).toBe(BRANDS);
      const answered = await answer;
      testNote(`operator's answer: ${answered}`);
      expect(answered, "the adoptee took the operator's correction").toMatch(/^answered: /);

      const targetStart = await eventTime(target, (e) => e.workflowExecutionStartedEventAttributes);
      const targetTask = await eventTime(target, (e) => e.workflowTaskStartedEventAttributes);
      expect(targetTask).toBeLessThan(Number.POSITIVE_INFINITY);
      let ahead = 0;
      for (const reference of references.slice(0, -1)) {
        const task = await eventTime(
          env.client.workflow.getHandle(brandWorkflowId(account, reference)),
          (e) => e.workflowTaskStartedEventAttributes,
        );
        if (task > targetStart && task < targetTask) ahead++;
      }
      testNote(`first tasks dispatched while the target's waited: ${ahead} of ${BRANDS - 1}`);
      expect(ahead, "the import's first tasks ahead of the operator's").toBeLessThanOrEqual(
        ADOPT_PENDING_BOUND + ADOPT_CHUNK - 1,
      );
    } finally {
      await Promise.all(
        references.map((r) =>
          env.client.workflow
            .getHandle(brandWorkflowId(account, r))
            .terminate('test finished')
            .catch(() => undefined),
        ),
      );
      for (const w of workers) if (w.getState() === 'RUNNING') w.shutdown();
      await Promise.all(runs);
    }
  });
});

/** A custom workflow-task slot supplier: one slot, handed out SLOT_DELAY_MS after it is asked for. */
function slowSingleSlot() {
  let free = 1;
  const waiters: (() => void)[] = [];
  return {
    type: 'custom' as const,
    async reserveSlot(_ctx: unknown, abortSignal: AbortSignal) {
      await sleep(SLOT_DELAY_MS);
      if (abortSignal.aborted) throw abortSignal.reason;
      while (free === 0) {
        await new Promise<void>((resolve, reject) => {
          waiters.push(resolve);
          abortSignal.addEventListener('abort', () => reject(abortSignal.reason), { once: true });
        });
      }
      free--;
      return {};
    },
    tryReserveSlot() {
      if (free === 0) return null;
      free--;
      return {};
    },
    markSlotUsed() {},
    releaseSlot() {
      free++;
      waiters.shift()?.();
    },
  };
}
