/**
 * Bulk onboarding at the registry's limit, and a naive baseline in the same run.
 *
 * Product: N brand orders + N campaign orders (campaign i on brand i, shared with the DCA SINCH)
 * started at once through startBrandOrder / startCampaignOrder on the real stack (dev server,
 * simulator enforcing the spec's 20 GET/s and 20 writes / 10 s, workers, ingress; simulator at
 * 3600x so share and DCA decisions take milliseconds). Done = every brand `ready`, every campaign
 * `running`. Writes per order: brand 1 (POST /brand/nonBlocking), campaign 2 (POST /campaignBuilder,
 * PUT sharing): 3N writes, theoretical minimum 3N / 2 s.
 *
 * Naive baseline: a fresh simulator, the same N orders, every order's calls fired at once with a
 * RegistryClient without its limiter (rateLimits: false) and its own 429 retries only (default 8,
 * honouring Retry-After): registerBrand → createCampaign → shareCampaign. No Temporal.
 *
 * Every registry call is counted by a proxy in front of the simulator (bench/support/counting-proxy.ts).
 *   BENCH_N=40 npx vitest run --config bench/vitest.config.ts bench/throughput/throughput.bench-run.ts
 * Results: stdout and bench/throughput/results.json.
 */
import { cpus, loadavg } from 'node:os';
import type { Client } from '@temporalio/client';
import { optionalTsToMs } from '@temporalio/common/lib/time.js';
import { expect, it } from 'vitest';
import { brandWorkflowId } from '../../src/contracts/ids.js';
import { getCampaignStatus } from '../../src/orders/campaign-orders.js';
import { RegistryClient } from '../../src/registry/client.js';
import { DEFAULT_ACCOUNT, startSimulator } from '../../src/simulator/index.js';
import { ACCOUNT, startBenchStack } from '../support/bench-stack.js';
import {
  type BulkRun,
  brandRef,
  campaignRef,
  registryCensus,
  startBulk,
  waitForBulk,
} from '../support/bulk.js';
import { acceptedWrites, callStats, timeline, writeWindow } from '../support/call-stats.js';
import { type ProxiedCall, startCountingProxy } from '../support/counting-proxy.js';
import { brandOrder, campaignOrder } from '../support/orders.js';
import { writeResults } from '../support/results.js';
import { percentile, round } from '../support/stats.js';

const N = Number(process.env.BENCH_N ?? 40);

/**
 * Where a campaign's time goes, from the audit trails (workflow time): its brand ready → checking
 * (noticing the brand), checking → creating (reads), creating → sharing (the billed create, queue
 * wait included), sharing → share-pending or later (the share, queue wait included). p50 / p99 in ms.
 */
async function campaignStepLags(client: Client, run: BulkRun) {
  const at = (entries: { event: string; to?: string; at: string }[], to: string) => {
    const e = entries.find((x) => x.event === 'phase' && x.to === to);
    return e ? Date.parse(e.at) : undefined;
  };
  const lags: Record<string, number[]> = { noticeBrand: [], checks: [], create: [], share: [] };
  for (let i = 0; i < N; i++) {
    const brandReady = run.timings.find((t) => t.reference === brandRef(run.prefix, i))?.doneAt;
    const s = await getCampaignStatus(client, campaignRef(run.prefix, i));
    const e = s.audit.entries;
    const checking = at(e, 'checking');
    const creating = at(e, 'creating');
    const sharing = at(e, 'sharing');
    const shared = at(e, 'share-pending') ?? at(e, 'awaiting-dca') ?? at(e, 'running');
    if (brandReady && checking) lags.noticeBrand!.push(checking - brandReady);
    if (checking && creating) lags.checks!.push(creating - checking);
    if (creating && sharing) lags.create!.push(sharing - creating);
    if (sharing && shared) lags.share!.push(shared - sharing);
  }
  return Object.fromEntries(
    Object.entries(lags).map(([k, v]) => [
      k,
      { p50: percentile(v, 50), p99: percentile(v, 99), n: v.length },
    ]),
  );
}

/** `GET /v2/brand/{id}`: a call's method and path with its ids replaced. */
const endpointOf = (c: ProxiedCall) =>
  `${c.method} ${c.path.replace(/\/[A-Z][0-9A-Z]{5,}(?=\/|$)/g, '/{id}').replace(/sharing\/[^/]+$/, 'sharing/{cnp}')}`;

/** Accepted writes by endpoint, with the time of the first and last (seconds from the run's start). */
function writesByKind(calls: readonly ProxiedCall[], fromMs: number) {
  const out: Record<string, { count: number; firstS: number; lastS: number }> = {};
  for (const c of calls) {
    if (c.startMs < fromMs || c.method === 'GET' || c.status === 429) continue;
    const key = endpointOf(c);
    const s = round((c.startMs - fromMs) / 1000, 1);
    const k = out[key] ?? { count: 0, firstS: s, lastS: s };
    k.count++;
    k.lastS = s;
    out[key] = k;
  }
  return out;
}
const WRITES_PER_SECOND = 2;

/**
 * The first brand's history up to its registration's activity, in seconds from the run's start: where
 * the time before the first write goes (workflow tasks queued behind the others' first ones, or the
 * activity's wait for its slot and instant).
 */
async function firstBrandTimeline(client: Client, run: BulkRun) {
  const history = await client.workflow
    .getHandle(brandWorkflowId(ACCOUNT, brandRef(run.prefix, 0)))
    .fetchHistory();
  const out: string[] = [];
  for (const event of history.events ?? []) {
    const at = optionalTsToMs(event.eventTime) ?? run.startedAt;
    const type = String(event.eventType ?? '')
      .replace(/^EVENT_TYPE_/, '')
      .toLowerCase();
    out.push(`${round((at - run.startedAt) / 1000, 2)} s ${type}`);
    if (type === 'activity_task_completed') break;
  }
  return out;
}

/**
 * The sliding-window limit (issue 18): 3N writes at 20 per any 10 s go in batches of 20 a window
 * apart, so the last batch leaves (ceil(3N / 20) - 1) windows after the first: 50 s for N = 40.
 */
const SLIDING_WINDOW_LIMIT_SECONDS = (Math.ceil((3 * N) / 20) - 1) * 10;

/**
 * Like for like with the naive client, which is done when its last write is answered: from the run's
 * start to its first accepted write, and to the answer of its last, against the sliding-window limit.
 * (The product is done later: it also waits for each brand's identity and each campaign's DCA.)
 */
function writeSpan(calls: readonly ProxiedCall[], fromMs: number) {
  const w = writeWindow(calls, fromMs);
  const lastWriteAnsweredSeconds = round((w.to - fromMs) / 1000, 1);
  // What the registry saw before the first write: the reads the run spent its first moments on.
  const beforeFirstWrite = calls.filter((c) => c.startMs >= fromMs && c.startMs < w.from);
  // Each window's 20 writes follow the previous window's a window and a margin later: the end is set
  // by when the first window's last (20th) write left, not its first.
  const accepted = acceptedWrites(calls, fromMs);
  const windowLast = accepted[19] ?? accepted.at(-1);
  // Every registry call until then: what the run did before its first window's writes had all left.
  const untilWindowLast = calls.filter(
    (c) => c.startMs >= fromMs && c.startMs <= (windowLast?.startMs ?? w.from) && c.path.startsWith('/v2/'),
  );
  return {
    readsBeforeFirstWrite: beforeFirstWrite.length,
    firstCallSeconds: round(((beforeFirstWrite[0]?.startMs ?? w.from) - fromMs) / 1000, 2),
    firstWriteSeconds: round((w.from - fromMs) / 1000, 2),
    firstWindowLastWriteSeconds: round(((windowLast?.startMs ?? w.from) - fromMs) / 1000, 2),
    callsUntilFirstWindowLastWrite: untilWindowLast.map(
      (c) => `${round((c.startMs - fromMs) / 1000, 2)} s ${endpointOf(c)} ${c.status}`,
    ),
    lastWriteAnsweredSeconds,
    slidingWindowLimitSeconds: SLIDING_WINDOW_LIMIT_SECONDS,
    ratioToSlidingWindowLimit: round(lastWriteAnsweredSeconds / SLIDING_WINDOW_LIMIT_SECONDS, 3),
  };
}

// The stack's setup sends writes outside the workers' budget (the ingress's webhook subscriptions):
// the run starts once they have left the registry's window, so the product starts from an idle window
// as the naive client does.

async function productRun() {
  const stack = await startBenchStack({ timeScale: 3600 });
  try {
    await stack.setupWritesLeftWindow();
    const prefix = `tp${Date.now().toString(36)}`;
    const run = await startBulk(stack.client, { n: N, prefix });
    const waited = await waitForBulk(stack.client, run, 300_000, (done, total) =>
      process.stdout.write(`\r  product: ${done}/${total} orders done   `),
    );
    process.stdout.write('\n');
    const lastDone = Math.max(...run.timings.map((t) => t.doneAt ?? Date.now()));
    const e2e = run.timings.filter((t) => t.doneAt).map((t) => t.doneAt! - t.startedAt);
    const byKind = (kind: string) =>
      run.timings.filter((t) => t.kind === kind && t.doneAt).map((t) => t.doneAt! - t.startedAt);
    const whole = callStats(stack.proxy.calls, run.startedAt, lastDone);
    const w = writeWindow(stack.proxy.calls, run.startedAt);
    const sustained = callStats(stack.proxy.calls, w.from, w.to);
    const census = await registryCensus(stack.sim.url, stack.control, run);
    const stepLags = await campaignStepLags(stack.client, run);
    const minSeconds = (3 * N) / WRITES_PER_SECOND;
    const totalSeconds = (lastDone - run.startedAt) / 1000;
    return {
      orders: run.timings.length,
      completed: waited.done,
      notCompleted: waited.pending.map((t) => `${t.kind} ${t.reference}: ${t.phase}`),
      totalSeconds: round(totalSeconds, 1),
      theoreticalMinSeconds: minSeconds,
      ratioToMinimum: round(totalSeconds / minSeconds, 3),
      e2eMs: { p50: percentile(e2e, 50), p99: percentile(e2e, 99) },
      brandE2eMs: { p50: percentile(byKind('brand'), 50), p99: percentile(byKind('brand'), 99) },
      campaignE2eMs: { p50: percentile(byKind('campaign'), 50), p99: percentile(byKind('campaign'), 99) },
      wholeRun: whole,
      writeWindow: sustained,
      registryAnomalies: census.anomalies,
      campaignStepLagsMs: stepLags,
      timeline10s: timeline(stack.proxy.calls, run.startedAt, lastDone),
      writesByKind: writesByKind(stack.proxy.calls, run.startedAt),
      writeSpan: writeSpan(stack.proxy.calls, run.startedAt),
      firstBrandTimeline: await firstBrandTimeline(stack.client, run),
    };
  } finally {
    await stack.stop();
  }
}

async function naiveRun() {
  const sim = await startSimulator({ timeScale: 3600 });
  const proxy = await startCountingProxy(sim.url);
  const registry = new RegistryClient({
    environment: 'local',
    baseUrl: proxy.url,
    apiKey: DEFAULT_ACCOUNT.apiKey,
    apiSecret: DEFAULT_ACCOUNT.apiSecret,
    rateLimits: false,
  });
  try {
    const prefix = `nv${Date.now().toString(36)}`;
    const startedAt = Date.now();
    const results = await Promise.all(
      Array.from({ length: N }, async (_, i) => {
        const b = brandOrder(brandRef(prefix, i));
        const c = campaignOrder(campaignRef(prefix, i), b.reference);
        const out: { brandMs?: number; campaignMs?: number; error?: string } = {};
        try {
          const brand = await registry.registerBrand({ ...b.brand, referenceId: b.reference } as never);
          out.brandMs = Date.now() - startedAt;
          const created = await registry.createCampaign({
            ...c.campaign,
            brandId: brand.brandId,
            referenceId: c.reference,
          } as never);
          await registry.shareCampaign(created.campaignId, c.upstreamCnpId);
          out.campaignMs = Date.now() - startedAt;
        } catch (error) {
          out.error =
            error instanceof Error ? `${error.name}: ${error.message}`.slice(0, 160) : String(error);
        }
        return out;
      }),
    );
    const lastDone = Math.max(startedAt, ...results.map((r) => startedAt + (r.campaignMs ?? r.brandMs ?? 0)));
    const e2e = results.flatMap((r) => [r.brandMs, r.campaignMs]).filter((v): v is number => v !== undefined);
    const failures = results.filter((r) => r.error);
    const totalSeconds = (Date.now() - startedAt) / 1000;
    const w = writeWindow(proxy.calls, startedAt);
    const errorKinds: Record<string, number> = {};
    for (const f of failures)
      errorKinds[f.error!.split(':')[0]!] = (errorKinds[f.error!.split(':')[0]!] ?? 0) + 1;
    return {
      orders: 2 * N,
      completed: e2e.length,
      failedOrders: failures.length,
      failureKinds: errorKinds,
      failureSample: failures.slice(0, 3).map((f) => f.error),
      totalSeconds: round(totalSeconds, 1),
      ratioToMinimum: round(totalSeconds / ((3 * N) / WRITES_PER_SECOND), 3),
      e2eMs: { p50: percentile(e2e, 50), p99: percentile(e2e, 99) },
      wholeRun: callStats(proxy.calls, startedAt, lastDone + 1),
      writeWindow: callStats(proxy.calls, w.from, w.to),
      timeline10s: timeline(proxy.calls, startedAt, lastDone + 1),
      writeSpan: writeSpan(proxy.calls, startedAt),
    };
  } finally {
    await registry.close();
    await proxy.close();
    await sim.close();
  }
}

it(`bulk onboarding of ${N} brands + ${N} campaigns at the registry's limit, and a naive baseline`, async () => {
  const machine = {
    cpus: cpus().length,
    model: cpus()[0]?.model,
    loadavgAtStart: loadavg().map((l) => round(l)),
  };
  const naive = await naiveRun();
  console.log('naive baseline', JSON.stringify(naive, null, 2));
  const product = await productRun();
  console.log('product', JSON.stringify(product, null, 2));
  const results = { n: N, when: new Date().toISOString(), machine, product, naive };
  writeResults(new URL('./results.json', import.meta.url), results);
  expect(product.notCompleted).toEqual([]);
  expect(product.registryAnomalies).toEqual([]);
});
