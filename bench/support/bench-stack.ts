/**
 * The product's local stack, assembled from its parts so a benchmark or drill can reach each one:
 * the Temporal dev server (a child process it can stop and start again on the same port and SQLite
 * file), the simulator (spec rate limits unless told otherwise), a counting proxy in front of the
 * simulator's registry API (every worker's calls go through it), the workers (in this process, or as
 * `node dist/cli/main.js worker` child processes that can be SIGKILLed) and the ingress, subscribed
 * to every event category. Same wiring as `startLocalStack` (src/stack), which does not expose the
 * pieces a fault drill needs.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import type { WorkflowBundleOption } from '@temporalio/worker';
import { dataConverter, failureConverterPath } from '../../src/codec/data-converter.js';
import { SealingCodec } from '../../src/codec/encryption-codec.js';
import { keyringFromEnv } from '../../src/codec/key-file.js';
import { PublicKeys } from '../../src/codec/public-keys.js';
import { WORKFLOW_TASK_QUEUE } from '../../src/contracts/task-queues.js';
import {
  createIngressClient,
  ingressDataConverter,
  parseIngressConfig,
  type RunningIngress,
  startIngress,
} from '../../src/ingress/index.js';
import { SimulatorControl } from '../../src/simulator/control-client.js';
import {
  DEFAULT_ACCOUNT,
  type RunningSimulator,
  type SimulatorDelays,
  startSimulator,
} from '../../src/simulator/index.js';
import { freePort, isAddressInUse, startOnProbedPorts } from '../../src/stack/ports.js';
import { type RunningDevServer, startDevServer } from '../../src/stack/temporal-dev-server.js';
import { subscribeIngress } from '../../src/stack/webhooks.js';
import { projectRoot } from '../../src/toolchain/paths.js';
import { createWorkers, type RunningWorkers, workflowsPath } from '../../src/workers/create-workers.js';
import { workflowBundle } from '../../test/support/temporal-env.js';
import { type CountingProxy, startCountingProxy } from './counting-proxy.js';

export const ACCOUNT = 'local';
/** The registry's write window plus a margin (see setupWritesLeftWindow). */
const SETUP_WRITE_WINDOW_MS = 10_500;
const WEBHOOK_SECRET = 'bench-webhook-secret-0123456789abcdef';

export interface BenchStackOptions {
  timeScale?: number;
  /** Simulator rate limits (default the spec's 20 GET/s and 20 writes / 10 s; false = off). */
  rateLimits?: { getsPerSecond: number; writesPer10Seconds: number } | false;
  delays?: Partial<SimulatorDelays>;
  /** 'in-process' (default) or 'process': `node dist/cli/main.js worker` children (needs `npm run build`). */
  workers?: 'in-process' | 'process' | 'none';
  /**
   * The worker's registry budget for the account (its `rateLimits` setting; default the spec's). The
   * scale benchmark raises it, with the simulator's limits off, to set up thousands of workflows.
   */
  workerRateLimits?: { getsPerSecond: number; writesPer10Seconds: number };
  /**
   * Whether the dev server keeps its state in a SQLite file (default true: drills restart it). The
   * scale benchmark turns it off: with 10,000 workflows the file's writes, not the worker, set the pace.
   */
  persistence?: boolean;
  /** Ingress hand-off deadline before it gives up on an event (default the ingress's own). */
  handoffTimeoutMs?: number;
  /** What the ingress answers a failed hand-off: close the connection or 503 (default the ingress's own). */
  handoffFailure?: 'close' | '503';
  /** Delivery ids the ingress edge remembers to skip exact duplicates (default the ingress's 10 000). */
  ingressRecentDeliveries?: number;
}

export interface WorkerProcess {
  pid: number;
  child: ChildProcess;
  /** Resolves when the worker said it runs. */
  ready: Promise<void>;
  exited: Promise<number | null>;
}

export interface BenchStack {
  /** Temporary folder of this stack (removed at stop). */
  dataDir: string;
  client: Client;
  control: SimulatorControl;
  sim: RunningSimulator;
  proxy: CountingProxy;
  ingress: RunningIngress;
  webhookUrl: string;
  webhookSecret: string;
  temporalAddress: string;
  /** The dev server's process id (its memory is measured by the estate benchmark). */
  devServerPid(): number | undefined;
  /** Stops the Temporal dev server (SIGTERM, waited for). */
  stopTemporal(): Promise<void>;
  /** Starts it again on the same port and SQLite file. */
  startTemporal(): Promise<void>;
  /** Starts a worker child process (workers: 'process'); `nodeArgs` go before the script, `env` is added. */
  startWorkerProcess(extra?: { nodeArgs?: string[]; env?: Record<string, string> }): WorkerProcess;
  /**
   * Resolves once the stack's own setup writes (the ingress's webhook subscriptions, sent straight to
   * the simulator, outside the workers' budget) have left the registry's 10 s window: a test or bench
   * that asserts "no 429" starts its writes after this.
   */
  setupWritesLeftWindow(): Promise<void>;
  /** The in-process workers (workers: 'in-process'). */
  inProcessWorkers?: RunningWorkers;
  stop(): Promise<void>;
}

/** The benchmarks' account (`local`, the simulator's default credentials), its registry at `baseUrl`. */
export function benchAccount(baseUrl: string) {
  return {
    name: ACCOUNT,
    environment: 'local' as const,
    baseUrl,
    apiKey: DEFAULT_ACCOUNT.apiKey,
    apiSecret: DEFAULT_ACCOUNT.apiSecret,
    cspId: DEFAULT_ACCOUNT.cspId,
  };
}

export async function startBenchStack(options: BenchStackOptions = {}): Promise<BenchStack> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tcr-bench-'));
  const cleanups: (() => Promise<void>)[] = [async () => rmSync(dataDir, { recursive: true, force: true })];
  const stop = async () => {
    for (const step of cleanups.splice(0).reverse()) await step().catch(() => undefined);
  };
  try {
    const mode = options.workers ?? 'in-process';
    const bundle: Promise<WorkflowBundleOption> | undefined =
      mode === 'in-process' ? workflowBundle(workflowsPath) : undefined;
    bundle?.catch(() => undefined);

    // The dev server is another process that takes port numbers: they are probed, and it is started
    // again on fresh ones if another process took one before it bound it (src/stack/ports.ts). A
    // restart after stopTemporal() reuses the same ports: the clients and workers dial that address.
    const first = await startOnProbedPorts({
      probed: true,
      retryable: (error) => String(error).includes('exited'),
      start: async () => {
        const devServerOptions = {
          port: await freePort(),
          uiPort: await freePort(),
          namespace: 'default',
          ...(options.persistence === false ? {} : { dbFile: join(dataDir, 'temporal.sqlite') }),
        };
        return { devServerOptions, devServer: await startDevServer(devServerOptions) };
      },
    });
    const { devServerOptions } = first;
    let devServer: RunningDevServer | undefined = first.devServer;
    cleanups.push(async () => devServer?.stop());
    const temporalAddress = devServer.address;
    const connection = await Connection.connect({ address: temporalAddress });
    cleanups.push(() => connection.close());
    // The product's data converter, as every client and worker uses: payloads encrypted when
    // TCR_PAYLOAD_KEYS_FILE is set (the workers and the ingress read the same variable).
    const client = new Client({ connection, namespace: 'default', dataConverter: dataConverter() });

    const sim = await startSimulator({
      timeScale: options.timeScale ?? 3600,
      rateLimits: options.rateLimits,
      ...(options.delays ? { delays: options.delays } : {}),
    });
    cleanups.push(() => sim.close());
    const control = new SimulatorControl(sim.url);
    const proxy = await startCountingProxy(sim.url);
    cleanups.push(() => proxy.close());
    const account = {
      ...benchAccount(proxy.url),
      ...(options.workerRateLimits ? { rateLimits: options.workerRateLimits } : {}),
    };

    let inProcessWorkers: RunningWorkers | undefined;
    if (mode === 'in-process') {
      const workers = await createWorkers(
        { temporal: { address: temporalAddress, namespace: 'default' }, accounts: [account] },
        { workflowBundle: await bundle! },
      );
      const running = workers.run().catch((error: unknown) => console.error('worker failed', error));
      cleanups.push(async () => {
        await workers.shutdown();
        await running;
      });
      inProcessWorkers = workers;
    }

    const children = new Set<ChildProcess>();
    cleanups.push(async () => {
      for (const child of children) child.kill('SIGKILL');
    });
    const startWorkerProcess = (
      extra: { nodeArgs?: string[]; env?: Record<string, string> } = {},
    ): WorkerProcess => {
      const script = join(projectRoot, 'dist/cli/main.js');
      const child = spawn(process.execPath, [...(extra.nodeArgs ?? []), script, 'worker'], {
        env: {
          ...process.env,
          // No metrics endpoint and no sweep Schedule unless the caller asks (a drill's counts are
          // the workers' own calls).
          TCR_WORKER_METRICS_ADDRESS: 'off',
          TCR_SWEEP_EVERY: 'off',
          // The bench's clients write plain payloads (no keys): so do its workers, explicitly.
          TCR_PAYLOAD_ENCRYPTION: 'off',
          ...extra.env,
          TEMPORAL_ADDRESS: temporalAddress,
          TEMPORAL_NAMESPACE: 'default',
          TCR_ACCOUNTS: JSON.stringify([account]),
        },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      children.add(child);
      let stderr = '';
      const ready = new Promise<void>((resolve, reject) => {
        child.stderr?.on('data', (chunk: Buffer) => {
          stderr += chunk.toString();
          if (stderr.includes('tcr worker running')) resolve();
        });
        child.once('exit', (code) => reject(new Error(`worker exited (${code}) before running: ${stderr}`)));
      });
      ready.catch(() => undefined);
      const exited = new Promise<number | null>((resolve) =>
        child.once('exit', (code) => {
          children.delete(child);
          resolve(code);
        }),
      );
      return { pid: child.pid!, child, ready, exited };
    };

    // The ingress's webhook URL (signed by the simulator) names its port, so the port is probed
    // before it listens, and the ingress started again on a fresh one if it was taken meanwhile.
    const { ingress, ingressClient, webhookUrl } = await startOnProbedPorts({
      probed: true,
      retryable: isAddressInUse,
      start: async () => {
        const ingressPort = await freePort();
        const webhookUrl = `http://127.0.0.1:${ingressPort}/webhooks/registry`;
        const ingressConfig = parseIngressConfig({
          TCR_INGRESS_HOST: '127.0.0.1',
          TCR_INGRESS_PORT: String(ingressPort),
          TCR_WEBHOOK_URL: webhookUrl,
          TCR_WEBHOOK_SECRETS: WEBHOOK_SECRET,
          TCR_INGRESS_ACCOUNTS: ACCOUNT,
          TCR_PARKED_EVENTS_TASK_QUEUE: WORKFLOW_TASK_QUEUE,
          TEMPORAL_ADDRESS: temporalAddress,
          TEMPORAL_NAMESPACE: 'default',
          TCR_INGRESS_LOG_LEVEL: 'silent',
          // Health and metrics on a free loopback port: 8471 may be another ingress's (a local stack).
          TCR_INGRESS_INTERNAL_LISTEN: '127.0.0.1:0',
          ...(options.handoffTimeoutMs
            ? { TCR_INGRESS_HANDOFF_TIMEOUT_MS: String(options.handoffTimeoutMs) }
            : {}),
          ...(options.handoffFailure ? { TCR_INGRESS_HANDOFF_FAILURE: options.handoffFailure } : {}),
        });
        // The ingress holds public keys only (issue 35, item 3): it seals to the key file's ingress key.
        const ring = keyringFromEnv();
        const ingressClient = createIngressClient(
          ingressConfig,
          ring
            ? { failureConverterPath, payloadCodecs: [new SealingCodec(PublicKeys.of(ring))] }
            : ingressDataConverter({}, { required: false }),
        );
        try {
          const ingress = await startIngress({
            config: ingressConfig,
            client: ingressClient,
            ...(options.ingressRecentDeliveries ? { recentDeliveries: options.ingressRecentDeliveries } : {}),
          });
          return { ingress, ingressClient, webhookUrl };
        } catch (error) {
          await ingressClient.connection.close().catch(() => undefined);
          throw error;
        }
      },
    });
    cleanups.push(() => ingressClient.connection.close());
    cleanups.push(() => ingress.close());
    await subscribeIngress({
      simulatorUrl: sim.url,
      control,
      account: DEFAULT_ACCOUNT,
      webhookUrl,
      secret: WEBHOOK_SECRET,
    });
    // The subscriptions are writes on the account that bypass the workers' budget (and the proxy).
    const setupWritesDoneAt = Date.now();

    return {
      dataDir,
      client,
      control,
      sim,
      proxy,
      ingress,
      webhookUrl,
      webhookSecret: WEBHOOK_SECRET,
      temporalAddress,
      devServerPid: () => devServer?.pid,
      stopTemporal: async () => {
        await devServer?.stop();
        devServer = undefined;
      },
      startTemporal: async () => {
        devServer = await startDevServer(devServerOptions);
      },
      startWorkerProcess,
      setupWritesLeftWindow: async () => {
        const wait = setupWritesDoneAt + SETUP_WRITE_WINDOW_MS - Date.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      },
      ...(inProcessWorkers ? { inProcessWorkers } : {}),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
