import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PhaseKey } from '../src/workflows/search-attributes.js';
import { attributeSetter, phaseQuery, sleeper, wake } from './fixtures/harness-workflows.js';
import { devServerEnv, timeSkippingEnv, workflowBundle } from './support/temporal-env.js';

const workflowsPath = fileURLToPath(new URL('./fixtures/harness-workflows.ts', import.meta.url));

describe('time-skipping test server (Java, built by setup)', () => {
  let env: TestWorkflowEnvironment;
  beforeAll(async () => {
    env = await timeSkippingEnv();
  });
  afterAll(async () => {
    await env?.teardown();
  });

  it('runs a workflow and skips 48 hours of workflow time', async () => {
    const taskQueue = `harness-${randomUUID()}`;
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue,
      workflowBundle: await workflowBundle(workflowsPath),
    });
    const started = performance.now();
    const slept = await worker.runUntil(
      env.client.workflow.execute(sleeper, { taskQueue, workflowId: randomUUID(), args: [48] }),
    );
    const wallMs = performance.now() - started;
    expect(slept).toBeGreaterThanOrEqual(48 * 3600_000);
    // Behaviour, not speed: 48 hours passed in workflow time within a test's lifetime. (Measured: under
    // 1 s on a quiet 2-core machine, 1.4 s under load; speed belongs in bench/, not in tests.)
    expect(wallMs).toBeLessThan(60_000);
  });
});

describe('dev server (Temporal CLI, built by setup)', () => {
  let env: TestWorkflowEnvironment;
  beforeAll(async () => {
    env = await devServerEnv();
  });
  afterAll(async () => {
    await env?.teardown();
  });

  it("has the project's search attributes registered and finds a workflow by them", async () => {
    const taskQueue = `harness-${randomUUID()}`;
    const phase = `phase-${randomUUID()}`;
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue,
      workflowBundle: await workflowBundle(workflowsPath),
    });
    await worker.runUntil(async () => {
      const handle = await env.client.workflow.start(attributeSetter, {
        taskQueue,
        workflowId: randomUUID(),
        args: [phase],
      });
      expect(await handle.query(phaseQuery)).toBe(phase);
      // Visibility is eventually consistent: poll until the list query sees the attribute.
      let found: string[] = [];
      for (let attempt = 0; attempt < 250 && found.length === 0; attempt++) {
        found = [];
        for await (const wf of env.client.workflow.list({ query: `${PhaseKey.name} = "${phase}"` })) {
          found.push(wf.workflowId);
        }
        if (found.length === 0) await new Promise((r) => setTimeout(r, 100));
      }
      expect(found).toEqual([handle.workflowId]);
      await handle.signal(wake);
      expect(await handle.result()).toBe('woken');
    });
  });
});
