/**
 * Registry fault drill on the running local stack (what `npm start` / `tcr dev` starts: dev server,
 * simulator, worker, ingress, codec server, the bundled examples), with FAULT_DRILL_N (default 20) more
 * brand + campaign orders. While they run, every registry path (`^/v2/`) answers 404 for 40 s, then 401
 * for 40 s, then 500 for 40 s, through the simulator's fault API; then the registry heals.
 *
 *   npx vitest run --config bench/vitest.config.ts bench/drills/registry-faults.bench-run.ts
 *
 * Expected: 0 workflows Failed; workflows hit by the faults show needs-action `registry-error` while
 * they last; every order reaches its phase (brand ready, campaign running) afterwards; one brand, one
 * campaign and one fee per order; every registry-error clears once the workflows' fault backoff
 * (1 minute doubling) lets them try again. Figures: stdout and bench/drills/results-registry-faults.json.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import { expect, it } from 'vitest';
import { type LocalStack, startLocalStack } from '../../src/stack/index.js';
import { FAULT_BACKOFF, REGISTRY_ERROR_KEY } from '../../src/workflows/entity/registry-call.js';
import { backoffDelay } from '../../src/workflows/entity/wait.js';
import { registryCensus, startBulk, waitForBulk } from '../support/bulk.js';
import { writeResults } from '../support/results.js';
import { round, sleep } from '../support/stats.js';

const N = Number(process.env.FAULT_DRILL_N ?? 20);
const WINDOW_MS = 40_000;
const STATUSES = [404, 401, 500] as const;

async function count(client: Client, query: string): Promise<number> {
  return (await client.workflow.count(query)).count;
}

/**
 * Running workflows that need action, with their needs-action keys: brands and campaigns answer the
 * `status` query, vets (which raise registry-error too) `vetView`.
 */
async function needsActionLeft(client: Client): Promise<string[]> {
  const left: string[] = [];
  for await (const w of client.workflow.list({
    query: 'TcrNeedsAction = true AND ExecutionStatus = "Running"',
  })) {
    const query = w.type === 'vetWorkflow' ? 'vetView' : 'status';
    const status = (await client.workflow.getHandle(w.workflowId).query(query)) as {
      needsAction: { key: string }[];
    };
    left.push(`${w.workflowId}: ${status.needsAction.map((a) => a.key).join(', ')}`);
  }
  return left.sort();
}

it('registry faults: 404, 401 and 500 on every path for two minutes, examples and more orders running', {
  timeout: 1_200_000,
}, async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tcr-fault-drill-'));
  let stack: LocalStack | undefined;
  try {
    stack = await startLocalStack({
      dataDir,
      temporalPort: 0,
      uiPort: 0,
      codecPort: 0,
      simulatorPort: 0,
      ingressPort: 0,
      progress: false,
      log: () => undefined,
    });
    const { client, control } = stack;
    const run = await startBulk(client, {
      n: N,
      prefix: `faults-${Date.now().toString(36)}`,
      brandPoll: { initialMs: 5_000, maxMs: 30_000 },
    });
    await sleep(5_000); // orders and examples in flight

    const samples: { status: number; atMs: number; needsAction: number; failed: number }[] = [];
    const faultStart = Date.now();
    let answered = 0;
    for (const status of STATUSES) {
      await control.clearFaults();
      await control.addFault({ kind: 'error-before-commit', pathPattern: '^/v2/', status, count: 1_000_000 });
      const windowEnd = Date.now() + WINDOW_MS;
      while (Date.now() < windowEnd) {
        await sleep(5_000);
        samples.push({
          status,
          atMs: Date.now() - faultStart,
          needsAction: await count(client, 'TcrNeedsAction = true AND ExecutionStatus = "Running"'),
          failed: await count(client, 'ExecutionStatus = "Failed"'),
        });
      }
      answered += 1_000_000 - ((await control.faults())[0]?.remaining ?? 1_000_000);
    }
    await control.clearFaults();
    const healedAt = Date.now();

    const result = await waitForBulk(client, run, 900_000);
    const recoveryMs = Date.now() - healedAt;
    // A workflow whose calls kept failing waits out its fault backoff (1 min doubling) before it
    // tries again, so its registry-error clears only then: wait for that, bounded by the third step
    // of the backoff (no workflow can fault more often than that within the fault windows) and a
    // minute's margin, and report how long it took.
    const clearBy = healedAt + backoffDelay(FAULT_BACKOFF, 2) + 60_000;
    let faultsLeft = await needsActionLeft(client);
    while (faultsLeft.some((e) => e.includes(REGISTRY_ERROR_KEY)) && Date.now() < clearBy) {
      await sleep(5_000);
      faultsLeft = await needsActionLeft(client);
    }
    const registryErrorsClearedMs = Date.now() - healedAt;
    // Once everything settled, nothing should still show the fault.
    await sleep(10_000);
    const census = await registryCensus(stack.urls.simulatorControl.replace(/\/control$/, ''), control, run);
    const figures = {
      orders: { brands: N, campaigns: N, examples: stack.examples?.submitted.length ?? 0 },
      faultWindowsMs: WINDOW_MS,
      registryAnswersFaulted: answered,
      failedWorkflows: await count(client, 'ExecutionStatus = "Failed"'),
      workflowsTotal: await count(client, ''),
      maxNeedsActionDuringFaults: Math.max(...samples.map((s) => s.needsAction)),
      needsActionBySample: samples.map((s) => `${s.status}@${round(s.atMs / 1000)}s:${s.needsAction}`),
      needsActionLeft: await needsActionLeft(client),
      notDone: result.pending.map((t) => `${t.reference}: ${t.phase ?? '?'}`),
      recoverySeconds: round(recoveryMs / 1000),
      registryErrorsClearedSeconds: round(registryErrorsClearedMs / 1000),
      registryAnomalies: census.anomalies,
    };
    const out = { drill: 'registry-faults', n: N, when: new Date().toISOString(), figures };
    console.log('registry-faults', JSON.stringify(out, null, 2));
    writeResults(new URL('./results-registry-faults.json', import.meta.url), out);

    expect(figures.failedWorkflows).toBe(0);
    expect(figures.maxNeedsActionDuringFaults).toBeGreaterThan(0);
    expect(figures.notDone).toEqual([]);
    // What still needs action is the examples' own business (a correction, a fee approval, a
    // declined share), never a registry fault.
    expect(figures.needsActionLeft.filter((e) => e.includes(REGISTRY_ERROR_KEY))).toEqual([]);
    expect(figures.registryAnomalies).toEqual([]);
  } finally {
    await stack?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
