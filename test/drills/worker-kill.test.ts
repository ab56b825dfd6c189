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
  // A registry write in flight when its worker is killed is retried only when its start-to-close
  // timeout runs out (campaign writes: 2 minutes; no heartbeat): leave room for one such retry.
  const figures = await workerKillDrill({ n, kills: 2, everyMs: 3_000, timeoutMs: 200_000 });
  expect(figures.notCompleted).toEqual([]);
  expect(figures.completed).toBe(2 * n);
  expect(figures.registryAnomalies).toEqual([]);
  expect(figures.fees).toBe(n);
  expect(figures.kills).toBe(2);
}, 260_000);
