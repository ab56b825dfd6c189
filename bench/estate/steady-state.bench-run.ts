/**
 * The estate at scale (issue 19, item 6): one account, one worker process with a bounded workflow
 * cache, the simulator seeded with an existing estate that no workflow owns. Measures:
 *
 * - the import (`startImport`): its duration, registry reads and writes (must be 0), and the time
 *   until the adopted workflows have done their first reads;
 * - one sweep of the whole estate: duration, list reads, its share of the read budget;
 * - a steady-state window after that: registry reads (sweep and polls), workflow and activity tasks
 *   per second (the worker's Prometheus counters), worker RSS, the dev server's RSS and database size;
 * - wake latency of evicted workflows on a webhook (from the signal to the end of the workflow task
 *   it caused, read from their histories);
 * - the time until a change whose webhook was lost (the ingress down) is noticed by a sweep.
 *
 * Figures, not assertions on time (a wrong count still fails: writes, lost change never noticed).
 *   npm run build && nice -n 19 npx vitest run --config bench/estate/vitest.config.ts bench/estate/steady-state.bench-run.ts
 * With jemalloc, as the image runs the worker: prefix `LD_PRELOAD="$(scripts/setup-jemalloc.sh)"
 * MALLOC_CONF=background_thread:true,dirty_decay_ms:1000,muzzy_decay_ms:0` (recorded as `allocator`).
 * ESTATE_BRANDS (default 2,000), ESTATE_CAMPAIGNS (8,000), ESTATE_CACHE (2,000 cached workflows),
 * ESTATE_WINDOW_MS (steady-state window, 180,000), ESTATE_WAKES (40), ESTATE_WORKER_NODE_ARGS (the
 * worker process's Node options, e.g. `--max-old-space-size=1024`; none by default). Results:
 * bench/estate/results-steady.<time>.json.
 */
import { readFileSync, statSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { optionalTsToMs } from '@temporalio/common/lib/time.js';
import { expect, it } from 'vitest';
import type { CampaignStatus } from '../../src/contracts/campaign.js';
import { adoptedReference } from '../../src/contracts/estate.js';
import { campaignWorkflowId } from '../../src/contracts/ids.js';
import { startImport } from '../../src/orders/estate-client.js';
import { DEFAULT_ACCOUNT } from '../../src/simulator/index.js';
import { freePort } from '../../src/stack/ports.js';
import { describeSweep, ensureSweepSchedule, sweepNow } from '../../src/workers/sweep-schedule.js';
import { allocatorInUse } from '../support/allocator.js';
import { ACCOUNT, startBenchStack } from '../support/bench-stack.js';
import { isListRead, isWrite } from '../support/counting-proxy.js';
import { counterSum as counter } from '../support/prometheus.js';
import { writeResults } from '../support/results.js';
import { percentile, round, sleep, until } from '../support/stats.js';

const BRANDS = Number(process.env.ESTATE_BRANDS ?? 2_000);
const CAMPAIGNS = Number(process.env.ESTATE_CAMPAIGNS ?? 8_000);
const CACHE = Number(process.env.ESTATE_CACHE ?? 2_000);
const WINDOW_MS = Number(process.env.ESTATE_WINDOW_MS ?? 180_000);
const WAKES = Number(process.env.ESTATE_WAKES ?? 40);
/** Node options of the worker process, e.g. `--max-old-space-size=1024` (space-separated). */
const WORKER_NODE_ARGS = (process.env.ESTATE_WORKER_NODE_ARGS ?? '').split(' ').filter(Boolean);
const READS_PER_SECOND = 20;

const mb = (bytes: number) => round(bytes / 1_048_576, 1);
function rssOf(pid: number | undefined): number | undefined {
  if (!pid) return undefined;
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'));
  return line ? Number(line.replace(/\D+/g, '')) * 1024 : undefined;
}
it(`estate of ${BRANDS} brands and ${CAMPAIGNS} campaigns: import, sweep, steady state, wakes`, async () => {
  // Read before anything starts (the runs before 2026-11-27T15:08 recorded it when they wrote their results).
  const loadAverageAtStart = loadavg()[0];
  const stack = await startBenchStack({ workers: 'process', timeScale: 1 });
  try {
    const metricsPort = await freePort();
    const metrics = `http://127.0.0.1:${metricsPort}/metrics`;
    const worker = stack.startWorkerProcess({
      nodeArgs: WORKER_NODE_ARGS,
      env: {
        TCR_WORKER_MAX_CACHED_WORKFLOWS: String(CACHE),
        TCR_WORKER_METRICS_ADDRESS: `127.0.0.1:${metricsPort}`,
      },
    });
    await worker.ready;
    const rssAtStart = rssOf(worker.pid);
    const seedStarted = Date.now();
    const seeded = await stack.control.seed({ brands: BRANDS, campaigns: CAMPAIGNS, seed: 19 });
    const seedMs = Date.now() - seedStarted;
    const authorization = `Basic ${Buffer.from(`${DEFAULT_ACCOUNT.apiKey}:${DEFAULT_ACCOUNT.apiSecret}`).toString('base64')}`;
    const apiGet = async <T>(path: string): Promise<T> =>
      (await (await fetch(`${stack.sim.apiBaseUrl}${path}`, { headers: { authorization } })).json()) as T;
    const { totalRecords: expiredCampaigns } = await apiGet<{ totalRecords: number }>(
      '/campaign?status=EXPIRED&page=1&recordsPerPage=1',
    );

    // Import.
    const importCalls = stack.proxy.calls.length;
    const importStarted = Date.now();
    const { handle } = await startImport(stack.client, { account: ACCOUNT });
    const imported = await handle.result();
    const importMs = Date.now() - importStarted;
    // Each adopted campaign that has not expired reads its share once: settled when every one has.
    const open = CAMPAIGNS - expiredCampaigns;
    await until(
      'every adopted campaign read its share',
      async () => {
        const read = new Set(
          stack.proxy.calls
            .slice(importCalls)
            .filter((c) => c.path.endsWith('/sharing'))
            .map((c) => c.path),
        );
        return read.size >= open ? true : undefined;
      },
      // The shares are read at most at the account's 20 reads a second: allow 5 a second, at least 1 h.
      Math.max(3_600_000, open * 200),
      1_000,
    );
    const settleMs = Date.now() - importStarted;
    const duringImport = stack.proxy.calls.slice(importCalls);
    const importResult = {
      ms: importMs,
      settledMs: settleMs,
      adopted: imported.counts.brand.adopted + imported.counts.campaign.adopted,
      listReads: duringImport.filter(isListRead).length,
      otherReads: duringImport.filter((c) => !isWrite(c) && !isListRead(c)).length,
      writes: duringImport.filter(isWrite).length,
      status429: duringImport.filter((c) => c.status === 429).length,
      workerRssMb: mb(rssOf(worker.pid) ?? 0),
    };
    console.info('import', importResult);
    expect(importResult.writes).toBe(0);
    expect(importResult.adopted).toBe(BRANDS + CAMPAIGNS);

    // One sweep of the whole estate, at the default share.
    await ensureSweepSchedule(stack.client, { account: ACCOUNT, every: '24h' });
    const sweepCalls = stack.proxy.calls.length;
    const sweepStarted = Date.now();
    await sweepNow(stack.client, ACCOUNT);
    const swept = await until(
      'the sweep done',
      async () => {
        const overview = await describeSweep(stack.client, ACCOUNT).catch(() => undefined);
        return overview?.sweep?.state === 'done' &&
          Date.parse(overview.sweep.startedAt) >= sweepStarted - 5_000
          ? overview.sweep
          : undefined;
      },
      3_600_000,
      1_000,
    );
    const sweepMs = Date.now() - sweepStarted;
    const sweepReads = stack.proxy.calls.slice(sweepCalls).filter(isListRead);
    const sweepSpanS = (sweepReads.at(-1)!.startMs - sweepReads[0]!.startMs) / 1000;
    const sweepResult = {
      ms: sweepMs,
      pages: swept.counts.pages,
      records: swept.counts.records,
      changed: swept.counts.changed,
      unowned: swept.counts.unowned,
      listReads: sweepReads.length,
      readShareOfBudget: round(sweepReads.length / Math.max(1, sweepSpanS) / READS_PER_SECOND, 3),
    };
    console.info('sweep', sweepResult);

    // Steady state.
    const steadyCalls = stack.proxy.calls.length;
    const wftBefore = await counter(metrics, 'temporal_workflow_task_execution_latency_count');
    const actBefore = await counter(metrics, 'temporal_activity_execution_latency_count');
    await sleep(WINDOW_MS);
    const wftAfter = await counter(metrics, 'temporal_workflow_task_execution_latency_count');
    const actAfter = await counter(metrics, 'temporal_activity_execution_latency_count');
    const steady = stack.proxy.calls.slice(steadyCalls);
    const seconds = WINDOW_MS / 1000;
    const pollReadsPerHour = (steady.filter((c) => !isListRead(c)).length / seconds) * 3600;
    const steadyResult = {
      windowS: seconds,
      pollReadsPerHour: round(pollReadsPerHour, 0),
      sweepReadsPerHourAtHourly: sweepReads.length,
      readShareOfBudget: round((pollReadsPerHour / 3600 + sweepReads.length / 3600) / READS_PER_SECOND, 4),
      workflowTasksPerSecond: round((wftAfter - wftBefore) / seconds, 3),
      activityTasksPerSecond: round((actAfter - actBefore) / seconds, 3),
      workerRssMb: mb(rssOf(worker.pid) ?? 0),
      devServerRssMb: mb(rssOf(stack.devServerPid()) ?? 0),
      databaseMb: mb(statSync(join(stack.dataDir, 'temporal.sqlite')).size),
      /** The window's registry calls by endpoint (ids as :id) and answer, most frequent first. */
      byEndpoint: Object.entries(
        steady.reduce<Record<string, number>>((counts, c) => {
          const key = `${c.method} ${c.path.replace(/\/[BC][0-9A-Z]+/g, '/:id')} ${c.status}`;
          counts[key] = (counts[key] ?? 0) + 1;
          return counts;
        }, {}),
      )
        .sort((a, b) => b[1] - a[1])
        .slice(0, 8),
    };
    console.info('steady', steadyResult);

    // Wakes of evicted workflows: the first adopted campaigns (least recently used), a webhook each.
    const { records } = await apiGet<{
      records: { campaignId: string; referenceId: string | null; status: string }[];
    }>('/campaign?page=1&recordsPerPage=500');
    const active = records.filter((c) => c.status === 'ACTIVE').slice(0, WAKES);
    for (const c of active) {
      await stack.control.nudgeCampaign(c.campaignId, 'BENCH_WAKE', 'estate benchmark');
      await sleep(250);
    }
    await sleep(10_000);
    const wakeMs: number[] = [];
    for (const c of active) {
      const id = campaignWorkflowId(
        ACCOUNT,
        adoptedReference({ referenceId: c.referenceId, registryId: c.campaignId }),
      );
      const history = await stack.client.workflow.getHandle(id).fetchHistory();
      const events = history.events ?? [];
      const signalled = events.findLastIndex(
        (e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'registryEvent',
      );
      const done = events.slice(signalled).find((e) => e.workflowTaskCompletedEventAttributes);
      const at = (e: (typeof events)[number] | undefined) => optionalTsToMs(e?.eventTime);
      const from = at(events[signalled]);
      const to = at(done);
      if (from !== undefined && to !== undefined) wakeMs.push(to - from);
    }
    const wakeResult = {
      wakes: wakeMs.length,
      p50Ms: round(percentile(wakeMs, 50), 0),
      p99Ms: round(percentile(wakeMs, 99), 0),
      maxMs: Math.max(...wakeMs),
      workerRssMb: mb(rssOf(worker.pid) ?? 0),
    };
    console.info('wakes', wakeResult);
    expect(wakeMs.length).toBe(active.length);

    // A change whose webhook is lost (the ingress is down), noticed by the next sweep.
    await stack.ingress.close();
    const target = records.find((c) => c.status === 'ACTIVE' && !active.includes(c))!;
    const targetId = campaignWorkflowId(
      ACCOUNT,
      adoptedReference({ referenceId: target.referenceId, registryId: target.campaignId }),
    );
    await stack.control.expireCampaign(target.campaignId);
    const expiredAt = Date.now();
    await sweepNow(stack.client, ACCOUNT);
    await until(
      'the lost expiry noticed',
      async () => {
        const s = await stack.client.workflow.getHandle(targetId).query<CampaignStatus>('status');
        return s.phase === 'expired' ? s : undefined;
      },
      3_600_000,
      500,
    );
    const lostResult = { noticedAfterMs: Date.now() - expiredAt, sweepStartedImmediately: true };
    console.info('lost webhook', lostResult);

    const path = writeResults(new URL('./results-steady.json', import.meta.url), {
      at: new Date().toISOString(),
      loadAverageAtStart,
      loadAverageAtEnd: loadavg()[0],
      brands: BRANDS,
      campaigns: CAMPAIGNS,
      cache: CACHE,
      workerNodeArgs: WORKER_NODE_ARGS,
      // The worker's malloc (inherited from this process's environment).
      ...allocatorInUse(),
      seed: { ms: seedMs, ...seeded.campaignKinds },
      workerRssAtStartMb: mb(rssAtStart ?? 0),
      import: importResult,
      sweep: sweepResult,
      steady: steadyResult,
      wakes: wakeResult,
      lostWebhook: lostResult,
    });
    console.info(`results: ${path}`);
  } finally {
    await stack.stop();
  }
});
