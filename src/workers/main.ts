/**
 * Worker process entry point: `node dist/workers/main.js`. Reads the configuration from the
 * environment (src/config), runs the workflow worker and the per-account registry workers, and
 * shuts down gracefully on SIGINT / SIGTERM (running activities finish; nothing is lost: Temporal
 * hands unfinished tasks to another worker); a second signal exits at once. Exit codes: 0 stopped by
 * a signal, 1 the workers could not start or one failed (the message says what), 2 configuration.
 * The same life as `tcr worker` (src/workers/run-workers.ts, process-signals.ts).
 */
import { dataConverter, requiredKeyringFromEnv } from '../codec/data-converter.js';
import type { keyringFromEnv } from '../codec/key-file.js';
import { messageOf } from '../common/error-message.js';
import { ConfigError, describeWorkerConfig, loadWorkerConfig } from '../config/worker-config.js';
import { installWorkerRuntime } from '../observability/runtime.js';
import { startTracing } from '../observability/tracing.js';
import { exitWhenDone, stopOnSignals } from './process-signals.js';
import { registrationGaugesForProcess } from './registration-gauges.js';
import { runWorkersUntilStopped } from './run-workers.js';

const log = (line: string) => console.error(line);

async function main(): Promise<number> {
  const stop = stopOnSignals(log).signal;
  let config: ReturnType<typeof loadWorkerConfig>;
  let converter: ReturnType<typeof dataConverter>;
  let keys: ReturnType<typeof keyringFromEnv>;
  let metricsOn = false;
  try {
    config = loadWorkerConfig();
    keys = requiredKeyringFromEnv(process.env); // no keys: refused unless TCR_PAYLOAD_ENCRYPTION=off
    converter = dataConverter({ keyring: keys });
    metricsOn = installWorkerRuntime().prometheusBindAddress !== undefined; // metrics and JSON logs, before the first connection
  } catch (error) {
    log(error instanceof ConfigError ? error.message : `tcr worker: ${messageOf(error)}`);
    return 2;
  }
  log(`tcr worker starting ${JSON.stringify(describeWorkerConfig(config))}`);
  // Key ids only, never a key.
  log(
    keys
      ? `tcr worker: payloads encrypted (current key ${keys.currentId}; keys ${keys.ids().join(', ')})`
      : 'tcr worker: WARNING payloads are NOT encrypted (set TCR_PAYLOAD_KEYS_FILE; docs/operations.md, Data protection)',
  );
  const tracing = config.tracing ? startTracing({ config: config.tracing }) : undefined;
  const registrationGauges = registrationGaugesForProcess(metricsOn, log);
  try {
    await runWorkersUntilStopped(config, {
      stop,
      log,
      dataConverter: converter,
      ...(tracing ? { tracing } : {}),
      ...(registrationGauges ? { registrationGauges } : {}),
    });
    return 0;
  } catch (error) {
    log(`tcr worker: ${messageOf(error)}`);
    return 1;
  } finally {
    await tracing
      ?.shutdown()
      .catch((error: unknown) => log(`tcr worker: traces not flushed: ${messageOf(error)}`));
  }
}

main().then(exitWhenDone, (error: unknown) => {
  log(`tcr worker failed: ${messageOf(error)}`);
  exitWhenDone(1);
});
