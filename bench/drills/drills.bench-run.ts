/**
 * The fault drills at bench size, each with its figures (the small versions run in npm test:
 * test/drills). One at a time with -t:
 *   npx vitest run --config bench/vitest.config.ts bench/drills -t kill       # (a) worker SIGKILL ×3
 *   npx vitest run --config bench/vitest.config.ts bench/drills -t outage     # (b) Temporal down 30 s
 *   npx vitest run --config bench/vitest.config.ts bench/drills -t drop       # (c) 20% webhooks dropped
 *   npx vitest run --config bench/vitest.config.ts bench/drills -t duplicate  # (d) every webhook ×3
 *   npx vitest run --config bench/vitest.config.ts bench/drills -t commit     # (e) 5xx / timeout after commit
 * DRILL_N sets the number of brand (and campaign) orders. Figures: stdout and bench/drills/results-*.json.
 * Needs `npm run build` for (a) (the worker runs as `node dist/cli/main.js worker`).
 */
import { cpus, loadavg } from 'node:os';
import { expect, it } from 'vitest';
import {
  commitFaultDrill,
  duplicateDrill,
  temporalOutageDrill,
  webhookDropDrill,
  workerKillDrill,
} from '../support/drills.js';
import { writeResults } from '../support/results.js';
import { round } from '../support/stats.js';

const N = Number(process.env.DRILL_N ?? 20);

function save(name: string, figures: unknown): void {
  const machine = { cpus: cpus().length, model: cpus()[0]?.model, loadavg: loadavg().map((l) => round(l)) };
  const out = { drill: name, n: N, when: new Date().toISOString(), machine, figures };
  console.log(name, JSON.stringify(out, null, 2));
  writeResults(new URL(`./results-${name}.json`, import.meta.url), out);
}

it('kill: the worker process SIGKILLed 3 times during a bulk run', async () => {
  const figures = await workerKillDrill({
    n: N,
    kills: 3,
    everyMs: 8_000,
    timeoutMs: 240_000,
    idleWindowFirst: true,
  });
  save('kill', figures);
  expect(figures.notCompleted).toEqual([]);
  expect(figures.rateLimited).toBe(0);
  expect(figures.registryAnomalies).toEqual([]);
  expect(figures.fees).toBe(N);
});

it('outage: the Temporal server down for 30 s while webhooks arrive', async () => {
  const n = Math.min(N, 10);
  const figures = await temporalOutageDrill({ n, outageSeconds: 30, timeScale: 60, timeoutMs: 180_000 });
  save('outage', figures);
  expect(figures.readyByWebhook).toBe(n);
  expect(figures.discarded).toBe(0);
});

it('drop: 20% of webhooks dropped, product default polls', async () => {
  const figures = await webhookDropDrill({ n: N, share: 0.2, timeoutMs: 270_000, idleWindowFirst: true });
  save('drop', figures);
  expect(figures.notCompleted).toEqual([]);
  expect(figures.rateLimited).toBe(0);
  expect(figures.registryAnomalies).toEqual([]);
});

it('duplicate: every webhook delivered three times', async () => {
  const figures = await duplicateDrill({ n: N, timeoutMs: 240_000, idleWindowFirst: true });
  save('duplicate', figures);
  expect(figures.notCompleted).toEqual([]);
  expect(figures.rateLimited).toBe(0);
  expect(figures.registryAnomalies).toEqual([]);
  expect(figures.repeatedTransitions).toEqual([]);
});

it('commit: error-after-commit, then timeout-after-commit, on every billable call', async () => {
  const n = Math.min(N, 10);
  const error = await commitFaultDrill({
    n,
    kind: 'error-after-commit',
    timeoutMs: 120_000,
    idleWindowFirst: true,
  });
  const timeout = await commitFaultDrill({
    n,
    kind: 'timeout-after-commit',
    timeoutMs: 120_000,
    idleWindowFirst: true,
  });
  save('commit', { error, timeout });
  for (const f of [error, timeout]) {
    expect(f.notCompleted).toEqual([]);
    expect(f.registryAnomalies).toEqual([]);
    expect(f.fees).toBe(n);
    expect(f.rateLimited).toBe(0);
  }
});
