/**
 * `tcr worker`: the workflow worker and the per-account registry workers (src/workers), configured
 * from the environment (src/config: TEMPORAL_*, TCR_ACCOUNTS / TCR_ACCOUNTS_FILE), until SIGINT /
 * SIGTERM, then a graceful shutdown (running tasks finish; Temporal hands the rest to other workers).
 */
import { type dataConverter, requiredDataConverter } from '../codec/data-converter.js';
import { messageOf } from '../common/error-message.js';
import { ConfigError, describeWorkerConfig, loadWorkerConfig } from '../config/worker-config.js';
import { installWorkerRuntime } from '../observability/runtime.js';
import { startTracing } from '../observability/tracing.js';
import { exitWhenDone, stopOnSignals } from '../workers/process-signals.js';
import { registrationGaugesForProcess } from '../workers/registration-gauges.js';
import { runWorkersUntilStopped } from '../workers/run-workers.js';
import { type CliCommand, defineCommand } from './command.js';
import { processIo } from './context.js';
import { CliError, ExitCode } from './errors.js';

const workerHelp = `tcr worker: run the workers (workflows on tcr-workflows; registry reads and writes per CSP account)

Configuration comes from the environment (docs/operations.md has the tables); flags win over it.
  Temporal: TEMPORAL_ADDRESS (default 127.0.0.1:7233), TEMPORAL_NAMESPACE (default default),
    TEMPORAL_API_KEY (switches TLS on), TEMPORAL_TLS (true/false), mTLS with
    TEMPORAL_TLS_CLIENT_CERT_PATH + TEMPORAL_TLS_CLIENT_KEY_PATH, TEMPORAL_TLS_SERVER_CA_CERT_PATH
    (each *_PATH also as *_DATA: the PEM itself), TEMPORAL_TLS_SERVER_NAME, TEMPORAL_GRPC_META_<NAME>;
    the earlier names TEMPORAL_TLS_CERT / TEMPORAL_TLS_KEY / TEMPORAL_TLS_CA still work.
    A temporal.toml profile (TEMPORAL_CONFIG_FILE, TEMPORAL_PROFILE) is read first, as the temporal
    CLI reads it; the variables win over it.
  Accounts: TCR_ACCOUNTS_FILE (mode 0600) or TCR_ACCOUNTS: a JSON array of
    {name, environment, baseUrl, apiKey, apiSecret, cspId?, allowedHosts?, rateLimits?, timeoutMs?}.
    A remote environment's credentials go only to a host in the account's allowedHosts or in
    TCR_REGISTRY_<ENV>_HOSTS (QA, STAGING, PREVIEW, PRODUCTION), over https (docs/going-live.md).
    TCR_REGISTRY_TIMEOUT_MS (default 30000) per registry request.
  Payloads: TCR_PAYLOAD_KEYS_FILE (or TCR_PAYLOAD_KEYS); required unless TCR_PAYLOAD_ENCRYPTION=off
    (fail closed); TCR_ALLOW_PLAINTEXT_INPUT=true reads unencrypted input during a migration.
  Notifications: TCR_NOTIFICATION_SECRETS_FILE (mode 0600, "name secret" lines) signs the HTTP
    notifications order systems subscribe to.
  Fee approvals: TCR_FEE_APPROVERS_FILE (the approvers' public keys, tcr approvers keygen): set,
    every approveFee must be signed (tcr campaign approve-fee --signing-key); unset, self-declared.
  Worker: TCR_WORKER_METRICS_ADDRESS (default 127.0.0.1:9464, off disables), TCR_WORKER_LOG_LEVEL
    (default info), TCR_WORKER_MAX_CACHED_WORKFLOWS.
  Estate sweep: the workers create or update each account's Schedule sweep/{account} as they start:
    TCR_SWEEP_EVERY (default 1h; off leaves the Schedules alone), TCR_SWEEP_READ_SHARE (default 0.1
    of the account's read budget), TCR_SWEEP_RECORDS_PER_PAGE (default 500).
  Traces: OTEL_EXPORTER_OTLP_ENDPOINT (an OTLP/HTTP collector; /v1/traces is added) or
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT; unset, no traces. OTEL_SERVICE_NAME (default tcr-worker).

SIGINT (Ctrl-C) or SIGTERM stops it gracefully (running tasks finish; a stop while starting gives
up the start); a second signal exits at once. Exit codes: 0 stopped by a signal; 1 the workers could
not start (the message says what failed: the connection, the namespace, a task queue) or one failed;
2 configuration (nothing was started); 130 / 143 a second SIGINT / SIGTERM.

Options:
  --address HOST:PORT  Temporal frontend (overrides TEMPORAL_ADDRESS)
  --namespace NAME     Temporal namespace (overrides TEMPORAL_NAMESPACE)
  -h, --help           this text`;

export const workerCommand: CliCommand = defineCommand({
  summary: 'run the workflow and registry workers until Ctrl-C',
  help: workerHelp,
  options: {},
  json: false,
  async run(parsed, ctx) {
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
    // Payloads encrypted with the keys TCR_PAYLOAD_KEYS_FILE / TCR_PAYLOAD_KEYS name (src/codec): a
    // bad key file stops the start here, before any connection.
    let converter: ReturnType<typeof dataConverter>;
    try {
      // Without keys the worker would write orders in clear: refused unless TCR_PAYLOAD_ENCRYPTION=off.
      converter = requiredDataConverter(env);
    } catch (error) {
      throw new CliError(messageOf(error), ExitCode.usage);
    }
    // The command owns the process when it was given neither a stop signal nor its own output (the
    // tcr executable): it then handles SIGINT / SIGTERM itself (a second signal exits at once) and
    // ends the process when it is done, even if the SDK still holds it open.
    const ownsProcess = ctx.signal === undefined && ctx.io === processIo;
    const stop = ctx.signal ?? stopOnSignals((line) => ctx.io.err(line)).signal;
    // Prometheus metrics (TCR_WORKER_METRICS_ADDRESS) and JSON logs (TCR_WORKER_LOG_LEVEL) for the
    // worker runtime: installed before the first connection of the process.
    let runtime: ReturnType<typeof installWorkerRuntime>;
    try {
      runtime = installWorkerRuntime(env);
    } catch (error) {
      throw new CliError(messageOf(error), ExitCode.usage);
    }
    if (runtime.prometheusBindAddress)
      ctx.io.err(`worker metrics http://${runtime.prometheusBindAddress}/metrics`);
    ctx.io.err(`tcr worker starting ${JSON.stringify(describeWorkerConfig(config))}`);
    const tracing = config.tracing ? startTracing({ config: config.tracing }) : undefined;
    const registrationGauges = registrationGaugesForProcess(
      runtime.prometheusBindAddress !== undefined,
      (line) => ctx.io.err(line),
    );
    try {
      await runWorkersUntilStopped(config, {
        stop,
        log: (line) => ctx.io.err(line),
        dataConverter: converter,
        ...(tracing ? { tracing } : {}),
        ...(registrationGauges ? { registrationGauges } : {}),
      });
    } catch (error) {
      if (ownsProcess) exitWhenDone(ExitCode.failure);
      throw new CliError(messageOf(error));
    } finally {
      await tracing
        ?.shutdown()
        .catch((error: unknown) => ctx.io.err(`tcr worker: traces not flushed: ${messageOf(error)}`));
    }
    if (ownsProcess) exitWhenDone(ExitCode.ok);
    return ExitCode.ok;
  },
});
