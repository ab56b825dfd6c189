/**
 * Closing a Temporal connection while calls are being retried must not end the process.
 *
 * The SDK's retry interceptor retries from a timer; a timer that fires after `close()` throws
 * `Channel has been shut down` uncaught (one full `npm test` run in six died of it, in the local
 * stack's shutdown). Each case runs a connection in its own Node process (dist/: `npm run build`
 * first) against a loopback port nothing listens on, so every call fails UNAVAILABLE and is retried,
 * and closes it 400 ms later, with all three calls still being retried.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const projectRoot = join(import.meta.dirname, '../..');

const CHILD = `
const [which, port] = process.argv.slice(1);
const { Connection } = await import('@temporalio/client');
const { SafelyClosingConnection } = await import(${JSON.stringify(join(projectRoot, 'dist/config/safely-closing-connection.js'))});
const Kind = which === 'sdk' ? Connection : SafelyClosingConnection;
const connection = Kind.lazy({ address: '127.0.0.1:' + port });
const calls = [1, 2, 3].map(() =>
  connection.workflowService.getSystemInfo({}).then(() => 'answered', (error) => 'failed with code ' + error.code),
);
await new Promise((resolve) => setTimeout(resolve, 400));
await connection.close();
console.log(JSON.stringify(await Promise.all(calls)));
`;

/** A loopback port that nothing listens on (taken and released). */
async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

async function closeWhileRetrying(which: 'sdk' | 'safe') {
  const run = spawnSync(
    process.execPath,
    ['--input-type=module', '-e', CHILD, which, String(await deadPort())],
    {
      cwd: projectRoot,
      encoding: 'utf8',
      timeout: 30_000,
    },
  );
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe('closing a connection while its calls are retried', () => {
  it("the SDK's own Connection crashes the process (the race this project guards against)", async () => {
    // When this starts failing, the SDK has fixed the race: SafelyClosingConnection can go.
    const run = await closeWhileRetrying('sdk');
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain('Channel has been shut down');
  });

  it('SafelyClosingConnection closes cleanly: every call fails UNAVAILABLE, the process exits 0', async () => {
    const run = await closeWhileRetrying('safe');
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual([
      'failed with code 14',
      'failed with code 14',
      'failed with code 14',
    ]);
  });

  it('every client connection the product opens is a SafelyClosingConnection', () => {
    const plain: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) walk(path);
        else if (
          path.endsWith('.ts') &&
          /(?<![\w.])Connection\.(connect|lazy)\(/.test(readFileSync(path, 'utf8'))
        ) {
          plain.push(relative(projectRoot, path));
        }
      }
    };
    walk(join(projectRoot, 'src'));
    expect(plain).toEqual([]);
  });
});
