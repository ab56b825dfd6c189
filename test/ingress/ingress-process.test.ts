/**
 * `tcr ingress` as its own process (the build in dist/, which `npm test` makes first): its log lines
 * reach stdout through a buffer, within about a second, and whatever is buffered when it is told to
 * stop is written before it exits.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { signEvent } from '../../src/ingress/signature.js';
import { freePort } from '../../src/stack/ports.js';
import { projectRoot } from '../../src/toolchain/paths.js';

const WEBHOOK_URL = 'https://csp.example/webhooks/registry';
const SECRET = 'process-secret';

it('writes each event to the log within a second and flushes the rest on SIGTERM', async () => {
  const port = await freePort();
  const child = spawn(process.execPath, [join(projectRoot, 'dist/cli/main.js'), 'ingress'], {
    env: {
      ...process.env,
      TCR_INGRESS_HOST: '127.0.0.1',
      TCR_INGRESS_PORT: String(port),
      TCR_WEBHOOK_URL: WEBHOOK_URL,
      TCR_WEBHOOK_SECRETS: SECRET,
      TEMPORAL_ADDRESS: '127.0.0.1:1', // events with nothing to route by never need Temporal
      TCR_INGRESS_LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  try {
    await new Promise<void>((resolve, reject) => {
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        if (stderr.includes('ingress listening')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`ingress exited (${code}): ${stderr}`)));
    });
    const post = async (n: number) => {
      const event = { eventType: 'SOMETHING_NEW', cspId: 'CSPLOCAL', description: `process test ${n}` };
      const response = await fetch(`http://127.0.0.1:${port}/webhooks/registry`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-registry-signature-256': signEvent(SECRET, WEBHOOK_URL, event),
        },
        body: JSON.stringify(event),
      });
      expect(response.status).toBe(200);
      return ((await response.json()) as { deliveryId: string }).deliveryId;
    };

    const first = await post(1);
    const started = Date.now();
    while (!stdout.includes(first) && Date.now() - started < 5_000) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(stdout).toContain(first);
    expect(Date.now() - started).toBeLessThan(2_500);

    const second = await post(2);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(stdout).toContain(second);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
  }
});
