import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { projectRoot } from '../../src/toolchain/paths.js';

export interface IngressProcess {
  child: ChildProcess;
  /** Base URL, e.g. http://127.0.0.1:8470 */
  url: string;
  /**
   * Base URL of /healthz, /readyz and /metrics: the internal listener, or `url` when the process
   * reports none (TCR_INGRESS_INTERNAL_LISTEN=public).
   */
  internalUrl: string;
  /** What the process has written to stdout so far (empty unless `captureStdout`). */
  stdout(): string;
}

/**
 * Starts `tcr ingress` from dist/ (`npm run build` first) as its own process and resolves once it
 * listens. Both its listeners take loopback port 0: the process binds free ports itself and reports
 * them on its "ingress listening on URL (health and metrics URL)" line, so no port is probed and
 * released first. `env` adds to this process's environment (webhook URL and secrets, Temporal
 * address, ...); stdout is thrown away unless `captureStdout`.
 */
export async function startIngressProcess(options: {
  env: Record<string, string>;
  nodeArgs?: string[];
  captureStdout?: boolean;
}): Promise<IngressProcess> {
  const child = spawn(
    process.execPath,
    [...(options.nodeArgs ?? []), join(projectRoot, 'dist/cli/main.js'), 'ingress'],
    {
      env: {
        ...process.env,
        TCR_INGRESS_HOST: '127.0.0.1',
        TCR_INGRESS_PORT: '0',
        TCR_INGRESS_INTERNAL_LISTEN: '127.0.0.1:0',
        // The ingress's own behaviour, not payload keys, is under test here (test/codec covers those).
        TCR_PAYLOAD_ENCRYPTION: 'off',
        ...options.env,
      },
      stdio: ['ignore', options.captureStdout ? 'pipe' : 'ignore', 'pipe'],
    },
  );
  let stdout = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  let stderr = '';
  const [endpoint, internal] = await new Promise<[string, string | undefined]>((resolve, reject) => {
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const listening = /ingress listening on (\S+)(?: \(health and metrics (\S+)\))?\n/.exec(stderr);
      if (listening) resolve([listening[1]!, listening[2]]);
    });
    child.once('exit', (code) =>
      reject(new Error(`ingress exited (${code}) before listening (did you run npm run build?): ${stderr}`)),
    );
  });
  const url = new URL(endpoint).origin;
  return { child, url, internalUrl: internal ? new URL(internal).origin : url, stdout: () => stdout };
}
