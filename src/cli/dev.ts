import { DefaultLogger, makeTelemetryFilterString, Runtime } from '@temporalio/worker';
import { OWN_SHUTDOWN_SIGNALS } from '../observability/metrics.js';
import { parseDevOptions } from '../stack/dev-options.js';
import { DEFAULT_TIME_SCALE, formatChange, startLocalStack } from '../stack/index.js';
import { isAddressInUse, portOrFree, startOnProbedPorts } from '../stack/ports.js';
import { untilSignal } from './shutdown.js';

export const devHelp = `tcr dev: run the whole local stack (what \`npm start\` runs)

Starts, in one process:
  - the Temporal dev server (SQLite under the data folder, Web UI, the project's search attributes),
  - the registry simulator (state file under the data folder; its clock runs --time-scale times real time),
  - the workers (workflows and the "local" account's registry activities, pointed at the simulator),
  - the webhook ingress, subscribed to every simulator event category,
  - the codec server the Web UI and the temporal CLI decode the (encrypted) payloads through,
  - the example order system (namespace orders, Nexus endpoint tcr-orders: docs/order-systems.md),
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
  --max-records-per-page N  the simulator's page cap: a list page holds at most N records
                        whatever recordsPerPage asks    (default: none, env TCR_MAX_RECORDS_PER_PAGE)
  --strict              the simulator answers only what the registry's spec documents
                                                            (env TCR_STRICT=1)
  --namespace NAME      Temporal namespace                  (default: default, env TEMPORAL_NAMESPACE)
  --no-examples         do not submit the example orders    (env TCR_NO_EXAMPLES=1)
  --quiet               print the URLs only, no progress    (env TCR_QUIET=1)
  -h, --help            this text

docs/local-stack.md explains every part, the example orders and how to drive scenarios.`;

export async function runDev(argv: string[]): Promise<number> {
  const options = parseDevOptions(argv, process.env);
  if (options === 'help') {
    console.log(devHelp);
    return 0;
  }
  const { timeScale, quiet } = options;

  // Before any worker exists: quiet worker logs, and the worker runtime's Prometheus endpoint. The
  // exporter must be given a port and does not report the one it bound, so 0 (any free port) is
  // probed here, and the Runtime installed again on a fresh port if it was taken meanwhile.
  const metricsPort = await startOnProbedPorts({
    probed: options.metricsPort === 0,
    retryable: isAddressInUse,
    start: async () => {
      const port = await portOrFree(options.metricsPort);
      Runtime.install({
        // untilSignal below stops the stack, workers in order (see OWN_SHUTDOWN_SIGNALS).
        shutdownSignals: OWN_SHUTDOWN_SIGNALS,
        logger: new DefaultLogger('WARN', (entry) => {
          // Expected with one worker per task queue; not worth a line in the terminal.
          if (/^No (activities|workflows) registered/.test(entry.message)) return;
          console.error(`worker ${entry.level}: ${entry.message}`);
        }),
        telemetryOptions: {
          logging: { filter: makeTelemetryFilterString({ core: 'ERROR', other: 'ERROR' }), forward: {} },
          metrics: { prometheus: { bindAddress: `127.0.0.1:${port}` } },
        },
      });
      return port;
    },
  });

  const say = (line: string) => {
    if (!quiet) console.log(line);
  };
  const simulatorMode = [
    `${timeScale}x real time`,
    ...(options.strict ? ['strict'] : []),
    ...(options.maxRecordsPerPage !== undefined ? [`pages of at most ${options.maxRecordsPerPage}`] : []),
  ].join(', ');
  say(`starting the local stack (data in ${options.dataDir}, simulator at ${simulatorMode}) ...`);
  const stack = await startLocalStack({
    dataDir: options.dataDir,
    temporalPort: options.temporalPort,
    uiPort: options.uiPort,
    simulatorPort: options.simulatorPort,
    ingressPort: options.ingressPort,
    codecPort: options.codecPort,
    namespace: options.namespace,
    timeScale,
    ...(options.maxRecordsPerPage !== undefined ? { maxRecordsPerPage: options.maxRecordsPerPage } : {}),
    strict: options.strict,
    examples: options.examples,
    progress: !quiet,
    onProgress: (change) => console.log(formatChange(change)),
    log: (line) => say(`· ${line}`),
  });
  const u = stack.urls;
  console.log(`
Temporal Web UI        ${u.webUi}/namespaces/${u.namespace}/workflows
Temporal (gRPC)        ${u.temporal}  (namespace ${u.namespace})
Codec server           ${u.codecServer}  (payloads are encrypted; the Web UI decodes through it)
temporal CLI           TEMPORAL_CONFIG_FILE=${stack.codec.cliConfigFile} temporal workflow show -w brand/local/acme-widgets
Simulator API          ${u.simulatorApi}  (Basic local-api-key:local-api-secret)
Simulator control      ${u.simulatorControl}
Ingress webhook        ${u.ingressWebhook}
Ingress health         ${u.ingressHealth}
Metrics                ${u.ingressMetrics} (ingress), http://127.0.0.1:${metricsPort}/metrics (workers)
Examples               ${stack.examples ? (stack.examples.alreadySubmitted.length > 0 && stack.examples.submitted.length === 0 ? 'submitted on an earlier start' : 'submitted') : 'off (--no-examples)'}
Order system           ${stack.orderSystem ? `namespace orders, endpoint tcr-orders (${u.webUi}/namespaces/orders/workflows)` : 'off (--no-examples)'}
Ctrl-C stops everything; the next start resumes.
`);
  return untilSignal(() => stack.stop());
}
