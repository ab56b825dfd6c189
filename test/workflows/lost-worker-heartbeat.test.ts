/**
 * A registry write whose worker is lost is retried after the heartbeat timeout, not after the
 * start-to-close timeout. The "lost" worker takes attempt 1 and neither heartbeats nor answers, which
 * is what the server sees when a worker process is SIGKILLed mid-call; it runs one activity at a time,
 * so it cannot take the retry. A second worker (own connection, the product's heartbeat wrapper) then
 * gets attempt 2. The workflows make the write through the product's stubs (heartbeat-workflows.ts).
 *
 * The Java test server does not skip time while an activity attempt is outstanding, so the 10 s
 * heartbeat timeout passes in real time (~11 s per case); a start-to-close retry would take the
 * writes' 2 minutes and fail the test's bounds.
 */
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Context, type Info } from '@temporalio/activity';
import type { WorkflowHandle } from '@temporalio/client';
import { decodeTimeoutType } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { NativeConnection, Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withHeartbeat } from '../../src/activities/heartbeat.js';
import { registryWritesTaskQueue } from '../../src/contracts/task-queues.js';
import { createCampaignOnce, registerBrandOnce } from '../fixtures/heartbeat-workflows.js';
import { brandRegistration } from '../fixtures/workflow-harness.js';
import { timeSkippingEnv, workflowBundle } from '../support/temporal-env.js';

const workflowsPath = fileURLToPath(new URL('../fixtures/heartbeat-workflows.ts', import.meta.url));

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await timeSkippingEnv();
});
afterAll(async () => {
  await env?.teardown();
});

/** Takes its attempt, reports it, then never heartbeats and never answers (until its worker shuts down). */
function lostAttempt(taken: (info: Info) => void) {
  return () => {
    const context = Context.current();
    taken(context.info);
    return new Promise<never>((_, reject) => {
      context.cancellationSignal.addEventListener('abort', () => reject(context.cancellationSignal.reason));
    });
  };
}

/** The pending activity once the server has scheduled its second attempt (real-time polling). */
async function waitForRetry(handle: WorkflowHandle, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { raw } = await handle.describe();
    const activity = raw.pendingActivities?.[0];
    if (activity && (activity.attempt ?? 0) >= 2) return activity;
    if (Date.now() > deadline) throw new Error(`no second attempt within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const cases = [
  {
    activity: 'registerBrand',
    startToCloseMs: 120_000,
    start: (taskQueue: string, account: string, ref: string) =>
      env.client.workflow.start(registerBrandOnce, {
        taskQueue,
        workflowId: `lost-worker/${ref}`,
        args: [
          account,
          { ...brandRegistration(), referenceId: ref } as Parameters<typeof registerBrandOnce>[1],
        ],
      }),
    answer: (ref: string) => ({ brandId: 'B000001', referenceId: ref }),
  },
  {
    activity: 'createCampaign',
    startToCloseMs: 120_000,
    start: (taskQueue: string, account: string, ref: string) =>
      env.client.workflow.start(createCampaignOnce, {
        taskQueue,
        workflowId: `lost-worker/${ref}`,
        args: [
          account,
          {
            referenceId: ref,
            brandId: 'B000001',
            usecase: 'MARKETING',
            description: 'Weekly offers',
          } as Parameters<typeof createCampaignOnce>[1],
        ],
      }),
    answer: () => ({ campaignId: 'C000001', mnoMetadata: {}, alreadyExisted: false }),
  },
] as const;

describe('a registry write whose worker is lost', () => {
  it.each(cases)(
    '$activity is retried on another worker after the 10 s heartbeat timeout, not its start-to-close',
    async ({ activity, startToCloseMs, start, answer }) => {
      const id = randomUUID().slice(0, 8);
      const account = `acct-${id}`;
      const ref = `ref-${id}`;
      const taskQueue = `lost-worker-${id}`;
      const connection = env.nativeConnection;
      const workers: Worker[] = [];
      const runs: Promise<void>[] = [];
      let healthyConnection: NativeConnection | undefined;
      const run = (w: Worker) => {
        workers.push(w);
        runs.push(w.run());
      };
      try {
        run(
          await Worker.create({ connection, taskQueue, workflowBundle: await workflowBundle(workflowsPath) }),
        );
        let first!: (info: Info) => void;
        const firstTaken = new Promise<Info>((resolve) => {
          first = resolve;
        });
        run(
          await Worker.create({
            connection,
            taskQueue: registryWritesTaskQueue(account),
            maxConcurrentActivityTaskExecutions: 1,
            activities: { [activity]: lostAttempt(first) },
          }),
        );
        const handle = await start(taskQueue, account, ref);
        expect((await firstTaken).attempt).toBe(1);

        // The server gives up on attempt 1 once its heartbeats have been missing for the heartbeat timeout.
        const pending = await waitForRetry(handle);
        expect(decodeTimeoutType(pending.lastFailure?.timeoutFailureInfo?.timeoutType)).toBe('HEARTBEAT');
        let retried: Info | undefined;
        // Another worker process: its own connection (one worker per task queue and connection).
        healthyConnection = await NativeConnection.connect({ address: env.address });
        run(
          await Worker.create({
            connection: healthyConnection,
            taskQueue: registryWritesTaskQueue(account),
            activities: withHeartbeat({
              [activity]: async () => {
                retried = Context.current().info;
                return answer(ref);
              },
            }),
          }),
        );
        // The client unlocks time skipping while it waits for the result.
        await handle.result();

        expect(retried?.attempt).toBe(2);
        expect(retried?.heartbeatTimeoutMs).toBe(10_000);
        expect(retried?.startToCloseTimeoutMs).toBe(startToCloseMs);
        // Workflow time from the first schedule to the retry: heartbeat timeout (10 s) + backoff (1 s).
        const retryAfterMs = retried!.currentAttemptScheduledTimestampMs - retried!.scheduledTimestampMs;
        expect(retryAfterMs).toBeGreaterThanOrEqual(10_000);
        expect(retryAfterMs).toBeLessThan(15_000);
      } finally {
        for (const w of workers) if (w.getState() === 'RUNNING') w.shutdown();
        await Promise.all(runs);
        await healthyConnection?.close();
      }
    },
  );
});
