import { join } from 'node:path';
import type { WorkflowBundleOption } from '@temporalio/worker';
import type { SimulatorDelays } from '../simulator/index.js';
import { projectRoot } from '../toolchain/paths.js';
import type { ProgressChange } from './progress.js';

export interface LocalStackOptions {
  /**
   * Where state lives: temporal.sqlite, simulator.json, webhook-secret, payload-keys.json, codec-token,
   * temporal-cli.toml, examples-submitted.json (default .data).
   */
  dataDir?: string;
  /** Temporal gRPC port (default 7233; 0 = a free one). */
  temporalPort?: number;
  /** Temporal Web UI port (default 8233; 0 = a free one). */
  uiPort?: number;
  /** Codec server port, for the Web UI and the `temporal` CLI (default 8234; 0 = a free one). */
  codecPort?: number;
  /** Simulator port (default 8480; 0 = ephemeral). */
  simulatorPort?: number;
  /** Ingress port (default 8470; 0 = a free one). */
  ingressPort?: number;
  /** Temporal namespace (default `default`). */
  namespace?: string;
  /** Simulated seconds per real second in the simulator (default 60: a simulated hour per real minute). */
  timeScale?: number;
  /** The simulator's page cap: a list page holds at most this many records (default: none). */
  maxRecordsPerPage?: number;
  /** The simulator answers only what the registry's spec documents (default false). */
  strict?: boolean;
  /** Submit the bundled example orders on first start (default true). */
  examples?: boolean;
  /**
   * Run the example order system (namespace `orders`, the Nexus endpoint `tcr-orders`, its orders in
   * examples/order-system/orders): default when `examples` is on.
   */
  orderSystem?: boolean;
  /** A prebuilt bundle of examples/order-system/workflows.ts (tests). */
  orderSystemBundle?: WorkflowBundleOption;
  /** Folder of the example orders (default examples/ of the project). */
  examplesDir?: string;
  /** Watch the workflows and report changes (default true). */
  progress?: boolean;
  /** Called for each progress change (default: none; the CLI prints them). */
  onProgress?: (change: ProgressChange) => void;
  /** Informational lines (examples submitted, ...). */
  log?: (line: string) => void;
  /** Show the Temporal dev server's own output (default false). */
  devServerOutput?: boolean;
  /** Ingress log level (default warn). */
  ingressLogLevel?: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** Simulator scenario delays (simulated seconds), over the simulator's defaults. */
  simulatorDelays?: Partial<SimulatorDelays>;
  /**
   * How often the local account's estate sweep runs (`1h` by default, as a worker's TCR_SWEEP_EVERY);
   * `off` creates no Schedule.
   */
  sweepEvery?: string;
  /** A prebuilt workflow bundle (tests); default: bundle the product's workflows (src/workflows) at start. */
  workflowBundle?: WorkflowBundleOption;
}

export const LOCAL_ACCOUNT_NAME = 'local';
export const DEFAULT_TIME_SCALE = 60;

export const defaultDataDir = () => join(projectRoot, '.data');
export const defaultExamplesDir = () => join(projectRoot, 'examples');
