/**
 * Fault drill (a), small: the worker process (`node dist/cli/main.js worker`) is SIGKILLed twice
 * during a bulk run, each time while a registry create is in flight (a brand's, then any; held at the
 * simulator, which commits it after the kill), and restarted; every order completes and the registry
 * holds exactly one brand, one campaign and one fee per order. It runs the build in dist/, which `npm test` makes first
 * (pretest); run `npm run build` before running this file alone. Larger: bench/drills.
 */
import { expect, it } from 'vitest';
import { workerKillDrill } from '../../bench/support/drills.js';

it('SIGKILLed worker: every order completes, one entity and one fee each', async () => {
  const n = 4;
  // A registry call in flight when its worker is killed stops heartbeating and is retried after the
  // 10 s heartbeat timeout (+ 1 s backoff), a workflow task after the default 10 s task timeout. The run
  // takes 30-45 s on 2 shared cores (each create is held 1.5 s); 90 s leaves room for both kills'
  // recovery and slow worker restarts (up to 15 s each when bundling on a busy machine).
  const figures = await workerKillDrill({ n, kills: 2, everyMs: 3_000, timeoutMs: 90_000 });
  expect(figures.notCompleted).toEqual([]);
  expect(figures.completed).toBe(2 * n);
  expect(figures.registryAnomalies).toEqual([]);
  expect(figures.fees).toBe(n);
  expect(figures.kills).toBe(2);
  // Each kill cut at least one create the registry committed (2xx) and whose answer the killed
  // worker never received; still exactly one accepted create per order.
  expect(figures.writesCutByKill).toHaveLength(2);
  for (const cut of figures.writesCutByKill)
    expect(cut.filter((c) => / 2\d\d$/.test(c)).length).toBeGreaterThan(0);
  expect(figures.brandCreates).toBe(n);
  expect(figures.campaignCreates).toBe(n);
}, 150_000);
