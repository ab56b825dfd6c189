import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { DefaultLogger, makeTelemetryFilterString, Runtime } from '@temporalio/worker';
import { DEFAULT_TIME_SCALE, formatChange, startLocalStack } from '../stack/index.js';
import { projectRoot } from '../toolchain/paths.js';
import { untilSignal } from './shutdown.js';

export const devHelp = `tcr dev: run the whole local stack (what \`npm start\` runs)

Starts, in one process:
  - the Temporal dev server (SQLite under the data folder, Web UI, the project's search attributes),
  - the registry simulator (state file under the data folder; its clock runs --time-scale times real time),
  - the workers (workflows and the "local" account's registry activities, pointed at the simulator),
  - the webhook ingress, subscribed to every simulator event category,
  - the codec server the Web UI and the temporal CLI decode the (encrypted) payloads through,
then submits the example orders of examples/ on the first start, and prints each workflow's progress
(phase changes, what it waits for, what needs an operator) until Ctrl-C stops everything.
A second start resumes from the same data folder; examples are not submitted twice.

Options:
  --data-dir DIR        where state is kept                 (default: .data, env TCR_DATA_DIR)
  --port N              Temporal gRPC port                  (default: 7233, env TCR_TEMPORAL_PORT)
  --ui-port N           Temporal Web UI port                (default: 8233, env TCR_UI_PORT)
  --simulator-port N    registry simulator port             (default: 8480, env TCR_SIMULATOR_PORT)
  --ingress-port N      webhook ingress port                (default: 8470, env TCR_INGRESS_PORT)
  --metrics-port N      worker Prometheus metrics port      (default: 9464, env TCR_WORKER_METRICS_PORT)
  --codec-port N        codec server port                   (default: 8234, env TCR_CODEC_PORT)
  --time-scale X        simulated seconds per real second   (default: ${DEFAULT_TIME_SCALE}, env TCR_TIME_SCALE)
  --namespace NAME      Temporal namespace                  (default: default, env TEMPORAL_NAMESPACE)
  --no-examples         do not submit the example orders    (env TCR_NO_EXAMPLES=1)
  --quiet               print the URLs only, no progress    (env TCR_QUIET=1)
  -h, --help            this text

docs/local-stack.md explains every part, the example orders and how to drive scenarios.`;

export async function runDev(argv: string[]): Promise<number> {
  const env = process.env;
  const { values } = parseArgs({
    args: argv,
    options: {
      'data-dir': { type: 'string', default: env.TCR_DATA_DIR ?? join(projectRoot, '.data') },
      port: { type: 'string', default: env.TCR_TEMPORAL_PORT ?? '7233' },
      'ui-port': { type: 'string', default: env.TCR_UI_PORT ?? '8233' },
      'simulator-port': { type: 'string', default: env.TCR_SIMULATOR_PORT ?? '8480' },
      'ingress-port': { type: 'string', default: env.TCR_INGRESS_PORT ?? '8470' },
      'metrics-port': { type: 'string', default: env.TCR_WORKER_METRICS_PORT ?? '9464' },
      'codec-port': { type: 'string', default: env.TCR_CODEC_PORT ?? '8234' },
      'time-scale': { type: 'string', default: env.TCR_TIME_SCALE ?? String(DEFAULT_TIME_SCALE) },
      namespace: { type: 'string', default: env.TEMPORAL_NAMESPACE ?? 'default' },
      'no-examples': { type: 'boolean', default: flag(env.TCR_NO_EXAMPLES) },
      quiet: { type: 'boolean', default: flag(env.TCR_QUIET) },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  if (values.help) {
    console.log(devHelp);
    return 0;
  }
  const port = parsePort('--port', values.port);
  const uiPort = parsePort('--ui-port', values['ui-port']);
  const simulatorPort = parsePort('--simulator-port', values['simulator-port']);
  const ingressPort = parsePort('--ingress-port', values['ingress-port']);
  const metricsPort = parsePort('--metrics-port', values['metrics-port']);
  const codecPort = parsePort('--codec-port', values['codec-port']);
  const timeScale = Number(values['time-scale']);
  if (!Number.isFinite(timeScale) || timeScale <= 0)
    throw usageError(`--time-scale must be a positive number, got '${values['time-scale']}'`);
  const quiet = values.quiet;

  // Before any worker exists: quiet worker logs, and the worker runtime's Prometheus endpoint.
  Runtime.install({
    logger: new DefaultLogger('WARN', (entry) => {
      // Expected with one worker per task queue; not worth a line in the terminal.
      if (/^No (activities|workflows) registered/.test(entry.message)) return;
      console.error(`worker ${entry.level}: ${entry.message}`);
    }),
    telemetryOptions: {
      logging: { filter: makeTelemetryFilterString({ core: 'ERROR', other: 'ERROR' }), forward: {} },
      metrics: { prometheus: { bindAddress: `127.0.0.1:${metricsPort}` } },
    },
  });

  const say = (line: string) => {
    if (!quiet) console.log(line);
  };
  say(`starting the local stack (data in ${values['data-dir']}, simulator at ${timeScale}x real time) ...`);
  const stack = await startLocalStack({
    dataDir: values['data-dir'],
    temporalPort: port,
    uiPort,
    simulatorPort,
    ingressPort,
    codecPort,
    namespace: values.namespace,
    timeScale,
    examples: !values['no-examples'],
    progress: !quiet,
    onProgress: (change) => console.log(formatChange(change)),
    log: (line) => say(`· ${line}`),
  });
  const u = stack.urls;
  console.log(`
Temporal Web UI        ${u.webUi}/namespaces/${u.namespace}/workflows
Temporal (gRPC)        ${u.temporal}  (namespace ${u.namespace})
Codec server           ${u.codecServer}  (payloads are encrypted; the Web UI decodes through it)
temporal CLI           TEMPORAL_CONFIG_FILE=${stack.codec.cliConfigFile} temporal workflow show -w brand/acme-widgets
Simulator API          ${u.simulatorApi}  (Basic local-api-key:local-api-secret)
Simulator control      ${u.simulatorControl}
Ingress webhook        ${u.ingressWebhook}
Ingress health         ${u.ingressHealth}
Metrics                ${u.ingressMetrics} (ingress), http://127.0.0.1:${metricsPort}/metrics (workers)
Examples               ${stack.examples ? (stack.examples.alreadySubmitted.length > 0 && stack.examples.submitted.length === 0 ? 'submitted on an earlier start' : 'submitted') : 'off (--no-examples)'}
Ctrl-C stops everything; the next start resumes.
`);
  return untilSignal(() => stack.stop());
}

function flag(value: string | undefined): boolean {
  return value !== undefined && value !== '' && value !== '0' && value.toLowerCase() !== 'false';
}

function usageError(message: string): Error {
  return Object.assign(new Error(message), { code: 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' });
}

function parsePort(flagName: string, value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw usageError(`${flagName} must be a port number (0 = any free port), got '${value}'`);
  return n;
}
