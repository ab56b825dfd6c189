import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { freePort } from '../../src/stack/ports.js';
import { projectRoot } from '../../src/toolchain/paths.js';

export interface IngressProcess {
  child: ChildProcess;
  /** Base URL, e.g. http://127.0.0.1:8470 */
  url: string;
  /** What the process has written to stdout so far (empty unless `captureStdout`). */
  stdout(): string;
}

/**
 * Starts `tcr ingress` from dist/ (`npm run build` first) as its own process on a free loopback
 * port, and resolves once it listens. `env` adds to this process's environment (webhook URL and
 * secrets, Temporal address, ...); stdout is thrown away unless `captureStdout`.
 */
export async function startIngressProcess(options: {
  env: Record<string, string>;
  nodeArgs?: string[];
  captureStdout?: boolean;
}): Promise<IngressProcess> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [...(options.nodeArgs ?? []), join(projectRoot, 'dist/cli/main.js'), 'ingress'],
    {
      env: { ...process.env, TCR_INGRESS_HOST: '127.0.0.1', TCR_INGRESS_PORT: String(port), ...options.env },
      stdio: ['ignore', options.captureStdout ? 'pipe' : 'ignore', 'pipe'],
    },
  );
  let stdout = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  let stderr = '';
  await new Promise<void>((resolve, reject) => {
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (stderr.includes('ingress listening')) resolve();
    });
    child.once('exit', (code) =>
      reject(new Error(`ingress exited (${code}) before listening (did you run npm run build?): ${stderr}`)),
    );
  });
  return { child, url: `http://127.0.0.1:${port}`, stdout: () => stdout };
}
