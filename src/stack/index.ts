/**
 * The local stack in one process: the Temporal dev server (child process, SQLite under the data
 * folder, Web UI), the registry simulator, the workers and the webhook ingress subscribed to the
 * simulator, plus the example orders and a progress watcher. `startLocalStack` is what `tcr dev`
 * (npm start) runs; tests start it on free ports with a temporary data folder.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@temporalio/client';
import { bundleWorkflowCode, type WorkflowBundleOption } from '@temporalio/worker';
import type { RunningCodecServer } from '../codec/codec-server.js';
import { dataConverter, failureConverterPath } from '../codec/data-converter.js';
import { messageOf } from '../common/error-message.js';
import { SafelyClosingConnection } from '../config/safely-closing-connection.js';
import { loadSweepConfig, type SweepConfig } from '../config/sweep-config.js';
import type { WorkerConfig } from '../config/worker-config.js';
import { EXAMPLE_ORDERS_NAMESPACE } from '../contracts/nexus-service.js';
import { WORKFLOW_TASK_QUEUE } from '../contracts/task-queues.js';
import {
  createIngressClient,
  ingressDataConverter,
  parseIngressConfig,
  type RunningIngress,
  startIngress,
} from '../ingress/index.js';
import { SimulatorControl } from '../simulator/control-client.js';
import { DEFAULT_ACCOUNT, type RunningSimulator, startSimulator } from '../simulator/index.js';
import { createWorkers, type RunningWorkers, workflowsPath } from '../workers/create-workers.js';
import { workflowPreloadModules } from '../workers/workflow-preload.js';
import { startLocalCodec, writeTemporalCliConfig } from './codec.js';
import { type ExampleSubmission, loadExamples, submitExamples } from './examples.js';
import {
  DEFAULT_TIME_SCALE,
  defaultDataDir,
  defaultExamplesDir,
  LOCAL_ACCOUNT_NAME,
  type LocalStackOptions,
} from './options.js';
import { type RunningOrderSystem, startExampleOrderSystem } from './order-system.js';
import { isAddressInUse, portOrFree, startOnProbedPorts } from './ports.js';
import { ProgressWatcher } from './progress.js';
import { settleWithin } from './settle.js';
import { type RunningDevServer, startDevServer } from './temporal-dev-server.js';
import { localWebhookSecret, subscribeIngress } from './webhooks.js';

export type { LocalStackOptions } from './options.js';
export { DEFAULT_TIME_SCALE, LOCAL_ACCOUNT_NAME } from './options.js';
export { formatChange, type ProgressChange, ProgressWatcher, type WorkflowProgress } from './progress.js';

export interface LocalStackUrls {
  /** Temporal Web UI, e.g. http://127.0.0.1:8233 */
  webUi: string;
  /** The codec server the Web UI and the `temporal` CLI decode payloads through (needs its token). */
  codecServer: string;
  /** Temporal frontend (gRPC) host:port. */
  temporal: string;
  namespace: string;
  /** Simulator registry API base (…/v2). */
  simulatorApi: string;
  /** Simulator control API base (…/control). */
  simulatorControl: string;
  /** The webhook URL registered with the simulator. */
  ingressWebhook: string;
  /** Ingress health / readiness / metrics. */
  ingressHealth: string;
  ingressMetrics: string;
}

export interface LocalStack {
  urls: LocalStackUrls;
  dataDir: string;
  /**
   * Payload encryption: the key file (TCR_PAYLOAD_KEYS_FILE for a CLI or order system on this stack),
   * the codec server's token, and the `temporal` CLI profile that uses it (TEMPORAL_CONFIG_FILE).
   */
  codec: { keysFile: string; token: string; cliConfigFile: string; server: RunningCodecServer };
  /** A Temporal client on the stack's namespace (payloads encrypted with the stack's key). */
  client: Client;
  /** The simulator's control API. */
  control: SimulatorControl;
  /** What the example submission did (undefined with examples: false). */
  examples?: ExampleSubmission;
  /** The example order system in namespace `orders` (undefined when off). */
  orderSystem?: RunningOrderSystem;
  /** The progress watcher (undefined with progress: false). */
  progress?: ProgressWatcher;
  /** Stops everything, in order: progress, ingress, workers (graceful), simulator (flushes state), dev server. */
  stop(): Promise<void>;
}

const silent = () => {};
const bundlerLogger = {
  log: silent,
  trace: silent,
  debug: silent,
  info: silent,
  warn: (message: string) => console.warn(message),
  error: (message: string) => console.error(message),
};

/** A stop step still running after this is reported on stderr. */
const SLOW_STOP_STEP_MS = 20_000;
/** How long a stop waits for background work (example submissions, status queries) before closing. */
const STOP_GRACE_MS = 5_000;

export async function startLocalStack(options: LocalStackOptions = {}): Promise<LocalStack> {
  const log = options.log ?? silent;
  const dataDir = options.dataDir ?? defaultDataDir();
  const namespace = options.namespace ?? 'default';
  mkdirSync(dataDir, { recursive: true });
  // The example order system (namespace `orders`, examples/order-system) runs beside the examples.
  const orderSystemOn = options.orderSystem ?? options.examples !== false;
  const cleanups: (() => Promise<void>)[] = [];
  const cleanup = async () => {
    for (const step of cleanups.splice(0).reverse()) {
      // A stop step still running after SLOW_STOP_STEP_MS is named on stderr (a Ctrl-C once waited
      // 240 s in CI; which step held it is not known yet): its code's first words, as the steps have
      // no names.
      const slow = setTimeout(() => {
        const code = step.toString().replace(/\s+/g, ' ').slice(0, 100);
        process.stderr.write(`stopping the stack: still waiting on ${code}\n`);
      }, SLOW_STOP_STEP_MS);
      await step().catch(() => undefined);
      clearTimeout(slow);
    }
  };

  try {
    // Bundling takes seconds of CPU: start it while the dev server boots.
    const bundle: Promise<WorkflowBundleOption> = options.workflowBundle
      ? Promise.resolve(options.workflowBundle)
      : bundleWorkflowCode({
          workflowsPath,
          failureConverterPath,
          preloadModules: workflowPreloadModules(),
          logger: bundlerLogger,
        });
    bundle.catch(() => undefined);

    // 0. Payload encryption: the stack's own key (data folder, 0600) and the codec server the Web UI
    // and the `temporal` CLI decode through (codec port 0: it binds any free port and hands it over).
    // 1. The Temporal dev server, its Web UI decoding through that codec server. The dev server is
    // another process that must be given port numbers: ports asked for as 0 are probed free first,
    // and as another process can take one before the server binds it, a dev server that exits while
    // starting on probed ports is started again on fresh ones (3 tries; see startOnProbedPorts).
    const probed = options.temporalPort === 0 || options.uiPort === 0;
    const { codec, devServer } = await startOnProbedPorts({
      probed,
      retryable: (error) => String(error).includes('exited'),
      onRetry: () =>
        log('Temporal dev server exited while starting (a probed port was taken?); trying fresh ports'),
      start: async () => {
        const temporalPort = await portOrFree(options.temporalPort ?? 7233);
        const uiPort = await portOrFree(options.uiPort ?? 8233);
        const codec = await startLocalCodec({ dataDir, port: options.codecPort ?? 8234, uiPort });
        try {
          const devServer: RunningDevServer = await startDevServer({
            port: temporalPort,
            uiPort,
            namespace,
            extraNamespaces: orderSystemOn ? [EXAMPLE_ORDERS_NAMESPACE] : [],
            dbFile: join(dataDir, 'temporal.sqlite'),
            uiCodecEndpoint: codec.uiEndpoint,
            output: options.devServerOutput ? 'inherit' : 'ignore',
          });
          return { codec, devServer };
        } catch (error) {
          await codec.server.close();
          throw error;
        }
      },
    });
    cleanups.push(() => codec.server.close());
    const converter = dataConverter({ keyring: codec.keyring });
    cleanups.push(() => devServer.stop());
    log(`Temporal dev server ready on ${devServer.address}`);
    const cliConfigFile = writeTemporalCliConfig({
      dataDir,
      address: devServer.address,
      namespace,
      codecUrl: codec.server.url,
      token: codec.token,
    });

    const connection = await SafelyClosingConnection.connect({ address: devServer.address });
    cleanups.push(() => connection.close());
    const client = new Client({ connection, namespace, dataConverter: converter });

    // 2. Simulator.
    const simulator: RunningSimulator = await startSimulator({
      port: options.simulatorPort ?? 8480,
      stateFile: join(dataDir, 'simulator.json'),
      timeScale: options.timeScale ?? DEFAULT_TIME_SCALE,
      ...(options.maxRecordsPerPage !== undefined ? { maxRecordsPerPage: options.maxRecordsPerPage } : {}),
      ...(options.strict ? { strict: true } : {}),
      ...(options.simulatorDelays ? { delays: options.simulatorDelays } : {}),
    });
    cleanups.push(() => simulator.close());
    const control = new SimulatorControl(simulator.url);

    // 3. Workers: the product's workflows and the local account's registry activities.
    const config: WorkerConfig = {
      temporal: { address: devServer.address, namespace },
      accounts: [
        {
          name: LOCAL_ACCOUNT_NAME,
          environment: 'local',
          baseUrl: simulator.url,
          apiKey: DEFAULT_ACCOUNT.apiKey,
          apiSecret: DEFAULT_ACCOUNT.apiSecret,
          cspId: DEFAULT_ACCOUNT.cspId,
        },
      ],
      // The estate sweep's Schedule, as `tcr worker` sets it (TCR_SWEEP_EVERY, default hourly).
      sweep: sweepSettings(options.sweepEvery),
    };
    const workers: RunningWorkers = await createWorkers(config, {
      workflowBundle: await bundle,
      dataConverter: converter,
    });
    for (const s of workers.sweepSchedules ?? [])
      log(
        s.outcome === 'failed'
          ? `WARNING the sweep Schedule of account ${s.account} could not be set: ${s.error}`
          : `estate sweep of account ${s.account}: every ${s.every} (Schedule ${s.outcome})`,
      );
    const workersRun = workers.run().catch((error: unknown) => {
      log(`worker failed: ${messageOf(error)}`);
    });
    cleanups.push(async () => {
      await workers.shutdown();
      await workersRun;
    });

    // 4. Ingress, subscribed to every event category of the simulator.
    // Its webhook URL (which the registry signs) names its port, so the port must be known before it
    // listens: a port asked for as 0 is probed, and if another process takes it before the ingress
    // binds it, the ingress is started again on a fresh one (3 tries).
    const secret = localWebhookSecret(dataDir);
    const { ingress, ingressClient, webhookUrl } = await startOnProbedPorts({
      probed: options.ingressPort === 0,
      retryable: isAddressInUse,
      onRetry: () => log('the ingress port probed free was taken before it bound it; trying a fresh one'),
      start: async () => {
        const ingressPort = await portOrFree(options.ingressPort ?? 8470);
        const webhookUrl = `http://127.0.0.1:${ingressPort}/webhooks/registry`;
        const ingressConfig = parseIngressConfig({
          TCR_INGRESS_HOST: '127.0.0.1',
          TCR_INGRESS_PORT: String(ingressPort),
          TCR_WEBHOOK_URL: webhookUrl,
          TCR_WEBHOOK_SECRETS: secret,
          // The stack's one account: its secret verifies events for that account's workflows only.
          TCR_INGRESS_ACCOUNTS: `${LOCAL_ACCOUNT_NAME}=${DEFAULT_ACCOUNT.cspId}`,
          // The stack's worker hosts parkedEvents with every other workflow.
          TCR_PARKED_EVENTS_TASK_QUEUE: WORKFLOW_TASK_QUEUE,
          TEMPORAL_ADDRESS: devServer.address,
          TEMPORAL_NAMESPACE: namespace,
          TCR_INGRESS_LOG_LEVEL: options.ingressLogLevel ?? 'warn',
          // Health, readiness and metrics on their own loopback listener, any free port.
          TCR_INGRESS_INTERNAL_LISTEN: '127.0.0.1:0',
        });
        // The ingress holds the public ingress keys only: it seals, and decrypts no history.
        const ingressClient = createIngressClient(
          ingressConfig,
          ingressDataConverter({ TCR_INGRESS_PAYLOAD_PUBLIC_KEYS_FILE: codec.publicKeysFile }),
        );
        try {
          const ingress: RunningIngress = await startIngress({
            config: ingressConfig,
            client: ingressClient,
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
      simulatorUrl: simulator.url,
      control,
      account: DEFAULT_ACCOUNT,
      webhookUrl,
      secret,
    });

    // 5. Progress, then 6. examples (so their first phases show).
    let stopping = false;
    let progress: ProgressWatcher | undefined;
    if (options.progress !== false) {
      progress = new ProgressWatcher(client, options.onProgress ?? silent);
      progress.start();
      cleanups.push(() => progress?.stop() ?? Promise.resolve());
    }
    let examples: ExampleSubmission | undefined;
    if (options.examples !== false) {
      examples = await submitExamples(
        client,
        dataDir,
        loadExamples(options.examplesDir ?? defaultExamplesDir()),
        {
          log,
          isStopping: () => stopping,
        },
      );
      // A vet example waits for its brand and for its update's outcome: on stop it gets a few seconds
      // to finish, then the connection closes under it (it is ordered again at the next start).
      const pending = examples.done;
      cleanups.push(() => settleWithin(pending, STOP_GRACE_MS));
    }

    let orderSystem: RunningOrderSystem | undefined;
    if (orderSystemOn) {
      orderSystem = await startExampleOrderSystem({
        address: devServer.address,
        connection,
        dataConverter: converter,
        productNamespace: namespace,
        examplesDir: options.examplesDir ?? defaultExamplesDir(),
        ...(options.orderSystemBundle ? { workflowBundle: options.orderSystemBundle } : {}),
        log,
      });
      const running = orderSystem;
      cleanups.push(() => running.stop());
    }

    const urls: LocalStackUrls = {
      webUi: devServer.uiUrl,
      codecServer: codec.server.url,
      temporal: devServer.address,
      namespace,
      simulatorApi: simulator.apiBaseUrl,
      simulatorControl: `${simulator.url}/control`,
      ingressWebhook: webhookUrl,
      ingressHealth: `${ingress.internalUrl}/healthz`,
      ingressMetrics: `${ingress.internalUrl}/metrics`,
    };
    let stopped: Promise<void> | undefined;
    return {
      urls,
      dataDir,
      codec: { keysFile: codec.keysFile, token: codec.token, cliConfigFile, server: codec.server },
      client,
      control,
      ...(examples ? { examples } : {}),
      ...(progress ? { progress } : {}),
      ...(orderSystem ? { orderSystem } : {}),
      stop() {
        stopping = true;
        stopped ??= cleanup();
        return stopped;
      },
    };
  } catch (error) {
    await cleanup();
    throw error;
  }
}

/** The stack's sweep settings: a worker's defaults, every `sweepEvery` (`off`: no Schedule). */
function sweepSettings(sweepEvery: string | undefined): SweepConfig {
  const problems: string[] = [];
  const sweep = loadSweepConfig(sweepEvery ? { TCR_SWEEP_EVERY: sweepEvery } : {}, problems);
  if (problems.length > 0) throw new Error(`sweepEvery: ${problems.join('; ')}`);
  return sweep;
}
