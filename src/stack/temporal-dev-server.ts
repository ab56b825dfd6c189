/** The Temporal dev server as a child process: SQLite file, Web UI, the project's search attributes. */
import { type ChildProcess, spawn } from 'node:child_process';
import { SafelyClosingConnection } from '../config/safely-closing-connection.js';
import { devServerArgs } from '../toolchain/dev-server.js';
import { temporalCliPath } from '../toolchain/paths.js';
import { waitForTcp } from './ports.js';

export interface DevServerStartOptions {
  port: number;
  uiPort: number;
  namespace: string;
  /** More namespaces to create (e.g. the example order system's `orders`). */
  extraNamespaces?: string[];
  /** SQLite file; undefined keeps the server's state in memory. */
  dbFile?: string;
  /** Where the server's own output goes (default: dropped). */
  output?: 'inherit' | 'ignore';
  /** The Web UI's remote codec endpoint (`--ui-codec-endpoint`): the browser decodes payloads there. */
  uiCodecEndpoint?: string;
  /** How long to wait for the server to accept gRPC calls (default 60 s). */
  startTimeoutMs?: number;
}

export interface RunningDevServer {
  address: string;
  uiUrl: string;
  pid: number | undefined;
  /** SIGTERM, then wait for exit (SIGKILL after `graceMs`, default 10 s). */
  stop(graceMs?: number): Promise<void>;
}

export async function startDevServer(opts: DevServerStartOptions): Promise<RunningDevServer> {
  const args = [
    ...devServerArgs({
      ip: '127.0.0.1',
      port: opts.port,
      uiPort: opts.uiPort,
      namespace: opts.namespace,
      ...(opts.dbFile !== undefined ? { dbFile: opts.dbFile } : {}),
    }),
    ...(opts.uiCodecEndpoint !== undefined ? ['--ui-codec-endpoint', opts.uiCodecEndpoint] : []),
    ...(opts.extraNamespaces ?? []).flatMap((name) => ['--namespace', name]),
  ];
  const child: ChildProcess = spawn(temporalCliPath(), args, {
    stdio: ['ignore', opts.output ?? 'ignore', opts.output ?? 'ignore'],
    // Its own process group: Ctrl-C reaches only us, and we stop the server last, after the workers.
    detached: true,
  });
  // If this process dies without stop(), do not leave the server behind.
  const killOnExit = () => child.kill('SIGTERM');
  process.once('exit', killOnExit);
  let exited = false;
  const exit = new Promise<void>((resolve) => {
    child.once('exit', () => {
      exited = true;
      resolve();
    });
  });
  const address = `127.0.0.1:${opts.port}`;
  const stop = async (graceMs = 10_000) => {
    if (exited) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await exit;
    clearTimeout(timer);
    process.off('exit', killOnExit);
  };
  try {
    const timeoutMs = opts.startTimeoutMs ?? 60_000;
    await waitForTcp('127.0.0.1', opts.port, timeoutMs, () => !exited);
    await waitForFrontend(address, opts.namespace, timeoutMs);
    await waitForTcp('127.0.0.1', opts.uiPort, timeoutMs, () => !exited);
  } catch (error) {
    await stop(2_000);
    throw error;
  }
  return { address, uiUrl: `http://127.0.0.1:${opts.uiPort}`, pid: child.pid, stop };
}

/** The port accepts before the frontend serves: wait until the namespace can be described. */
async function waitForFrontend(address: string, namespace: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const connection = await SafelyClosingConnection.connect({ address, connectTimeout: 2_000 });
      try {
        await connection.workflowService.describeNamespace({ namespace });
        return;
      } finally {
        await connection.close();
      }
    } catch (error) {
      lastError = error;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  throw new Error(
    `the Temporal dev server at ${address} did not serve namespace ${namespace} within ${timeoutMs} ms: ${lastError instanceof Error ? lastError.message : String(lastError)}`,
  );
}
