/**
 * Ingress benchmark: sustained signed events per second and acknowledgement latency (p50 / p99) at
 * 1 connection (how the registry delivers: one worker per account) and at 16, against the local
 * dev server, side by side with the raw rate of `signalWithStart` from a plain Temporal client in
 * the same run. Both sides signal the same running workflows (no worker polls them, so the server
 * only records the signals). Run:
 *   npx vitest run --config bench/ingress/vitest.config.ts
 * BENCH_SECONDS (default 10) sets each phase's length. Results go to stdout and
 * bench/ingress/results.json.
 */
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { availableParallelism, cpus } from 'node:os';
import type { Client } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { pino } from 'pino';
import { Pool } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseIngressConfig } from '../../src/ingress/config.js';
import { type RunningIngress, startIngress } from '../../src/ingress/server.js';
import { canonicalJson, deliveryIdOf, signEvent } from '../../src/ingress/signature.js';
import { createIngressClient } from '../../src/ingress/temporal.js';
import { brandWorkflowId } from '../../src/workflows/ids.js';
import { type RegistryEventDelivery, registryEventSignal } from '../../src/workflows/signals.js';
import { devServerEnv } from '../../test/support/temporal-env.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const WARMUP_MS = 1_500;
const WEBHOOK_URL = 'https://csp.example/webhooks/registry';
const SECRET = 'bench-secret';
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
  perSecond: number;
  p50ms: number;
  p99ms: number;
  errors: number;
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

async function phase(
  name: string,
  connections: number,
  once: (worker: number) => Promise<boolean>,
): Promise<PhaseResult> {
  const loop = async (
    worker: number,
    until: number,
    latencies: number[] | undefined,
    errors: { n: number },
  ) => {
    while (Date.now() < until) {
      const started = performance.now();
      const ok = await once(worker);
      if (!ok) errors.n++;
      latencies?.push(performance.now() - started);
    }
  };
  phaseTag = `${name.replace(/\W+/g, '-')}-${connections}`;
  // Targets exist before the clock starts (the ingress signals existing workflows).
  await Promise.all(Array.from({ length: TARGETS }, (_, i) => ensureTarget(i)));
  const warm = { n: 0 };
  const warmUntil = Date.now() + WARMUP_MS;
  await Promise.all(Array.from({ length: connections }, (_, w) => loop(w, warmUntil, undefined, warm)));
  const latencies: number[] = [];
  const errors = { n: 0 };
  const started = performance.now();
  const until = Date.now() + SECONDS * 1000;
  await Promise.all(Array.from({ length: connections }, (_, w) => loop(w, until, latencies, errors)));
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const result = {
    name,
    connections,
    events: latencies.length,
    perSecond: Math.round(latencies.length / elapsed),
    p50ms: Number(percentile(latencies, 50).toFixed(2)),
    p99ms: Number(percentile(latencies, 99).toFixed(2)),
    errors: errors.n,
  };
  console.log(JSON.stringify(result));
  return result;
}

let ensureTarget: (i: number) => Promise<unknown> = async () => {};

let env: TestWorkflowEnvironment;
let ingressClient: Client;
let ingress: RunningIngress;

beforeAll(async () => {
  env = await devServerEnv();
  ingressClient = createIngressClient({
    temporalAddress: env.address,
    temporalNamespace: env.namespace ?? 'default',
  });
  ingress = await startIngress({
    config: parseIngressConfig({
      TCR_WEBHOOK_URL: WEBHOOK_URL,
      TCR_WEBHOOK_SECRETS: SECRET,
      TCR_INGRESS_PORT: '0',
      TCR_PARKED_EVENTS_TASK_QUEUE: taskQueue,
    }),
    client: ingressClient,
    // Real logging cost, thrown away.
    logger: pino({ level: 'info' }, pino.destination({ dest: '/dev/null', sync: false })),
  });
});

afterAll(async () => {
  await ingress?.close();
  await ingressClient?.connection.close();
  await env?.teardown();
});

it('measures the ingress against raw signalWithStart', async () => {
  const client = env.client;
  const rawSignal = async (worker: number): Promise<boolean> => {
    const event = nextEvent(worker);
    const delivery: RegistryEventDelivery = {
      event: event as RegistryEventDelivery['event'],
      receivedAt: new Date().toISOString(),
      deliveryId: deliveryIdOf(canonicalJson(event)),
    };
    try {
      await client.workflow.signalWithStart('recordingOwner', {
        taskQueue,
        workflowId: brandWorkflowId(reference(worker)),
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

  // Like for like: the ingress signals an existing workflow with a plain signal (signalWithStart only
  // when it parks), so the plain signal rate is shown too.
  const rawPlainSignal = async (worker: number): Promise<boolean> => {
    const event = nextEvent(worker);
    const delivery: RegistryEventDelivery = {
      event: event as RegistryEventDelivery['event'],
      receivedAt: new Date().toISOString(),
      deliveryId: deliveryIdOf(canonicalJson(event)),
    };
    try {
      await client.workflow
        .getHandle(brandWorkflowId(reference(worker)))
        .signal(registryEventSignal, delivery);
      return true;
    } catch (error) {
      noteError(error);
      return false;
    }
  };

  const pool = new Pool(ingress.url, { connections: 16, pipelining: 1 });
  const post = async (worker: number): Promise<boolean> => {
    const event = nextEvent(worker);
    const response = await pool.request({
      path: '/webhooks/registry',
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-registry-signature-256': signEvent(SECRET, WEBHOOK_URL, event),
      },
      body: JSON.stringify(event),
    });
    const text = await response.body.text();
    const ok = response.statusCode === 200 && text.includes('"signalled"');
    if (!ok) noteError(new Error(`${response.statusCode} ${text.slice(0, 200)}`));
    return ok;
  };

  ensureTarget = (i) =>
    client.workflow.signalWithStart('recordingOwner', {
      taskQueue,
      workflowId: brandWorkflowId(reference(i)),
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
  // The edge alone: a signed event with nothing to route by is verified and acknowledged with no hand-off.
  const postNoHandoff = async (): Promise<boolean> => {
    sequence++;
    const event = { eventType: 'BENCH_NO_IDS', cspId: 'CSPLOCAL', description: `bench event ${sequence}` };
    const response = await pool.request({
      path: '/webhooks/registry',
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-registry-signature-256': signEvent(SECRET, WEBHOOK_URL, event),
      },
      body: JSON.stringify(event),
    });
    const text = await response.body.text();
    return response.statusCode === 200 && text.includes('"ignored"');
  };

  const results: PhaseResult[] = [];
  for (const connections of [1, 16]) {
    results.push(await phase('raw signalWithStart', connections, rawSignal));
    results.push(await phase('raw signal', connections, rawPlainSignal));
    results.push(await phase('ingress POST', connections, post));
    results.push(await phase('ingress POST, no hand-off', connections, postNoHandoff));
  }
  await pool.close();

  const table = [
    '| Path | Connections | Events | Events/s | p50 ms | p99 ms | Errors | Ingress / raw signalWithStart | Ingress / raw signal |',
    '|---|---|---|---|---|---|---|---|---|',
    ...results.map((r) => {
      const rate = (name: string) =>
        results.find((x) => x.name === name && x.connections === r.connections)!.perSecond;
      const ratio = (name: string) =>
        r.name === 'ingress POST' ? `${Math.round((100 * r.perSecond) / rate(name))}%` : '';
      return `| ${r.name} | ${r.connections} | ${r.events} | ${r.perSecond} | ${r.p50ms} | ${r.p99ms} | ${r.errors} | ${ratio('raw signalWithStart')} | ${ratio('raw signal')} |`;
    }),
  ].join('\n');
  console.log(`\n${table}\n`);
  if (errorMessages.size > 0) console.log('errors:', Object.fromEntries(errorMessages));
  writeFileSync(
    new URL('./results.json', import.meta.url),
    `${JSON.stringify(
      {
        at: new Date().toISOString(),
        secondsPerPhase: SECONDS,
        cpus: availableParallelism(),
        cpuModel: cpus()[0]?.model,
        node: process.version,
        results,
        errors: Object.fromEntries(errorMessages),
        ingressMetrics: ingress.metrics.snapshot(),
      },
      null,
      2,
    )}\n`,
  );
  expect(results.every((r) => r.events > 0)).toBe(true);
});
