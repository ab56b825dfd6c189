/**
 * The product's worker as its own process (`node dist/cli/main.js worker`), as an operator runs it:
 * configured by the environment only, for the tests whose timings must not share an event loop with
 * the registry they call (the simulator and the counting proxy stamp a call's arrival when their
 * handler runs: workers busy in the same process at a burst's start would stamp its first writes
 * late, and its later ones not); test/fixtures/test-stack.ts (`workers: 'process'`) starts it.
 *
 * bench-stack.ts still spawns its workers with its own copy of this: it is among the paths every
 * worker-backed figure measured (measured-code.ts), so it moves to this module with the next change
 * that re-runs the benches anyway, not alone.
 *
 * It runs the build in dist/, which `npm test` makes first (pretest); run `npm run build` before a
 * test file or bench that starts one.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../src/toolchain/paths.js';

export interface WorkerProcess {
  pid: number;
  child: ChildProcess;
  /** Resolves when the worker said it runs. */
  ready: Promise<void>;
  exited: Promise<number | null>;
}

export interface WorkerProcessOptions {
  temporalAddress: string;
  /** The accounts it serves, as TCR_ACCOUNTS holds them (name, environment, baseUrl, credentials). */
  accounts: readonly object[];
  /** Node options, before the script (e.g. a heap limit). */
  nodeArgs?: string[];
  /** Added to the environment (after the defaults below, before the address and accounts). */
  env?: Record<string, string>;
  /** What the worker writes to stderr (its start-up lines and its log), chunk by chunk. */
  onOutput?: (chunk: string) => void;
}

/** The worker's command line script (from `npm run build`). */
export const workerScript = join(projectRoot, 'dist/cli/main.js');

export function spawnWorkerProcess(options: WorkerProcessOptions): WorkerProcess {
  if (!existsSync(workerScript))
    throw new Error(`${workerScript} is missing: run \`npm run build\` first (npm test does)`);
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), workerScript, 'worker'], {
    env: {
      ...process.env,
      // No metrics endpoint and no sweep Schedule unless the caller asks (a drill's counts are the
      // workers' own calls).
      TCR_WORKER_METRICS_ADDRESS: 'off',
      TCR_SWEEP_EVERY: 'off',
      // The benches' and tests' clients write plain payloads (no keys): so do their workers, explicitly.
      TCR_PAYLOAD_ENCRYPTION: 'off',
      ...options.env,
      TEMPORAL_ADDRESS: options.temporalAddress,
      TEMPORAL_NAMESPACE: 'default',
      TCR_ACCOUNTS: JSON.stringify(options.accounts),
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  // Kept until the worker says it runs (the error of a worker that exits before), then only passed on.
  let startup = '';
  let running = false;
  const ready = new Promise<void>((resolve, reject) => {
    child.stderr?.on('data', (chunk: Buffer) => {
      const text = chunk.toString();
      options.onOutput?.(text);
      if (running) return;
      startup += text;
      if (startup.includes('tcr worker running')) {
        running = true;
        startup = '';
        resolve();
      }
    });
    child.once('exit', (code) => reject(new Error(`worker exited (${code}) before running: ${startup}`)));
  });
  ready.catch(() => undefined);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { pid: child.pid!, child, ready, exited };
}
