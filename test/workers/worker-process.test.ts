/**
 * `tcr worker` as its own process (dist/cli/main.js: run `npm run build` first), against a dev
 * server of its own: it exits non-zero naming what failed when it cannot start, and exits on
 * SIGTERM in every state (starting, running, shutting down; a second SIGTERM during a graceful
 * shutdown exits at once), and on SIGTERM its registry activities drain before its workflow workers
 * stop, so a write about to reserve its instant is still answered and sent.
 *
 * `tcr ingress` is checked for the one case where it shared the bug: a SIGTERM while its connection
 * to Temporal is still being made.
 *
 * Two time bounds. A worker that cannot start used to print its error and then never exit, which
 * only a bound can show: 60 s, against the 1 to 2 s the exit takes on this machine under load (the
 * namespace is checked before the workflow bundle is built). An ingress stopped while connecting
 * used to exit only when the SDK's connection attempt gave up, 30 s after it began: the bound is
 * 20 s, under those 30 s and far over the 1 s the exit takes now. Every other wait is for an event:
 * a line of output, a connection or a request reaching a test server, the process's exit.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { type AddressInfo, createServer as createTcpServer, type Server as TcpServer } from 'node:net';
import { join } from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startCountingProxy } from '../../bench/support/counting-proxy.js';
import { startBrandOrder, waitForBrandPhase } from '../../src/orders/index.js';
import { projectRoot } from '../../src/toolchain/paths.js';
import { brandRegistration } from '../fixtures/workflow-harness.js';
import {
  activityOutcomes,
  HOLD_NEXT_BRAND_LOOKUP,
  isBrandCreate,
  isBrandLookupFor,
  simulatorAccount,
  startTestSimulator,
} from '../fixtures/workflow-simulator.js';
import { startIngressProcess } from '../support/ingress-process.js';
import { startCollector } from '../support/otlp-collector.js';
import { devServerEnv } from '../support/temporal-env.js';

/** The two entry points: `tcr worker` and the worker's own (`node dist/workers/main.js`). */
const TCR_WORKER = [join(projectRoot, 'dist/cli/main.js'), 'worker'];
const WORKERS_MAIN = [join(projectRoot, 'dist/workers/main.js')];
/** Why these tests have a bound at all: see the header. */
const START_FAILURE_BOUND_MS = 60_000;
const INGRESS_STOP_BOUND_MS = 20_000;

/** The process's exit, or 'still running' after `ms`. */
async function exitWithin(
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>,
  ms: number,
): Promise<{ code: number | null; signal: NodeJS.Signals | null } | 'still running'> {
  let bound: NodeJS.Timeout | undefined;
  return Promise.race([
    exited,
    new Promise<'still running'>((resolve) => {
      bound = setTimeout(() => resolve('still running'), ms);
    }),
  ]).finally(() => clearTimeout(bound));
}

interface TcrProcess {
  child: ChildProcess;
  /** stdout and stderr so far, interleaved. */
  output(): string;
  /** Resolves when the output holds `text`; rejects if the process exits first. */
  waitFor(text: string): Promise<void>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const children: ChildProcess[] = [];

function tcrWorker(env: Record<string, string>, entry = TCR_WORKER): TcrProcess {
  const child = spawn(process.execPath, entry, {
    env: {
      ...process.env,
      // Never the machine's temporal.toml; no metrics port; only the lines the test reads, and warnings.
      TEMPORAL_CONFIG_FILE: '/nonexistent/temporal.toml',
      TCR_WORKER_METRICS_ADDRESS: 'off',
      TCR_WORKER_LOG_LEVEL: 'warn',
      TCR_PAYLOAD_KEYS_FILE: '',
      TCR_PAYLOAD_KEYS: '',
      TCR_PAYLOAD_ENCRYPTION: 'off',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  const listeners = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    output += chunk.toString();
    for (const listener of listeners) listener();
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return {
    child,
    output: () => output,
    exited,
    waitFor(text) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (!output.includes(text)) return;
          listeners.delete(check);
          resolve();
        };
        listeners.add(check);
        check();
        void exited.then(({ code, signal }) => {
          if (!output.includes(text))
            reject(new Error(`tcr worker exited (${code ?? signal}) before '${text}':\n${output}`));
        });
      });
    },
  };
}

function accounts(baseUrl: string): string {
  return JSON.stringify([{ name: 'acme', environment: 'local', baseUrl, apiKey: 'k', apiSecret: 's' }]);
}

/** A registry that takes requests and never answers them; `requested` resolves at the first. */
async function silentRegistry(): Promise<{ url: string; requested: Promise<void>; server: Server }> {
  let onRequest: () => void = () => undefined;
  const requested = new Promise<void>((resolve) => {
    onRequest = resolve;
  });
  const server = createServer(() => onRequest());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v2`, requested, server };
}

/** A "Temporal" that accepts connections and never answers; `connected` resolves at the first. */
async function silentTemporal(): Promise<{ address: string; connected: Promise<void>; server: TcpServer }> {
  let onConnection: () => void = () => undefined;
  const connected = new Promise<void>((resolve) => {
    onConnection = resolve;
  });
  const server = createTcpServer((socket) => {
    socket.on('error', () => undefined);
    onConnection();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { address: `127.0.0.1:${(server.address() as AddressInfo).port}`, connected, server };
}

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await devServerEnv();
});
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});
afterAll(async () => {
  await env?.teardown();
});

describe('tcr worker (process)', () => {
  it.each([
    ['tcr worker', TCR_WORKER],
    ['node dist/workers/main.js', WORKERS_MAIN],
  ])(
    '%s exits 1 naming the namespace when the server does not know it',
    async (_, entry) => {
      const namespace = `nope-${randomUUID().slice(0, 8)}`;
      const worker = tcrWorker(
        {
          TEMPORAL_ADDRESS: env.address,
          TEMPORAL_NAMESPACE: namespace,
          TCR_ACCOUNTS: accounts('http://127.0.0.1:9/v2'),
        },
        entry,
      );
      const outcome = await exitWithin(worker.exited, START_FAILURE_BOUND_MS);
      expect(outcome, worker.output()).toEqual({ code: 1, signal: null });
      expect(worker.output()).toContain(
        `workers could not start: namespace '${namespace}' not found on the Temporal server at ${env.address}`,
      );
    },
    START_FAILURE_BOUND_MS + 30_000,
  );

  it('exits 0 on SIGTERM while it is still connecting to Temporal', async () => {
    const temporal = await silentTemporal();
    try {
      const worker = tcrWorker({
        TEMPORAL_ADDRESS: temporal.address,
        TCR_ACCOUNTS: accounts('http://127.0.0.1:9/v2'),
      });
      await temporal.connected; // the worker is waiting for Temporal's answer
      worker.child.kill('SIGTERM');
      expect(await worker.exited, worker.output()).toEqual({ code: 0, signal: null });
      expect(worker.output()).toContain('tcr worker: stopped before the workers started');
    } finally {
      temporal.server.close();
    }
  });

  it('exits 0 on SIGTERM while running, after a graceful shutdown', async () => {
    const worker = tcrWorker({
      TEMPORAL_ADDRESS: env.address,
      TCR_ACCOUNTS: accounts('http://127.0.0.1:9/v2'),
    });
    await worker.waitFor('tcr worker running (6 workers)'); // workflows (and the Nexus service), notifications, write budgets, reads, writes, interactive writes
    worker.child.kill('SIGTERM');
    expect(await worker.exited, worker.output()).toEqual({ code: 0, signal: null });
    expect(worker.output()).toContain('tcr worker: stopping gracefully');
    expect(worker.output()).toContain('tcr worker stopped');
  });

  it('on SIGTERM, a write that is about to reserve its instant still gets it from the budget workflow and is sent once', async () => {
    // The create's look-up by referenceId (inside the write activity, before its permit) is held at
    // the simulator, and SIGTERM comes meanwhile. The workflow workers must outlive the activities
    // they answer: the Runtime's own signal handlers stopped every worker at once, and the write then
    // waited out the 30 s grace for a reservation nobody answered and was cancelled, never sent.
    const harness = await startTestSimulator({ rateLimits: false });
    const proxy = await startCountingProxy(harness.sim.url);
    const reference = `sigterm-write-${randomUUID().slice(0, 8)}`;
    let handle: Awaited<ReturnType<typeof startBrandOrder>>['handle'] | undefined;
    try {
      const account = { ...simulatorAccount(harness.sim, 'acme'), baseUrl: proxy.url };
      const worker = tcrWorker({ TEMPORAL_ADDRESS: env.address, TCR_ACCOUNTS: JSON.stringify([account]) });
      await worker.waitFor('tcr worker running');
      await harness.control.addFault(HOLD_NEXT_BRAND_LOOKUP);
      ({ handle } = await startBrandOrder(env.client, {
        reference,
        account: 'acme',
        brand: brandRegistration(),
      }));
      while (!proxy.inFlight().some(isBrandLookupFor(reference))) await new Promise((r) => setTimeout(r, 10));
      worker.child.kill('SIGTERM');
      expect(await worker.exited, worker.output()).toEqual({ code: 0, signal: null });
      expect(
        proxy.calls.filter(isBrandCreate).map((c) => ({ status: c.status, callerGone: c.callerGone })),
      ).toEqual([{ status: 200, callerGone: false }]);
      const events = (await handle.fetchHistory()).events ?? [];
      expect(activityOutcomes(events, 'registerBrand')).toEqual(['completed']);
      expect(
        events.filter((e) => e.activityTaskFailedEventAttributes || e.activityTaskCanceledEventAttributes),
      ).toEqual([]);
    } finally {
      await handle?.terminate().catch(() => undefined);
      await proxy.close();
      await harness.sim.close();
    }
  });

  it('with OTEL_EXPORTER_OTLP_ENDPOINT, exports its activity and registry spans and flushes them on SIGTERM', async () => {
    const harness = await startTestSimulator({ rateLimits: false });
    const collector = await startCollector();
    const reference = `traced-${randomUUID().slice(0, 8)}`;
    const brand = brandRegistration({ companyName: 'Tracewell Process Inc', ein: '98-7654000' });
    const account = simulatorAccount(harness.sim, 'acme');
    let handle: Awaited<ReturnType<typeof startBrandOrder>>['handle'] | undefined;
    try {
      const worker = tcrWorker({
        TEMPORAL_ADDRESS: env.address,
        TCR_ACCOUNTS: JSON.stringify([account]),
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      });
      await worker.waitFor('tcr worker running');
      ({ handle } = await startBrandOrder(env.client, { reference, account: 'acme', brand }));
      await waitForBrandPhase(env.client, reference, 'ready', 60_000);
      worker.child.kill('SIGTERM');
      expect(await worker.exited, worker.output()).toEqual({ code: 0, signal: null });
      // Batched while it ran; whatever was left, the graceful exit flushed.
      const traces = collector.traces();
      for (const name of ['RunActivity:registerBrand', 'registry POST /brand/nonBlocking', 'tcr-worker'])
        expect(traces, name).toContain(name);
      for (const secret of [brand.ein!, brand.email, brand.companyName!, account.apiKey, account.apiSecret])
        expect(traces, secret).not.toContain(secret);
    } finally {
      await handle?.terminate().catch(() => undefined);
      await collector.close();
      await harness.sim.close();
    }
  });

  it('a second SIGTERM during a graceful shutdown that waits for a registry call exits at once (143)', async () => {
    const registry = await silentRegistry();
    const reference = `second-signal-${randomUUID().slice(0, 8)}`;
    let handle: Awaited<ReturnType<typeof startBrandOrder>>['handle'] | undefined;
    try {
      const worker = tcrWorker({ TEMPORAL_ADDRESS: env.address, TCR_ACCOUNTS: accounts(registry.url) });
      await worker.waitFor('tcr worker running');
      ({ handle } = await startBrandOrder(env.client, {
        reference,
        account: 'acme',
        brand: brandRegistration(),
      }));
      await registry.requested; // an activity is in flight: a graceful shutdown waits for it
      worker.child.kill('SIGTERM');
      await worker.waitFor('tcr worker: stopping gracefully');
      worker.child.kill('SIGTERM');
      expect(await worker.exited, worker.output()).toEqual({ code: 143, signal: null });
      expect(worker.output()).toContain('SIGTERM received again, exiting now');
      expect(worker.output()).not.toContain('tcr worker stopped');
    } finally {
      await handle?.terminate().catch(() => undefined);
      registry.server.closeAllConnections();
      registry.server.close();
    }
  });
});

describe('tcr ingress (process)', () => {
  it('exits 0 on SIGTERM while its connection to Temporal is still being made (no request in flight)', async () => {
    const temporal = await silentTemporal();
    try {
      const ingress = await startIngressProcess({
        env: {
          TEMPORAL_ADDRESS: temporal.address,
          TEMPORAL_CONFIG_FILE: '/nonexistent/temporal.toml',
          TCR_WEBHOOK_URL: 'http://127.0.0.1:8470/webhooks/registry',
          TCR_WEBHOOK_SECRETS: 'a-webhook-secret-of-at-least-32-bytes',
          TCR_INGRESS_ACCOUNTS: 'acme',
        },
      });
      children.push(ingress.child);
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
        ingress.child.once('exit', (code, signal) => resolve({ code, signal })),
      );
      // The ingress connects on first use: a readiness probe makes it connect. The probe then gives
      // up (as a probe with a timeout does), so no request of its is left for the ingress to finish.
      const probe = new AbortController();
      const probed = fetch(`${ingress.internalUrl}/readyz`, { signal: probe.signal }).catch(() => undefined);
      await temporal.connected;
      probe.abort();
      await probed;
      ingress.child.kill('SIGTERM');
      expect(await exitWithin(exited, INGRESS_STOP_BOUND_MS)).toEqual({ code: 0, signal: null });
    } finally {
      temporal.server.close();
    }
  });
});
