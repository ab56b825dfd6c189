/**
 * `tcr worker`: the workflow worker and the per-account registry workers (src/workers), configured
 * from the environment (src/config: TEMPORAL_*, TCR_ACCOUNTS / TCR_ACCOUNTS_FILE), until SIGINT /
 * SIGTERM, then a graceful shutdown (running tasks finish; Temporal hands the rest to other workers).
 */
import { ConfigError, describeWorkerConfig, loadWorkerConfig } from '../config/worker-config.js';
import { installWorkerRuntime } from '../observability/runtime.js';
import { createWorkers, type RunningWorkers } from '../workers/create-workers.js';
import { parseCommand } from './args.js';
import type { CliCommand } from './command.js';
import { CliError, ExitCode } from './errors.js';
import { stopSignal } from './events.js';
import { help } from './output.js';

const workerHelp = `tcr worker: run the workers (workflows on tcr-workflows; registry reads and writes per CSP account)

Configuration comes from the environment (README has the table):
  TEMPORAL_ADDRESS (default 127.0.0.1:7233), TEMPORAL_NAMESPACE (default default), TEMPORAL_API_KEY,
  TEMPORAL_TLS_CERT / TEMPORAL_TLS_KEY / TEMPORAL_TLS_CA,
  TCR_ACCOUNTS (JSON array of {name, environment, baseUrl, apiKey, apiSecret, cspId?}) or TCR_ACCOUNTS_FILE.
Flags override the connection variables. Ctrl-C (SIGINT) or SIGTERM stops it gracefully.

Options:
  --address HOST:PORT  Temporal frontend (overrides TEMPORAL_ADDRESS)
  --namespace NAME     Temporal namespace (overrides TEMPORAL_NAMESPACE)
  -h, --help           this text`;

export const workerCommand: CliCommand = {
  summary: 'run the workflow and registry workers until Ctrl-C',
  help: workerHelp,
  async run(argv, ctx) {
    const parsed = parseCommand(argv, { help: workerHelp, options: {}, json: false });
    if (parsed === 'help') return help(ctx, workerHelp);
    const env = { ...ctx.env };
    if (parsed.values.address) env.TEMPORAL_ADDRESS = parsed.values.address;
    if (parsed.values.namespace) env.TEMPORAL_NAMESPACE = parsed.values.namespace;
    let config: ReturnType<typeof loadWorkerConfig>;
    try {
      config = loadWorkerConfig(env);
    } catch (error) {
      if (error instanceof ConfigError) throw new CliError(error.message, ExitCode.usage);
      throw error;
    }
    // Prometheus metrics (TCR_WORKER_METRICS_ADDRESS) and JSON logs (TCR_WORKER_LOG_LEVEL) for the
    // worker runtime: installed before the first connection of the process.
    let runtime: ReturnType<typeof installWorkerRuntime>;
    try {
      runtime = installWorkerRuntime(env);
    } catch (error) {
      throw new CliError(error instanceof Error ? error.message : String(error), ExitCode.usage);
    }
    if (runtime.prometheusBindAddress)
      ctx.io.err(`worker metrics http://${runtime.prometheusBindAddress}/metrics`);
    ctx.io.err(`tcr worker starting ${JSON.stringify(describeWorkerConfig(config))}`);
    let workers: RunningWorkers;
    try {
      workers = await createWorkers(config);
    } catch (error) {
      throw new CliError(
        `workers could not start: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    const shutdown = () => workers.shutdown(); // idempotent
    const stop = stopSignal(ctx);
    const onStop = () => {
      ctx.io.err('tcr worker: stopping gracefully ...');
      shutdown().catch((error: unknown) =>
        ctx.io.err(
          `tcr worker: error while stopping: ${error instanceof Error ? error.message : String(error)}`,
        ),
      );
    };
    if (stop.aborted) onStop();
    else stop.addEventListener('abort', onStop, { once: true });
    ctx.io.err(`tcr worker running (${workers.workers.length} workers); Ctrl-C stops it`);
    try {
      await workers.run();
    } catch (error) {
      await shutdown().catch(() => undefined);
      throw new CliError(`a worker failed: ${error instanceof Error ? error.message : String(error)}`);
    }
    await shutdown();
    ctx.io.err('tcr worker stopped');
    return 0;
  },
};
