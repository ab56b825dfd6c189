/**
 * Worker process entry point: `node dist/workers/main.js`. Reads the configuration from the
 * environment (src/config), runs the workflow worker and the per-account registry workers, and
 * shuts down gracefully on SIGINT / SIGTERM (running activities finish; nothing is lost: Temporal
 * hands unfinished tasks to another worker).
 */
import { dataConverter } from '../codec/data-converter.js';
import { keyringFromEnv } from '../codec/key-file.js';
import { ConfigError, describeWorkerConfig, loadWorkerConfig } from '../config/worker-config.js';
import { installWorkerRuntime } from '../observability/runtime.js';
import { createWorkers } from './create-workers.js';

async function main(): Promise<void> {
  let config: ReturnType<typeof loadWorkerConfig>;
  try {
    config = loadWorkerConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(2);
    }
    throw error;
  }
  installWorkerRuntime(); // metrics exporter and JSON logs, before the first connection
  console.log('tcr worker starting', JSON.stringify(describeWorkerConfig(config)));
  const converter = dataConverter();
  // Key ids only, never a key.
  const keys = keyringFromEnv();
  console.log(
    keys
      ? `tcr worker: payloads encrypted (current key ${keys.currentId}; keys ${keys.ids().join(', ')})`
      : 'tcr worker: WARNING payloads are NOT encrypted (set TCR_PAYLOAD_KEYS_FILE; docs/operations.md, Data protection)',
  );
  const workers = await createWorkers(config, { dataConverter: converter });
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`tcr worker: ${signal}, shutting down gracefully`);
    void workers.shutdown();
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
  await workers.run();
  await workers.shutdown(); // idempotent: a no-op after a signal's shutdown
  console.log('tcr worker stopped');
}

main().catch((error: unknown) => {
  console.error('tcr worker failed:', error instanceof Error ? error.message : String(error));
  process.exit(1);
});
