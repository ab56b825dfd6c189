/**
 * Fault drill (a), small: the worker process (`node dist/cli/main.js worker`) is SIGKILLed twice
 * during a bulk run and restarted; every order completes and the registry holds exactly one brand,
 * one campaign and one fee per order. It runs the build in dist/, which `npm test` makes first
 * (pretest); run `npm run build` before running this file alone. Larger: bench/drills.
 */
import { expect, it } from 'vitest';
import { workerKillDrill } from '../../bench/support/drills.js';

it('SIGKILLed worker: every order completes, one entity and one fee each', async () => {
  const n = 4;
  // A registry call in flight when its worker is killed stops heartbeating and is retried after the
  // 10 s heartbeat timeout (+ 1 s backoff), a workflow task after the default 10 s task timeout. The run takes
  // ~20 s here (33 s on a loaded box, docs/benchmarks.md); 90 s leaves room for both kills' recovery
  // and slow worker restarts (up to 15 s each when bundling on a busy machine).
  const figures = await workerKillDrill({ n, kills: 2, everyMs: 3_000, timeoutMs: 90_000 });
  expect(figures.notCompleted).toEqual([]);
  expect(figures.completed).toBe(2 * n);
  expect(figures.registryAnomalies).toEqual([]);
  expect(figures.fees).toBe(n);
  expect(figures.kills).toBe(2);
}, 150_000);
