/**
 * Scale: open, waiting workflows held by one worker process, and the wake latency of a waiting brand.
 *
 * Setup (simulator rate limits off; the worker's account budget is SCALE_GETS_PER_SECOND and
 * SCALE_WRITES_PER_10S, by default the spec's 20 and 20, so every brand costs 0.5 s of setup; the
 * 10,000 run raises them through the account's `rateLimits`): SCALE_BRANDS brand orders whose company name
 * carries the UNVERIFIED marker (they settle in needs-correction and wait on a 6 h poll), and
 * SCALE_CAMPAIGNS campaign orders for a brand nobody ordered (they wait in awaiting-brand on a poll
 * of 1 min doubling to 1 h). The worker is `node dist/cli/main.js worker` (product settings: the
 * SDK's default workflow cache unless SCALE_MAX_CACHED sets TCR_WORKER_MAX_CACHED_WORKFLOWS), with a preloaded reporter (bench/support/memory-reporter.cjs) that writes
 * its process.memoryUsage() to a file. RSS and CPU come from /proc/{pid}.
 *
 * Wake latency: SCALE_WAKES signed BRAND_IDENTITY_STATUS_UPDATE events are posted to the ingress, 250 ms
 * apart; latency = from the POST to the start of the workflow's next GET /v2/brand/{id} at the counting
 * proxy in front of the simulator.
 *   SCALE_BRANDS=200 SCALE_CAMPAIGNS=800 npx vitest run --config bench/vitest.config.ts bench/scale
 * Results: stdout and bench/scale/results-{total}.json.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { expect, it } from 'vitest';
import { getBrandStatus, startBrandOrder } from '../../src/orders/brand-client.js';
import { startCampaignOrder } from '../../src/orders/campaign-orders.js';
import { projectRoot } from '../../src/toolchain/paths.js';
import { allocatorInUse } from '../support/allocator.js';
import { startBenchStack } from '../support/bench-stack.js';
import { brandOrder, campaignOrder } from '../support/orders.js';
import { writeResults } from '../support/results.js';
import { percentile, round, sleep, until } from '../support/stats.js';
import { postSignedEvent } from '../support/webhooks.js';

const BRANDS = Number(process.env.SCALE_BRANDS ?? 200);
const CAMPAIGNS = Number(process.env.SCALE_CAMPAIGNS ?? 800);
const WAKES = Number(process.env.SCALE_WAKES ?? 50);
const GETS_PER_SECOND = Number(process.env.SCALE_GETS_PER_SECOND ?? 20);
const WRITES_PER_10S = Number(process.env.SCALE_WRITES_PER_10S ?? 20);
const MAX_CACHED = process.env.SCALE_MAX_CACHED;
/** SCALE_PERSISTENCE=0 runs the dev server in memory (no SQLite file). */
const SCALE_PERSISTENCE = process.env.SCALE_PERSISTENCE !== '0';
const CLOCK_TICKS = 100; // USER_HZ on Linux

interface Sample {
  at: number;
  rssMb: number;
  cpuSeconds: number;
  heapUsedMb?: number;
  heapTotalMb?: number;
  workflowThreadHeapUsedMb?: number;
  workflowThreadHeapTotalMb?: number;
}

function sample(pid: number, memoryFile: string): Sample {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const rssKb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN);
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const cpuSeconds = (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS; // utime + stime
  let heap: { heapUsed?: number; heapTotal?: number } = {};
  try {
    heap = JSON.parse(readFileSync(memoryFile, 'utf8'));
  } catch {
    // not written yet
  }
  // The workflow thread's heap (memory-reporter.cjs writes one file per worker thread).
  let threadHeapUsed = 0;
  let threadHeapTotal = 0;
  for (const name of readdirSync(dirname(memoryFile)))
    if (name.startsWith(`${basename(memoryFile)}.thread-`) && !name.endsWith('.heapsnapshot'))
      try {
        const thread = JSON.parse(readFileSync(join(dirname(memoryFile), name), 'utf8'));
        threadHeapUsed += thread.heapUsed ?? 0;
        threadHeapTotal += thread.heapTotal ?? 0;
      } catch {
        // being written
      }
  const mb = (bytes?: number) => (bytes === undefined ? undefined : round(bytes / 1024 / 1024, 1));
  return {
    at: Date.now(),
    rssMb: round(rssKb / 1024, 1),
    cpuSeconds,
    ...(heap.heapUsed ? { heapUsedMb: mb(heap.heapUsed), heapTotalMb: mb(heap.heapTotal) } : {}),
    ...(threadHeapUsed > 0
      ? { workflowThreadHeapUsedMb: mb(threadHeapUsed), workflowThreadHeapTotalMb: mb(threadHeapTotal) }
      : {}),
  };
}

async function idleWindow(pid: number, memoryFile: string, seconds: number) {
  const a = sample(pid, memoryFile);
  await sleep(seconds * 1000);
  const b = sample(pid, memoryFile);
  return { ...b, cpuPercent: round(((b.cpuSeconds - a.cpuSeconds) / ((b.at - a.at) / 1000)) * 100, 1) };
}

it(`one worker holding ${BRANDS} waiting brands + ${CAMPAIGNS} waiting campaigns`, async () => {
  const stack = await startBenchStack({
    workers: 'process',
    rateLimits: false,
    persistence: SCALE_PERSISTENCE,
    timeScale: 3600,
    workerRateLimits: { getsPerSecond: GETS_PER_SECOND, writesPer10Seconds: WRITES_PER_10S },
  });
  try {
    const memoryFile = join(stack.dataDir, 'worker-memory.json');
    const worker = stack.startWorkerProcess({
      nodeArgs: ['--require', join(projectRoot, 'bench/support/memory-reporter.cjs')],
      env: {
        BENCH_MEMORY_FILE: memoryFile,
        ...(MAX_CACHED ? { TCR_WORKER_MAX_CACHED_WORKFLOWS: MAX_CACHED } : {}),
        // BENCH_CPU_PROFILE(_AFTER_S, _FOR_S): a CPU profile of the worker's main thread (memory-reporter.cjs).
        ...Object.fromEntries(
          Object.entries(process.env).filter(([key]) => key.startsWith('BENCH_CPU_PROFILE')),
        ),
      },
    });
    await worker.ready;
    await sleep(3_000);
    const empty = await idleWindow(worker.pid, memoryFile, 10);
    console.log('worker with no workflows', empty);

    const prefix = `sc${Date.now().toString(36)}`;
    const setupStart = Date.now();
    const brandRefs = Array.from({ length: BRANDS }, (_, i) => `${prefix}-b${i}`);
    for (let i = 0; i < BRANDS; i += 50)
      await Promise.all(
        brandRefs
          .slice(i, i + 50)
          .map((ref) =>
            startBrandOrder(stack.client, brandOrder(ref, { companyName: `UNVERIFIED ${ref} LLC` })),
          ),
      );
    for (let i = 0; i < CAMPAIGNS; i += 50)
      await Promise.all(
        Array.from({ length: Math.min(50, CAMPAIGNS - i) }, (_, j) =>
          startCampaignOrder(stack.client, campaignOrder(`${prefix}-c${i + j}`, `${prefix}-nobody`)),
        ),
      );
    const startedIn = round((Date.now() - setupStart) / 1000, 1);
    const settled = await until(
      `${BRANDS} brands in needs-correction`,
      async () => {
        const n = await stack.client.workflow.count(
          `TcrPhase = "needs-correction" AND TcrBrandReference STARTS_WITH "${prefix}-b"`,
        );
        process.stdout.write(`\r  needs-correction: ${n.count}/${BRANDS}   `);
        return n.count >= BRANDS ? n.count : undefined;
      },
      Math.max(600_000, BRANDS * 1_500),
      2_000,
    );
    // Every campaign has made its first registry calls (its lookup by referenceId at start).
    await until(
      `${CAMPAIGNS} campaigns checked once`,
      async () => {
        const refs = new Set(
          stack.proxy.calls
            .filter((c) => c.method === 'GET' && c.path === '/v2/campaign' && c.query.includes(`${prefix}-c`))
            .map((c) => c.query),
        );
        return refs.size >= CAMPAIGNS ? refs.size : undefined;
      },
      Math.max(600_000, CAMPAIGNS * 400),
      2_000,
    );
    await sleep(5_000);
    const setupSeconds = round((Date.now() - setupStart) / 1000, 1);
    // How each brand learned its UNVERIFIED result: the webhook, or a reconciliation poll.
    const settledBy: Record<string, number> = {};
    for (const ref of brandRefs) {
      const s = await getBrandStatus(stack.client, ref);
      const cause =
        s.audit.entries.find((e) => e.event === 'phase' && e.to === 'needs-correction')?.cause ?? '?';
      settledBy[cause] = (settledBy[cause] ?? 0) + 1;
    }
    const running = await stack.client.workflow.count(
      `ExecutionStatus = "Running" AND TaskQueue = "tcr-workflows"`,
    );
    const held = await idleWindow(worker.pid, memoryFile, 30);
    console.log(`\nworker holding ${running.count} running workflows`, held);

    // Wake latency.
    const wakes: { ref: string; brandId: string; sentAt: number; status: number }[] = [];
    for (const ref of brandRefs.slice(0, WAKES)) {
      const brandId = (await getBrandStatus(stack.client, ref)).brandId!;
      const sentAt = Date.now();
      const status = await postSignedEvent(stack.ingress.endpoint, stack.webhookUrl, stack.webhookSecret, {
        eventType: 'BRAND_IDENTITY_STATUS_UPDATE',
        cspId: 'CSPLOCAL',
        brandId,
        brandReferenceId: ref,
        brandIdentityStatus: 'UNVERIFIED',
        description: `bench wake ${sentAt}`,
      });
      wakes.push({ ref, brandId, sentAt, status });
      await sleep(250);
    }
    await sleep(5_000);
    const latencies: number[] = [];
    let missed = 0;
    for (const w of wakes) {
      const call = stack.proxy.calls.find(
        (c) => c.method === 'GET' && c.path === `/v2/brand/${w.brandId}` && c.startMs >= w.sentAt,
      );
      if (call) latencies.push(call.startMs - w.sentAt);
      else missed++;
    }
    const results = {
      when: new Date().toISOString(),
      machine: { cpus: cpus().length, model: cpus()[0]?.model, loadavg: loadavg().map((l) => round(l)) },
      brands: BRANDS,
      campaigns: CAMPAIGNS,
      workerBudget: { getsPerSecond: GETS_PER_SECOND, writesPer10Seconds: WRITES_PER_10S },
      maxCachedWorkflows: MAX_CACHED ?? 'SDK default',
      // The worker's malloc (inherited from this process's environment).
      ...allocatorInUse(),
      devServerPersistence: SCALE_PERSISTENCE ? 'SQLite file' : 'in memory',
      runningWorkflows: running.count,
      brandsInNeedsCorrection: settled,
      brandsSettledBy: settledBy,
      startSeconds: startedIn,
      setupSeconds,
      workerEmpty: empty,
      workerHolding: held,
      wake: {
        sent: wakes.length,
        acks: [...new Set(wakes.map((w) => w.status))],
        missed,
        p50ms: percentile(latencies, 50),
        p99ms: percentile(latencies, 99),
        maxMs: Math.max(...latencies),
      },
      registryCalls: stack.proxy.calls.length,
    };
    console.log(JSON.stringify(results, null, 2));
    writeResults(new URL(`./results-${BRANDS + CAMPAIGNS}.json`, import.meta.url), results);
    expect(missed).toBe(0);
  } finally {
    await stack.stop();
  }
});
