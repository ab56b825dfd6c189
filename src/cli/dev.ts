import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { devServerArgs } from '../toolchain/dev-server.js';
import { projectRoot, temporalCliPath } from '../toolchain/paths.js';

const help = `tcr dev: run the local stack

Starts the Temporal dev server (SQLite persistence, Web UI, the project's search attributes) on
loopback and keeps it running until Ctrl-C. A second start resumes from the same data.

Options:
  --data-dir DIR      where state is kept            (default: .data, env TCR_DATA_DIR)
  --port N            Temporal gRPC port              (default: 7233, env TCR_TEMPORAL_PORT)
  --ui-port N         Temporal Web UI port            (default: 8233, env TCR_UI_PORT)
  --namespace NAME    Temporal namespace              (default: default, env TEMPORAL_NAMESPACE)
  -h, --help          this text`;

export async function runDev(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      'data-dir': { type: 'string', default: process.env.TCR_DATA_DIR ?? join(projectRoot, '.data') },
      port: { type: 'string', default: process.env.TCR_TEMPORAL_PORT ?? '7233' },
      'ui-port': { type: 'string', default: process.env.TCR_UI_PORT ?? '8233' },
      namespace: { type: 'string', default: process.env.TEMPORAL_NAMESPACE ?? 'default' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  if (values.help) {
    console.log(help);
    return 0;
  }
  const port = parsePort('--port', values.port);
  const uiPort = parsePort('--ui-port', values['ui-port']);
  mkdirSync(values['data-dir'], { recursive: true });

  const cli = temporalCliPath();
  const args = devServerArgs({
    ip: '127.0.0.1',
    port,
    uiPort,
    namespace: values.namespace,
    dbFile: join(values['data-dir'], 'temporal.sqlite'),
  });
  const server = spawn(cli, args, { stdio: ['ignore', 'inherit', 'inherit'] });
  console.log(`Temporal dev server  127.0.0.1:${port}  (namespace ${values.namespace})`);
  console.log(`Temporal Web UI      http://127.0.0.1:${uiPort}`);
  console.log('Ctrl-C stops everything.');

  const stop = () => server.kill('SIGTERM');
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return new Promise((resolve) => {
    server.on('exit', (code, signal) => resolve(signal === 'SIGTERM' ? 0 : (code ?? 1)));
  });
}

function parsePort(flag: string, value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 65535)
    throw new Error(`${flag} must be a port number, got '${value}'`);
  return n;
}
