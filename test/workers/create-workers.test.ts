/**
 * createWorkers: the task queues and server-side rate limits per account, the real registry
 * activities, a graceful shutdown that stops every worker, and one that lets a registry call in
 * flight finish and report its result.
 */
import { randomUUID } from 'node:crypto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCountingProxy } from '../../bench/support/counting-proxy.js';
import { writeBudgetWorkflowId } from '../../src/contracts/ids.js';
import { NOTIFICATIONS_TASK_QUEUE } from '../../src/contracts/notifications.js';
import {
  REGISTRY_READS_PER_SECOND,
  REGISTRY_WRITES_PER_SECOND,
  WORKFLOW_TASK_QUEUE,
} from '../../src/contracts/task-queues.js';
import { WRITE_BUDGET_TASK_QUEUE } from '../../src/contracts/write-budget.js';
import { startBrandOrder } from '../../src/orders/index.js';
import { WRITE_CONNECTIONS } from '../../src/registry/client-core.js';
import { temporalCliPath } from '../../src/toolchain/paths.js';
import {
  createWorkers,
  INTERACTIVE_WRITE_ACTIVITIES_PER_ACCOUNT,
  WorkersStartAborted,
  WRITE_ACTIVITIES_PER_ACCOUNT,
} from '../../src/workers/create-workers.js';
import { brandRegistration, workflowsPath } from '../fixtures/workflow-harness.js';
import {
  activityOutcomes,
  HOLD_NEXT_BRAND_LOOKUP,
  isBrandCreate,
  isBrandLookupFor,
  type SimulatorHarness,
  simulatorAccount,
  startTestSimulator,
} from '../fixtures/workflow-simulator.js';
import { timeSkippingEnv, workflowBundle } from '../support/temporal-env.js';

let env: TestWorkflowEnvironment;
let harness: SimulatorHarness;
beforeAll(async () => {
  env = await timeSkippingEnv();
  harness = await startTestSimulator({ rateLimits: false });
});
afterAll(async () => {
  await harness?.sim.close();
  await env?.teardown();
});

/**
 * Running workers for a new account whose registry calls go through a counting proxy in front of the
 * simulator (it shows when a call is at the registry and whether its answer reached the worker).
 */
async function workersBehindProxy(name: string) {
  const proxy = await startCountingProxy(harness.sim.url);
  const account = `${name}-${randomUUID().slice(0, 6)}`;
  const workflowTaskQueue = `tcr-workflows-${randomUUID()}`;
  const workers = await createWorkers(
    {
      temporal: { address: 'unused:7233', namespace: 'default' },
      accounts: [{ ...simulatorAccount(harness.sim, account), baseUrl: proxy.url }],
    },
    {
      connection: env.nativeConnection,
      workflowBundle: await workflowBundle(workflowsPath),
      workflowTaskQueue,
    },
  );
  return { proxy, account, workflowTaskQueue, workers, run: workers.run() };
}

describe('createWorkers', () => {
  it('runs the workflow queue and, per account, a reads queue and two writes queues (background, interactive) with the spec budget', async () => {
    const workers = await createWorkers(
      {
        temporal: { address: 'unused:7233', namespace: 'default' },
        accounts: [simulatorAccount(harness.sim, 'alpha'), simulatorAccount(harness.sim, 'beta')],
      },
      { connection: env.nativeConnection, workflowBundle: await workflowBundle(workflowsPath) },
    );
    const run = workers.run();
    try {
      const queues = workers.workers.map((w) => [
        w.options.taskQueue,
        w.options.maxTaskQueueActivitiesPerSecond,
      ]);
      // Writes: the account's budget workflow paces them (src/activities/write-budget.ts); the
      // server-side rate is a backstop of a window's count per second.
      const backstop = REGISTRY_WRITES_PER_SECOND * 10;
      expect(queues).toEqual([
        [WORKFLOW_TASK_QUEUE, undefined],
        [NOTIFICATIONS_TASK_QUEUE, undefined],
        [WRITE_BUDGET_TASK_QUEUE, undefined],
        ['registry-reads/alpha', REGISTRY_READS_PER_SECOND],
        ['registry-writes/alpha', backstop],
        ['registry-writes/alpha/interactive', backstop],
        ['registry-reads/beta', REGISTRY_READS_PER_SECOND],
        ['registry-writes/beta', backstop],
        ['registry-writes/beta/interactive', backstop],
      ]);
      // Interactive writes (an operator's, or woken by a webhook) have slots of their own.
      for (const w of workers.workers.filter((w) => w.options.taskQueue.startsWith('registry-writes/')))
        expect(w.options.tuner.activityTaskSlotSupplier).toMatchObject({
          type: 'fixed-size',
          numSlots: w.options.taskQueue.endsWith('/interactive')
            ? INTERACTIVE_WRITE_ACTIVITIES_PER_ACCOUNT
            : WRITE_ACTIVITIES_PER_ACCOUNT,
        });
      // Every write slot of an account has a connection of its own: no write waits for one.
      expect(WRITE_ACTIVITIES_PER_ACCOUNT + INTERACTIVE_WRITE_ACTIVITIES_PER_ACCOUNT).toBeLessThanOrEqual(
        WRITE_CONNECTIONS,
      );
      // Each account's write budget is up before its first write.
      for (const name of ['alpha', 'beta']) {
        const budget = await env.client.workflow.getHandle(writeBudgetWorkflowId(name)).describe();
        expect(budget.status.name).toBe('RUNNING');
      }
      // The spec: 20 GET per second, 20 writes per 10 seconds.
      expect(REGISTRY_READS_PER_SECOND).toBe(20);
      expect(REGISTRY_WRITES_PER_SECOND * 10).toBe(20);
    } finally {
      await workers.shutdown();
      await run;
    }
  });

  it('shuts down gracefully: every worker stops, the run promise resolves, a given connection stays open', async () => {
    const config = {
      temporal: { address: 'unused:7233', namespace: 'default' },
      accounts: [simulatorAccount(harness.sim, `grace-${randomUUID().slice(0, 6)}`)],
    };
    const bundle = await workflowBundle(workflowsPath);
    const first = await createWorkers(config, {
      connection: env.nativeConnection,
      workflowBundle: bundle,
      workflowTaskQueue: `tcr-workflows-${randomUUID()}`,
    });
    const run = first.run();
    expect(first.workers.map((w) => w.getState())).toEqual(Array(6).fill('RUNNING'));
    await first.shutdown();
    await run;
    expect(first.workers.map((w) => w.getState())).toEqual(Array(6).fill('STOPPED'));
    await first.shutdown(); // idempotent
    // The connection was given, not owned: still usable by new workers.
    const second = await createWorkers(config, { connection: env.nativeConnection, workflowBundle: bundle });
    const secondRun = second.run();
    await second.shutdown();
    await secondRun;
  });

  it('shuts down gracefully with a registry create in flight: the call finishes and its result is recorded', async () => {
    // The create is held 1.5 s at the simulator.
    await harness.control.addFault({
      kind: 'latency',
      method: 'POST',
      pathPattern: '^/v2/brand/nonBlocking$',
      latencyMs: 1_500,
      count: 1,
    });
    const { proxy, account, workflowTaskQueue, workers, run } = await workersBehindProxy('inflight');
    const { handle } = await startBrandOrder(
      env.client,
      { reference: `inflight-${randomUUID().slice(0, 8)}`, account, brand: brandRegistration() },
      { taskQueue: workflowTaskQueue },
    );
    try {
      while (!proxy.inFlight().some(isBrandCreate)) await new Promise((r) => setTimeout(r, 10));
      const shutdownAt = Date.now();
      await workers.shutdown();
      await run;
      // Answered after the shutdown began, and the answer reached the worker (its caller was still there).
      const creates = proxy.calls.filter(isBrandCreate);
      expect(creates.map((c) => c.endMs >= shutdownAt)).toEqual([true]);
      expect(
        creates.map((c) => ({ ok: c.status >= 200 && c.status < 300, callerGone: c.callerGone })),
      ).toEqual([{ ok: true, callerGone: false }]);
      // The activity's result is in the workflow's history: completed, not failed, cancelled or timed out.
      const events = (await handle.fetchHistory()).events ?? [];
      expect(activityOutcomes(events, 'registerBrand')).toEqual(['completed']);
    } finally {
      await handle.terminate().catch(() => undefined);
      await proxy.close();
    }
  });

  it('shuts down with a write about to reserve its instant: the budget still answers, the write is sent once', async () => {
    // The create's look-up by referenceId (inside the write activity, before its permit) is held
    // 1.5 s at the simulator, and the shutdown begins meanwhile. The activity then reserves its instant from the
    // account's budget workflow: the workflow workers must still be running to answer it (they used
    // to stop with the activity workers, and the reservation waited forever).
    const { proxy, account, workflowTaskQueue, workers, run } = await workersBehindProxy('reserve');
    const reference = `reserve-${randomUUID().slice(0, 8)}`;
    await harness.control.addFault(HOLD_NEXT_BRAND_LOOKUP);
    const { handle } = await startBrandOrder(
      env.client,
      { reference, account, brand: brandRegistration() },
      { taskQueue: workflowTaskQueue },
    );
    try {
      while (!proxy.inFlight().some(isBrandLookupFor(reference))) await new Promise((r) => setTimeout(r, 10));
      await harness.control.clearFaults();
      await workers.shutdown();
      await run;
      // The create went out once, after the shutdown began, and its answer reached the worker.
      expect(
        proxy.calls.filter(isBrandCreate).map((c) => ({ status: c.status, callerGone: c.callerGone })),
      ).toEqual([{ status: 200, callerGone: false }]);
      const events = (await handle.fetchHistory()).events ?? [];
      expect(activityOutcomes(events, 'registerBrand')).toEqual(['completed']);
      expect(events.filter((e) => e.activityTaskFailedEventAttributes)).toEqual([]);
    } finally {
      await harness.control.clearFaults();
      await handle.terminate().catch(() => undefined);
      await proxy.close();
    }
  });

  it('releases workers that were created but never run, so the same queues can be served again', async () => {
    const config = {
      temporal: { address: 'unused:7233', namespace: 'default' },
      accounts: [simulatorAccount(harness.sim, `idle-${randomUUID().slice(0, 6)}`)],
    };
    const bundle = await workflowBundle(workflowsPath);
    const workflowTaskQueue = `tcr-workflows-${randomUUID()}`;
    const options = { connection: env.nativeConnection, workflowBundle: bundle, workflowTaskQueue };
    const idle = await createWorkers(config, options);
    await Promise.all([idle.shutdown(), idle.shutdown()]);
    expect(idle.workers.map((w) => w.getState())).toEqual(Array(6).fill('STOPPED'));
    const again = await createWorkers(config, options);
    const run = again.run();
    await again.shutdown();
    await run;
  });

  it('a namespace without the search attributes stops the start, naming each and the command that adds it', async () => {
    // A dev server started without the project's attributes, as a cluster set up by hand may be.
    const bare = await TestWorkflowEnvironment.createLocal({
      server: { executable: { type: 'existing-path', path: temporalCliPath() }, ip: '127.0.0.1' },
    });
    try {
      const config = {
        temporal: { address: 'unused:7233', namespace: 'default' },
        accounts: [simulatorAccount(harness.sim, 'alpha')],
      };
      const start = createWorkers(config, { connection: bare.nativeConnection });
      await expect(start).rejects.toThrow(
        /namespace 'default' lacks the search attributes TcrBrandId, .*TcrFingerprint, TcrNeedsActionSince: add them with 'temporal operator search-attribute create --namespace default --name TcrBrandId --type Keyword'.*--name TcrNeedsActionSince --type Datetime'/,
      );
    } finally {
      await bare.teardown();
    }
  });

  it('a stop before the start rejects with WorkersStartAborted and makes nothing', async () => {
    const controller = new AbortController();
    controller.abort();
    const config = {
      temporal: { address: 'unused:7233', namespace: 'default' },
      accounts: [simulatorAccount(harness.sim, 'alpha')],
    };
    await expect(
      createWorkers(config, { connection: env.nativeConnection, signal: controller.signal }),
    ).rejects.toBeInstanceOf(WorkersStartAborted);
  });
});
