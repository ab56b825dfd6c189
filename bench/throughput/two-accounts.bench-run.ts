/**
 * Two accounts in one worker process (issue 18's third target): BENCH_N (default 200) brand orders on
 * each account at the same time, against the simulator enforcing the spec's limits per account (20
 * writes in any 10 s). Each account's registrations are counted on its own proxy.
 *
 * The figure per account: its write rate against its own limit, as the registry sees it. A sliding
 * window of 20 per 10 s lets N writes go in ceil(N / 20) bursts a window apart, so the fastest N writes
 * can take, from the first to the last, is (ceil(N / 20) − 1) × 10 s; the share is that over what they
 * took. Both accounts at once, in one process, each near 100 % means neither slows the other.
 *
 *   BENCH_N=200 npx vitest run --config bench/vitest.config.ts bench/throughput/two-accounts.bench-run.ts
 * Results: stdout and bench/throughput/results-two-accounts.<time>.json.
 *
 * The simulator, both proxies and the worker share this process: a stall of its event loop delays a
 * write's arrival at the simulator after the worker sent it on time. So the run records the loop's
 * delay (max, p99) and, for each write answered 429, how many writes the proxy had forwarded in the
 * 10 s before it: 20 or more means the worker sent too many; fewer means the window moved on the
 * way to the simulator.
 */

import { cpus, loadavg } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { startBrandOrder } from '../../src/orders/brand-client.js';
import { type SimulatorAccount, startSimulator } from '../../src/simulator/index.js';
import { createWorkers } from '../../src/workers/create-workers.js';
import { devServerEnv, workflowBundle } from '../../test/support/temporal-env.js';
import { isWrite, startCountingProxy } from '../support/counting-proxy.js';
import { brandOrder } from '../support/orders.js';
import { writeResults } from '../support/results.js';
import { round, sleep } from '../support/stats.js';

const N = Number(process.env.BENCH_N ?? 200);
const LIMIT = 20;
const WINDOW_MS = 10_000;
const workflowsPath = fileURLToPath(new URL('../../src/workflows/index.ts', import.meta.url));

const simAccounts: Record<string, SimulatorAccount> = {
  east: { cspId: 'CSPEAST', apiKey: 'east-key', apiSecret: 'east-secret' },
  west: { cspId: 'CSPWEST', apiKey: 'west-key', apiSecret: 'west-secret' },
};

/** The largest number of accepted writes whose arrivals fit in one window. */
function maxInAnyWindow(times: number[]): number {
  let best = 0;
  for (let i = 0, j = 0; i < times.length; i++) {
    while (times[i]! - times[j]! >= WINDOW_MS) j++;
    best = Math.max(best, i - j + 1);
  }
  return best;
}

it(`two accounts × ${N} brand orders in one worker process, each at its own limit`, async () => {
  const loadAtStart = loadavg().map((l) => round(l));
  const env = await devServerEnv();
  const sim = await startSimulator({ accounts: Object.values(simAccounts), timeScale: 3600 });
  const proxies = {
    east: await startCountingProxy(sim.url),
    west: await startCountingProxy(sim.url),
  };
  const workers = await createWorkers(
    {
      temporal: { address: env.address, namespace: 'default' },
      accounts: Object.entries(simAccounts).map(([name, a]) => ({
        name,
        environment: 'local' as const,
        baseUrl: proxies[name as keyof typeof proxies].url,
        apiKey: a.apiKey,
        apiSecret: a.apiSecret,
        cspId: a.cspId,
      })),
    },
    { connection: env.nativeConnection, workflowBundle: await workflowBundle(workflowsPath) },
  );
  const running = workers.run();
  const loopDelay = monitorEventLoopDelay({ resolution: 10 });
  loopDelay.enable();
  try {
    const run = Date.now().toString(36);
    const startedAt = Date.now();
    await Promise.all(
      (['east', 'west'] as const).map(async (account) => {
        for (let i = 0; i < N; i += 25)
          await Promise.all(
            Array.from({ length: Math.min(25, N - i) }, (_, k) =>
              startBrandOrder(env.client, { ...brandOrder(`${account}-${run}-${i + k}`), account }),
            ),
          );
      }),
    );
    const registered = (account: keyof typeof proxies) =>
      proxies[account].calls
        .filter(
          (c) =>
            c.method === 'POST' && c.path === '/v2/brand/nonBlocking' && c.status >= 200 && c.status < 300,
        )
        .map((c) => c.startMs)
        .sort((a, b) => a - b);
    const deadline = Date.now() + (N / 2) * 1000 * 2 + 120_000;
    while ((registered('east').length < N || registered('west').length < N) && Date.now() < deadline)
      await sleep(1_000);

    const perAccount = Object.fromEntries(
      (['east', 'west'] as const).map((account) => {
        const times = registered(account);
        const spanMs = times.length > 1 ? times[times.length - 1]! - times[0]! : 0;
        const fastestMs = (Math.ceil(times.length / LIMIT) - 1) * WINDOW_MS;
        const writes = proxies[account].calls.filter(isWrite);
        return [
          account,
          {
            registered: times.length,
            firstWriteAfterStartS: round((times[0]! - startedAt) / 1000, 1),
            firstToLastS: round(spanMs / 1000, 1),
            fastestPossibleS: fastestMs / 1000,
            shareOfLimit: round(fastestMs / Math.max(1, spanMs), 3),
            writesPerSecond: round((times.length - LIMIT) / Math.max(0.001, spanMs / 1000), 3),
            maxInAnyWindow: maxInAnyWindow(times),
            rateLimited: writes.filter((c) => c.status === 429).length,
            // Per 429: the writes the proxy received in the 10 s before it (the 429 itself excluded).
            writesBeforeEach429: writes
              .filter((c) => c.status === 429)
              .map(
                (c) =>
                  writes.filter((w) => w.startMs > c.startMs - WINDOW_MS && w.startMs < c.startMs).length,
              ),
          },
        ];
      }),
    );
    const first = (account: keyof typeof proxies) => registered(account)[0] ?? 0;
    const results = {
      when: new Date().toISOString(),
      machine: { cpus: cpus().length, model: cpus()[0]?.model, loadavgAtStart: loadAtStart },
      ordersPerAccount: N,
      accounts: perAccount,
      firstWritesApartS: round(Math.abs(first('east') - first('west')) / 1000, 2),
      benchProcessEventLoopDelayMs: {
        max: round(loopDelay.max / 1e6),
        p99: round(loopDelay.percentile(99) / 1e6),
      },
    };
    console.log(JSON.stringify(results, null, 2));
    writeResults(new URL('./results-two-accounts.json', import.meta.url), results);
    for (const account of ['east', 'west']) {
      const a = perAccount[account]!;
      expect(a.registered).toBe(N);
      expect(a.rateLimited).toBe(0);
      expect(a.maxInAnyWindow).toBeLessThanOrEqual(LIMIT);
    }
  } finally {
    await workers.shutdown();
    await running.catch(() => undefined);
    for (const proxy of Object.values(proxies)) await proxy.close();
    await sim.close();
    await env.teardown();
  }
});
