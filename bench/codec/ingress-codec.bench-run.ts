/**
 * What payload encryption costs the ingress and a Temporal client, measured side by side in one run
 * against one dev server: two `tcr ingress` processes (dist/, `npm run build` first), one without a
 * key and one with the public ingress keys (TCR_INGRESS_PAYLOAD_PUBLIC_KEYS_FILE: it seals each payload,
 * since issue 35 item 3), and a plain Temporal client without and with
 * `dataConverter()`. Signed events go to existing workflows (no worker polls them, so the server only
 * records the signals), at 1 connection (how the registry delivers) and at 16. The machine is small
 * and shared, so the paths are interleaved in every round and the ratios are given both as pooled
 * rates and as the median over rounds of the ratio within a round.
 *
 *   npx vitest run --config bench/codec/vitest.config.ts bench/codec/ingress-codec.bench-run.ts
 *   # ~3 min; writes bench/codec/results-ingress.<time>.json
 *
 * BENCH_SECONDS (default 2) sets each phase's length, BENCH_ROUNDS (default 6) the rounds.
 */
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Pool } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  dataConverter,
  Keyring,
  PublicKeys,
  writeKeyFile,
  writePublicKeyFile,
} from '../../src/codec/index.js';
import { brandWorkflowId } from '../../src/contracts/ids.js';
import { type RegistryEventDelivery, registryEventSignal } from '../../src/contracts/signals.js';
import { canonicalJson, deliveryIdOf, signEvent } from '../../src/ingress/signature.js';
import { startIngressProcess } from '../../test/support/ingress-process.js';
import { devServerEnv } from '../../test/support/temporal-env.js';
import { writeResults } from '../support/results.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 2);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const WARMUP_MS = 500;
const WEBHOOK_URL = 'https://csp.example/webhooks/registry';
const SECRET = 'bench-secret-0123456789abcdefghijklmnop';
/** The account the bench's workflows and the ingress's secret belong to (workflow ids carry it). */
const BENCH_ACCOUNT = 'acme';
const TARGETS = 32;
const taskQueue = `bench-codec-${randomUUID()}`;
const run = randomUUID().slice(0, 8);
let phaseTag = 'warm';
const reference = (i: number) => `codec-${run}-${phaseTag}-${i % TARGETS}`;

let sequence = 0;
function nextEvent(i: number): Record<string, unknown> {
  sequence++;
  return {
    eventType: 'BRAND_IDENTITY_STATUS_UPDATE',
    brandReferenceId: reference(i),
    brandId: `BCODEC${i % TARGETS}`,
    brandIdentityStatus: 'VERIFIED',
    description: `bench event ${sequence}`,
    cspId: 'CSPLOCAL',
  };
}
const deliveryFor = (event: Record<string, unknown>): RegistryEventDelivery => ({
  event: event as RegistryEventDelivery['event'],
  receivedAt: new Date().toISOString(),
  deliveryId: deliveryIdOf(canonicalJson(event)),
});

type Path = (worker: number) => () => Promise<boolean>;

interface Accumulator {
  latencies: number[];
  seconds: number;
  errors: number;
  roundRates: number[];
}

const errorMessages = new Map<string, number>();
function noteError(error: unknown): void {
  const message = (error instanceof Error ? `${error.name}: ${error.message}` : String(error)).slice(0, 200);
  errorMessages.set(message, (errorMessages.get(message) ?? 0) + 1);
}

let env: TestWorkflowEnvironment;
const dir = mkdtempSync(join(tmpdir(), 'tcr-bench-codec-'));
const keysFile = join(dir, 'payload-keys.json');
const publicKeysFile = join(dir, 'ingress-public-keys.json');
const keyring = Keyring.generate('bench').withNewSealingKey('bench-ingress');
const ingresses: Record<'plain' | 'encrypted', { child: ChildProcess; url: string }> = {} as never;
let ensureTarget: (i: number) => Promise<unknown> = async () => {};

beforeAll(async () => {
  chmodSync(dir, 0o700);
  writeKeyFile(keysFile, keyring);
  writePublicKeyFile(publicKeysFile, PublicKeys.of(keyring));
  env = await devServerEnv();
  for (const kind of ['plain', 'encrypted'] as const) {
    const ingress = await startIngressProcess({
      env: {
        TCR_WEBHOOK_URL: WEBHOOK_URL,
        TCR_WEBHOOK_SECRETS: SECRET,
        TCR_INGRESS_ACCOUNTS: BENCH_ACCOUNT,
        TCR_PARKED_EVENTS_TASK_QUEUE: taskQueue,
        TEMPORAL_ADDRESS: env.address,
        TEMPORAL_NAMESPACE: 'default',
        TCR_INGRESS_LOG_LEVEL: 'info',
        // The plain one must not inherit a key file from this process's environment.
        TCR_INGRESS_PAYLOAD_PUBLIC_KEYS_FILE: kind === 'encrypted' ? publicKeysFile : '',
        TCR_PAYLOAD_KEYS_FILE: '',
        TCR_PAYLOAD_KEYS: '',
      },
    });
    ingresses[kind] = ingress;
  }
}, 180_000);

afterAll(async () => {
  for (const { child } of Object.values(ingresses)) {
    if (child.exitCode !== null) continue;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
  await env?.teardown();
  rmSync(dir, { recursive: true, force: true });
}, 60_000);

async function phase(name: string, connections: number, round: number, path: Path, into: Accumulator) {
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
  await Promise.all(Array.from({ length: TARGETS }, (_, i) => ensureTarget(i)));
  await Promise.all(
    Array.from({ length: connections }, (_, w) => loop(w, Date.now() + WARMUP_MS, undefined)),
  );
  const latencies: number[] = [];
  const started = performance.now();
  const until = Date.now() + SECONDS * 1000;
  await Promise.all(Array.from({ length: connections }, (_, w) => loop(w, until, latencies)));
  const elapsed = (performance.now() - started) / 1000;
  into.latencies.push(...latencies);
  into.seconds += elapsed;
  into.roundRates.push(Math.round(latencies.length / elapsed));
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};
const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;

it('measures the ingress and a client with and without payload encryption', async () => {
  const plainClient = env.client;
  const encryptingClient = new Client({
    connection: env.connection,
    namespace: 'default',
    dataConverter: dataConverter({ keyring }),
  });
  ensureTarget = (i) =>
    plainClient.workflow.signalWithStart('recordingOwner', {
      taskQueue,
      workflowId: brandWorkflowId(BENCH_ACCOUNT, reference(i)),
      args: [{ kind: 'brand', reference: reference(i) }],
      signal: registryEventSignal,
      signalArgs: [
        { event: { eventType: 'BENCH_START' }, receivedAt: new Date().toISOString(), deliveryId: `s-${i}` },
      ],
    });
  const rawSignal =
    (client: Client): Path =>
    (worker) => {
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
  const pools = {
    plain: new Pool(ingresses.plain.url, { connections: 16, pipelining: 1 }),
    encrypted: new Pool(ingresses.encrypted.url, { connections: 16, pipelining: 1 }),
  };
  const post =
    (kind: 'plain' | 'encrypted'): Path =>
    (worker) => {
      const event = nextEvent(worker);
      const headers = {
        'content-type': 'application/json',
        'x-registry-signature-256': signEvent(SECRET, WEBHOOK_URL, event),
      };
      const body = JSON.stringify(event);
      return async () => {
        try {
          const response = await pools[kind].request({
            path: '/webhooks/registry',
            method: 'POST',
            headers,
            body,
          });
          const text = await response.body.text();
          const ok = response.statusCode === 200 && text.includes('"signalled"');
          if (!ok) noteError(new Error(`${response.statusCode} ${text.slice(0, 200)}`));
          return ok;
        } catch (error) {
          noteError(error);
          return false;
        }
      };
    };
  const paths: [string, Path][] = [
    ['ingress POST, plain', post('plain')],
    ['ingress POST, encrypted', post('encrypted')],
    ['client signal, plain', rawSignal(plainClient)],
    ['client signal, encrypted', rawSignal(encryptingClient)],
  ];
  const loadBefore = loadavg()[0]!;
  const results: {
    name: string;
    connections: number;
    events: number;
    perSecond: number;
    p50ms: number;
    p99ms: number;
    errors: number;
    roundRates: number[];
  }[] = [];
  for (const connections of [1, 16]) {
    const acc = paths.map((): Accumulator => ({ latencies: [], seconds: 0, errors: 0, roundRates: [] }));
    for (let round = 0; round < ROUNDS; round++)
      for (const [i, [name, path]] of paths.entries()) await phase(name, connections, round, path, acc[i]!);
    for (const [i, [name]] of paths.entries()) {
      const a = acc[i]!;
      const sorted = [...a.latencies].sort((x, y) => x - y);
      results.push({
        name,
        connections,
        events: sorted.length,
        perSecond: Math.round(sorted.length / a.seconds),
        p50ms: Number(percentile(sorted, 50).toFixed(2)),
        p99ms: Number(percentile(sorted, 99).toFixed(2)),
        errors: a.errors,
        roundRates: a.roundRates,
      });
    }
  }
  await Promise.all([pools.plain.close(), pools.encrypted.close()]);
  const find = (name: string, connections: number) =>
    results.find((r) => r.name === name && r.connections === connections)!;
  const ratios = ['ingress POST', 'client signal'].flatMap((what) =>
    [1, 16].map((connections) => {
      const plain = find(`${what}, plain`, connections);
      const encrypted = find(`${what}, encrypted`, connections);
      return {
        what,
        connections,
        pooledEncryptedVsPlain: Number((encrypted.perSecond / plain.perSecond).toFixed(3)),
        medianRoundEncryptedVsPlain: Number(
          median(encrypted.roundRates.map((rate, i) => rate / plain.roundRates[i]!)).toFixed(3),
        ),
      };
    }),
  );
  for (const r of results) console.log(JSON.stringify(r));
  console.log('encrypted ÷ plain:', JSON.stringify(ratios));
  if (errorMessages.size > 0) console.log('errors:', Object.fromEntries(errorMessages));
  writeResults(new URL('./results-ingress.json', import.meta.url), {
    benchmark: 'ingress and client with and without payload encryption',
    at: new Date().toISOString(),
    secondsPerPhase: SECONDS,
    rounds: ROUNDS,
    node: process.version,
    loadAverage1m: { before: Number(loadBefore.toFixed(2)), after: Number(loadavg()[0]!.toFixed(2)) },
    results,
    ratios,
    errors: Object.fromEntries(errorMessages),
  });
  expect(results.every((r) => r.events > 0 && r.errors === 0)).toBe(true);
}, 1_800_000);
