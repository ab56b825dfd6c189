/**
 * Ingress benchmark: sustained signed events per second and acknowledgement latency (p50 / p99) at
 * 1 connection (how the registry delivers: one worker per account) and at 16, against the local
 * dev server, side by side with the raw rate of `signalWithStart` from a plain Temporal client in
 * the same run. Both sides signal the same running workflows (no worker polls them, so the server
 * only records the signals).
 *
 * The ingress runs as it does in production: its own process (`node dist/cli/main.js ingress`),
 * logging every event at info level (to /dev/null). The load generator and the raw client share
 * this process. The machine is small and shared, so the phases are interleaved: every round runs
 * each path once, and each path's figures pool its rounds, so a slow spell hits all paths alike. The
 * ratios are given both ways: pooled rates, and the median over rounds of the ratio within a round.
 * Run (after `npm run build`):
 *   npx vitest run --config bench/ingress/vitest.config.ts bench/ingress/ingress.bench-run.ts
 * BENCH_SECONDS (default 2) sets each phase's length, BENCH_ROUNDS (default 8) the rounds,
 * BENCH_INGRESS_CPU_PROFILE a directory for a CPU profile of the ingress process,
 * BENCH_INGRESS_IN_PROCESS=1 runs the ingress in this process instead, BENCH_INGRESS_NODE_ARGS
 * passes Node options to the ingress process. Results go to stdout and a new dated
 * bench/ingress/results.<time>.json (results-in-process.<time>.json in that mode). For diagnosis, BENCH_PATHS (path names, comma-separated)
 * and BENCH_CONNECTIONS (e.g. "1") narrow the run; a narrowed run prints its figures but writes no file.
 *
 * Besides rates and latencies, each path reports per event the CPU time and the run-queue wait
 * (runnable, no CPU free) of each process (Linux schedstat), and for the ingress paths the mean
 * hand-off time the ingress itself measured: where the time goes on a small shared machine.
 */
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg } from 'node:os';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { pino } from 'pino';
import { Pool } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { brandWorkflowId } from '../../src/contracts/ids.js';
import { type RegistryEventDelivery, registryEventSignal } from '../../src/contracts/signals.js';
import { parseIngressConfig } from '../../src/ingress/config.js';
import { startIngress } from '../../src/ingress/server.js';
import { canonicalJson, deliveryIdOf, signEvent } from '../../src/ingress/signature.js';
import { createIngressClient } from '../../src/ingress/temporal.js';
import { startIngressProcess } from '../../test/support/ingress-process.js';
import { devServerEnv } from '../../test/support/temporal-env.js';
import { writeResults } from '../support/results.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 2);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 8);
const WARMUP_MS = 500;
const WEBHOOK_URL = 'https://csp.example/webhooks/registry';
const SECRET = 'bench-secret-0123456789abcdefghijklmnop';
/** The account the bench's workflows and the ingress's secret belong to (workflow ids carry it). */
const BENCH_ACCOUNT = 'acme';
/** Fresh target workflows per phase, so no history grows across phases. */
const TARGETS = 32;
let phaseTag = 'warm';
const taskQueue = `bench-ingress-${randomUUID()}`;
const run = randomUUID().slice(0, 8);
const reference = (i: number) => `bench-${run}-${phaseTag}-${i % TARGETS}`;

interface PhaseResult {
  name: string;
  connections: number;
  events: number;
  seconds: number;
  perSecond: number;
  meanMs: number;
  p50ms: number;
  p99ms: number;
  errors: number;
  /** Events per second of each round, in order. */
  roundRates: number[];
  /**
   * Per process, per event: milliseconds on a CPU, and milliseconds runnable but waiting for one
   * (the run queue). On a small shared machine the waiting shows where an extra process costs.
   */
  msPerEvent: Record<string, { cpu: number; runQueue: number }>;
  /** Ingress paths: mean time from the handler's start to Temporal's answer, as the ingress saw it. */
  handoffMeanMs?: number;
}

const errorMessages = new Map<string, number>();
function noteError(error: unknown): void {
  const message = (error instanceof Error ? `${error.name}: ${error.message}` : String(error)).slice(0, 200);
  errorMessages.set(message, (errorMessages.get(message) ?? 0) + 1);
}

let sequence = 0;
function nextEvent(i: number): Record<string, unknown> {
  sequence++;
  return {
    eventType: 'BRAND_IDENTITY_STATUS_UPDATE',
    brandReferenceId: reference(i),
    brandId: `BBENCH${i % TARGETS}`,
    brandIdentityStatus: 'VERIFIED',
    description: `bench event ${sequence}`,
    cspId: 'CSPLOCAL',
  };
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

interface Accumulator {
  latencies: number[];
  seconds: number;
  errors: number;
  roundRates: number[];
  /** Per process: CPU time and time spent runnable but waiting for a CPU, summed over the phases (ns). */
  sched: Record<string, SchedTimes>;
  /** The ingress's own hand-off histogram (sum of seconds, count), summed over the phases. */
  handoff: { seconds: number; count: number };
}

/** A process's scheduler times, summed over its threads (Linux /proc/{pid}/task/{tid}/schedstat). */
interface SchedTimes {
  cpuNs: number;
  waitNs: number;
}

function schedTimes(pid: number | undefined): SchedTimes {
  const times = { cpuNs: 0, waitNs: 0 };
  if (pid === undefined) return times;
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        const [cpu, wait] = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ');
        times.cpuNs += Number(cpu);
        times.waitNs += Number(wait);
      } catch {
        // the thread ended between the listing and the read
      }
    }
  } catch {
    // not Linux, or the process is gone: no figures
  }
  return times;
}

/** The processes whose scheduler times are reported: this one, the ingress and the dev server. */
const watched: Record<string, number | undefined> = { bench: process.pid };

function snapshot(): Record<string, SchedTimes> {
  return Object.fromEntries(Object.entries(watched).map(([name, pid]) => [name, schedTimes(pid)]));
}

/** The dev server this process started (a child whose command line has start-dev). */
function devServerPid(): number | undefined {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (ppid === process.pid && cmdline.includes('start-dev')) return Number(entry);
    } catch {
      // gone, or not ours
    }
  }
  return undefined;
}

/**
 * One path: prepares a call for a connection (builds the event, signs it), and the clock runs only
 * while the prepared call is in flight: a POST until its answer, a raw call until it returns.
 */
type Path = (worker: number) => () => Promise<boolean>;

/** One timed phase of one path; its latencies and time are added to the path's accumulator. */
async function phase(
  name: string,
  connections: number,
  round: number,
  path: Path,
  into: Accumulator,
): Promise<void> {
  const loop = async (worker: number, until: number, latencies: number[] | undefined) => {
    while (Date.now() < until) {
      const call = path(worker);
      const started = performance.now();
      const ok = await call();
      if (!ok && latencies) into.errors++;
      latencies?.push(performance.now() - started);
    }
  };
  phaseTag = `${name.replace(/\W+/g, '-')}-${connections}-${round}`;
  // Targets exist before the clock starts (the ingress signals existing workflows).
  await Promise.all(Array.from({ length: TARGETS }, (_, i) => ensureTarget(i)));
  const warmUntil = Date.now() + WARMUP_MS;
  await Promise.all(Array.from({ length: connections }, (_, w) => loop(w, warmUntil, undefined)));
  const latencies: number[] = [];
  const handoffBefore = await handoffTotals();
  const schedBefore = snapshot();
  const started = performance.now();
  const until = Date.now() + SECONDS * 1000;
  await Promise.all(Array.from({ length: connections }, (_, w) => loop(w, until, latencies)));
  const elapsed = (performance.now() - started) / 1000;
  for (const [process, after] of Object.entries(snapshot())) {
    const sum = into.sched[process] ?? { cpuNs: 0, waitNs: 0 };
    sum.cpuNs += after.cpuNs - schedBefore[process]!.cpuNs;
    sum.waitNs += after.waitNs - schedBefore[process]!.waitNs;
    into.sched[process] = sum;
  }
  const handoffAfter = await handoffTotals();
  into.handoff.seconds += handoffAfter.seconds - handoffBefore.seconds;
  into.handoff.count += handoffAfter.count - handoffBefore.count;
  into.latencies.push(...latencies);
  into.seconds += elapsed;
  into.roundRates.push(Math.round(latencies.length / elapsed));
}

/** The ingress's hand-off histogram totals so far, from its /metrics. */
async function handoffTotals(): Promise<{ seconds: number; count: number }> {
  const text = await fetch(`${internalUrl}/metrics`).then((r) => r.text());
  const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
  return {
    seconds: value('tcr_ingress_handoff_seconds_sum'),
    count: value('tcr_ingress_handoff_seconds_count'),
  };
}

function summary(name: string, connections: number, acc: Accumulator): PhaseResult {
  const sorted = [...acc.latencies].sort((a, b) => a - b);
  return {
    name,
    connections,
    events: sorted.length,
    seconds: Number(acc.seconds.toFixed(1)),
    perSecond: Math.round(sorted.length / acc.seconds),
    meanMs: Number((sorted.reduce((sum, ms) => sum + ms, 0) / sorted.length).toFixed(2)),
    p50ms: Number(percentile(sorted, 50).toFixed(2)),
    p99ms: Number(percentile(sorted, 99).toFixed(2)),
    errors: acc.errors,
    roundRates: acc.roundRates,
    msPerEvent: Object.fromEntries(
      Object.entries(acc.sched).map(([process, { cpuNs, waitNs }]) => [
        process,
        {
          cpu: Number((cpuNs / 1e6 / sorted.length).toFixed(3)),
          runQueue: Number((waitNs / 1e6 / sorted.length).toFixed(3)),
        },
      ]),
    ),
    ...(acc.handoff.count > 0 && {
      handoffMeanMs: Number(((1000 * acc.handoff.seconds) / acc.handoff.count).toFixed(2)),
    }),
  };
}

let ensureTarget: (i: number) => Promise<unknown> = async () => {};

let env: TestWorkflowEnvironment;
let ingressProcess: ChildProcess | undefined;
let ingressUrl: string;
/** Where the ingress serves /metrics (its internal listener). */
let internalUrl: string;
let closeInProcess: (() => Promise<void>) | undefined;
/**
 * BENCH_INGRESS_IN_PROCESS=1 runs the ingress inside this process instead (from src/, same event loop
 * as the load generator): no process hop, to tell the ingress's own cost from the hop's.
 */
const IN_PROCESS = process.env.BENCH_INGRESS_IN_PROCESS === '1';

/** Starts `tcr ingress` from dist/ as its own process, logging every event as in production. */
async function startIngressProcessForBench(
  temporalAddress: string,
): Promise<{ url: string; internalUrl: string }> {
  // BENCH_INGRESS_CPU_PROFILE=dir writes a V8 CPU profile of the ingress process into dir.
  const profileDir = process.env.BENCH_INGRESS_CPU_PROFILE;
  const profileArgs = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
  // BENCH_INGRESS_NODE_ARGS passes Node options to the ingress process (e.g. GC settings to compare).
  const nodeArgs = (process.env.BENCH_INGRESS_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const ingress = await startIngressProcess({
    nodeArgs: [...nodeArgs, ...profileArgs],
    env: {
      TCR_WEBHOOK_URL: WEBHOOK_URL,
      TCR_WEBHOOK_SECRETS: SECRET,
      TCR_INGRESS_ACCOUNTS: BENCH_ACCOUNT,
      TCR_PARKED_EVENTS_TASK_QUEUE: taskQueue,
      TEMPORAL_ADDRESS: temporalAddress,
      TEMPORAL_NAMESPACE: 'default',
      // The info log line of every event is written, as in production, and thrown away by the OS.
      TCR_INGRESS_LOG_LEVEL: 'info',
    },
  });
  ingressProcess = ingress.child;
  watched.ingress = ingress.child.pid;
  return ingress;
}

beforeAll(async () => {
  env = await devServerEnv();
  watched.devServer = devServerPid();
  if (IN_PROCESS) {
    const config = parseIngressConfig({
      TCR_WEBHOOK_URL: WEBHOOK_URL,
      TCR_WEBHOOK_SECRETS: SECRET,
      TCR_INGRESS_ACCOUNTS: BENCH_ACCOUNT,
      TCR_INGRESS_PORT: '0',
      TCR_INGRESS_INTERNAL_LISTEN: '127.0.0.1:0',
      TCR_PARKED_EVENTS_TASK_QUEUE: taskQueue,
      TEMPORAL_ADDRESS: env.address,
    });
    const client = createIngressClient(config);
    const ingress = await startIngress({
      config,
      client,
      logger: pino({ level: 'info' }, pino.destination({ dest: '/dev/null', sync: true })),
    });
    closeInProcess = async () => {
      await ingress.close();
      await client.connection.close();
    };
    ingressUrl = ingress.url;
    internalUrl = ingress.internalUrl ?? ingress.url;
  } else {
    ({ url: ingressUrl, internalUrl } = await startIngressProcessForBench(env.address));
  }
});

afterAll(async () => {
  await closeInProcess?.();
  if (ingressProcess && ingressProcess.exitCode === null) {
    const exited = new Promise((resolve) => ingressProcess?.once('exit', resolve));
    ingressProcess.kill('SIGTERM');
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
  }
  await env?.teardown();
});

it('measures the ingress against raw signalWithStart', async () => {
  const client = env.client;
  const deliveryFor = (event: Record<string, unknown>): RegistryEventDelivery => ({
    event: event as RegistryEventDelivery['event'],
    receivedAt: new Date().toISOString(),
    deliveryId: deliveryIdOf(canonicalJson(event)),
  });
  const rawSignal: Path = (worker) => {
    const delivery = deliveryFor(nextEvent(worker));
    return async () => {
      try {
        await client.workflow.signalWithStart('recordingOwner', {
          taskQueue,
          workflowId: brandWorkflowId(BENCH_ACCOUNT, reference(worker)),
          args: [{ kind: 'brand', reference: reference(worker) }],
          signal: registryEventSignal,
          signalArgs: [delivery],
        });
        return true;
      } catch (error) {
        noteError(error);
        return false;
      }
    };
  };

  // Like for like: the ingress signals an existing workflow with a plain signal (signalWithStart only
  // when it parks), so the plain signal rate is shown too.
  const rawPlainSignal: Path = (worker) => {
    const delivery = deliveryFor(nextEvent(worker));
    return async () => {
      try {
        await client.workflow
          .getHandle(brandWorkflowId(BENCH_ACCOUNT, reference(worker)))
          .signal(registryEventSignal, delivery);
        return true;
      } catch (error) {
        noteError(error);
        return false;
      }
    };
  };

  const pool = new Pool(ingressUrl, { connections: 16, pipelining: 1 });
  /** Signs the event now (the registry's work), and returns the POST to time. */
  const postSigned = (event: Record<string, unknown>, expected: string) => {
    const headers = {
      'content-type': 'application/json',
      'x-registry-signature-256': signEvent(SECRET, WEBHOOK_URL, event),
    };
    const body = JSON.stringify(event);
    return async (): Promise<boolean> => {
      try {
        const response = await pool.request({ path: '/webhooks/registry', method: 'POST', headers, body });
        const text = await response.body.text();
        const ok = response.statusCode === 200 && text.includes(`"${expected}"`);
        if (!ok) noteError(new Error(`${response.statusCode} ${text.slice(0, 200)}`));
        return ok;
      } catch (error) {
        noteError(error);
        return false;
      }
    };
  };
  const post: Path = (worker) => postSigned(nextEvent(worker), 'signalled');
  // The edge alone: a signed event with nothing to route by is verified and acknowledged with no hand-off.
  const postNoHandoff: Path = () => {
    sequence++;
    return postSigned(
      { eventType: 'BENCH_NO_IDS', cspId: 'CSPLOCAL', description: `bench event ${sequence}` },
      'ignored',
    );
  };

  ensureTarget = (i) =>
    client.workflow.signalWithStart('recordingOwner', {
      taskQueue,
      workflowId: brandWorkflowId(BENCH_ACCOUNT, reference(i)),
      args: [{ kind: 'brand', reference: reference(i) }],
      signal: registryEventSignal,
      signalArgs: [
        {
          event: { eventType: 'BENCH_START' },
          receivedAt: new Date().toISOString(),
          deliveryId: `start-${i}`,
        },
      ],
    });

  const allPaths: [string, Path][] = [
    ['raw signalWithStart', rawSignal],
    ['raw signal', rawPlainSignal],
    ['ingress POST', post],
    ['ingress POST, no hand-off', postNoHandoff],
  ];
  // BENCH_PATHS='ingress POST' (names, comma-separated) narrows the run, e.g. to profile one path.
  const only = process.env.BENCH_PATHS?.split(',').map((name) => name.trim());
  const paths = only ? allPaths.filter(([name]) => only.includes(name)) : allPaths;
  const loadBefore = loadavg()[0]!;
  const results: PhaseResult[] = [];
  // BENCH_CONNECTIONS=1 (comma-separated) narrows the connection counts.
  const connectionCounts = (process.env.BENCH_CONNECTIONS ?? '1,16').split(',').map(Number);
  for (const connections of connectionCounts) {
    const accumulators = paths.map(
      (): Accumulator => ({
        latencies: [],
        seconds: 0,
        errors: 0,
        roundRates: [],
        sched: {},
        handoff: { seconds: 0, count: 0 },
      }),
    );
    for (let round = 0; round < ROUNDS; round++) {
      for (const [i, [name, once]] of paths.entries())
        await phase(name, connections, round, once, accumulators[i]!);
    }
    for (const [i, [name]] of paths.entries()) {
      const result = summary(name, connections, accumulators[i]!);
      console.log(JSON.stringify(result));
      results.push(result);
    }
  }
  await pool.close();
  const metricsText = await fetch(`${internalUrl}/metrics`).then((r) => r.text());

  /** Median over rounds of ingress ÷ `name` within the same round (a paired comparison). */
  const pairedRatio = (r: PhaseResult, name: string): number => {
    const base = results.find((x) => x.name === name && x.connections === r.connections)!;
    const ratios = r.roundRates.map((rate, i) => rate / base.roundRates[i]!).sort((a, b) => a - b);
    const mid = Math.floor(ratios.length / 2);
    return ratios.length % 2 ? ratios[mid]! : (ratios[mid - 1]! + ratios[mid]!) / 2;
  };
  const complete = only === undefined && connectionCounts.join() === '1,16';
  const ratios = results
    .filter((r) => complete && r.name === 'ingress POST')
    .map((r) => ({
      connections: r.connections,
      pooledVsSignalWithStart: Number(
        (
          r.perSecond /
          results.find((x) => x.name === 'raw signalWithStart' && x.connections === r.connections)!.perSecond
        ).toFixed(3),
      ),
      medianRoundVsSignalWithStart: Number(pairedRatio(r, 'raw signalWithStart').toFixed(3)),
      pooledVsSignal: Number(
        (
          r.perSecond /
          results.find((x) => x.name === 'raw signal' && x.connections === r.connections)!.perSecond
        ).toFixed(3),
      ),
      medianRoundVsSignal: Number(pairedRatio(r, 'raw signal').toFixed(3)),
    }));
  console.log('ingress ÷ raw:', JSON.stringify(ratios));
  const table = [
    '| Path | Connections | Events | Events/s | Rounds (events/s) | p50 ms | p99 ms | Errors | Ingress / raw signalWithStart | Ingress / raw signal |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...results.map((r) => {
      const rate = (name: string) =>
        results.find((x) => x.name === name && x.connections === r.connections)!.perSecond;
      const ratio = (name: string) =>
        complete && r.name === 'ingress POST' ? `${Math.round((100 * r.perSecond) / rate(name))}%` : '';
      return `| ${r.name} | ${r.connections} | ${r.events} | ${r.perSecond} | ${r.roundRates.join(', ')} | ${r.p50ms} | ${r.p99ms} | ${r.errors} | ${ratio('raw signalWithStart')} | ${ratio('raw signal')} |`;
    }),
  ].join('\n');
  console.log(`\n${table}\n`);
  if (errorMessages.size > 0) console.log('errors:', Object.fromEntries(errorMessages));
  // A narrowed run (BENCH_PATHS, BENCH_CONNECTIONS) is for diagnosis: printed, not written.
  if (complete)
    writeResults(new URL(IN_PROCESS ? './results-in-process.json' : './results.json', import.meta.url), {
      at: new Date().toISOString(),
      secondsPerPhase: SECONDS,
      rounds: ROUNDS,
      ingress: IN_PROCESS
        ? 'in the load generator process (BENCH_INGRESS_IN_PROCESS=1), info logs to /dev/null'
        : 'separate process (node dist/cli/main.js ingress), info logs to /dev/null',
      cpus: availableParallelism(),
      cpuModel: cpus()[0]?.model,
      node: process.version,
      loadAverage1m: { before: loadBefore, after: loadavg()[0] },
      results,
      ratios,
      errors: Object.fromEntries(errorMessages),
      ingressMetrics: metricsText.split('\n').filter((line) => /^tcr_ingress_events_\w+_total/.test(line)),
    });
  expect(results.every((r) => r.events > 0)).toBe(true);
});
