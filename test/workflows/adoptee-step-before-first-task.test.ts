/**
 * An operator's step on an adoptee whose first workflow task has not run yet (tcr import starts
 * thousands at the bulk key: the step often arrives first) is judged by the phase the registry's record
 * gives the adoptee, not by the starting phase. The Update is validated as its handler is set, in that
 * first task: the handlers used to be set before the adopted record was applied, so a correction of a
 * verified adoptee was refused "not possible in phase registering" (found by the operator-during-import
 * bench: 10 of 10 steps refused). Brand and campaign (patch adoptee-handlers-after-record).
 */
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createFeeApprovalActivities } from '../../src/activities/fee-approval.js';
import type { BrandWorkflowInput } from '../../src/contracts/brand.js';
import { brandWorkflowId } from '../../src/contracts/ids.js';
import { correctBrand, getBrandStatus } from '../../src/orders/brand-client.js';
import { FakeRegistry } from '../fixtures/workflow-fake-registry.js';
import {
  brandRegistration,
  recordHistory,
  uniqueReference,
  withWorkers,
  workflowsPath,
} from '../fixtures/workflow-harness.js';
import { devServerEnv, workflowBundle } from '../support/temporal-env.js';

// The dev server: the time-skipping one does not hand an Update to a workflow whose first task has
// not run.
let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await devServerEnv();
}, 90_000);
afterAll(() => env?.teardown());

it("a correction sent before an adopted brand's first workflow task is judged by the adopted record", async () => {
  const fake = new FakeRegistry();
  await withWorkers(env, fake.activities(), async ({ account, taskQueue }) => {
    // A verified brand the registry has (made outside the product), adopted as tcr import does, on a
    // workflow queue no worker polls yet (the registry's activity queues are polled).
    const reference = uniqueReference('adopted');
    const existing = await fake
      .writeActivities()
      .registerBrand({ account, registration: { ...brandRegistration(), referenceId: reference } });
    const input: BrandWorkflowInput = { reference, account, adopt: existing };
    const laterQueue = `${taskQueue}-later`;
    // Not tracked: it is ended below while its worker still polls.
    const handle = await env.client.workflow.start('brandWorkflow', {
      workflowId: brandWorkflowId(account, reference),
      taskQueue: laterQueue,
      args: [input],
    });
    const answer = correctBrand(
      env.client,
      { account, reference },
      { patch: { email: 'ops@acme.example' } },
    ).then(
      (outcome) => outcome,
      (error: Error) => `refused: ${(error.cause as Error | undefined)?.message ?? error.message}`,
    );
    // The Update reaches the server, where it waits for the workflow's first task, before a worker polls.
    await new Promise((r) => setTimeout(r, 1_000));
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue: laterQueue,
      workflowBundle: await workflowBundle(workflowsPath),
      activities: createFeeApprovalActivities({ approversFile: undefined }),
    });
    const running = worker.run();
    try {
      expect(await answer).toMatchObject({ outcome: 'done' });
      expect(fake.brandByReference(reference)?.registration.email).toBe('ops@acme.example');
      expect((await getBrandStatus(env.client, { account, reference })).phase).toBe('ready');
      await recordHistory(handle, 'brand-adoptee-step-before-first-task');
    } finally {
      await handle.terminate('test finished').catch(() => undefined);
      worker.shutdown();
      await running;
    }
  });
});
