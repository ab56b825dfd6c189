/**
 * One call for a worker process: read TCR_WORKER_METRICS_ADDRESS / TCR_WORKER_LOG_LEVEL, create the
 * JSON logger and install the Temporal Runtime with the Prometheus exporter and that logger. Must
 * run before the first NativeConnection or Worker of the process is created.
 */
import { IllegalStateError } from '@temporalio/common';
import { Runtime } from '@temporalio/worker';
import type { Logger as PinoLogger } from 'pino';
import { createLogger, pinoTemporalLogger } from './logger.js';
import { observePlaintextDecodes, runtimeTelemetryOptions, workerObservabilityFromEnv } from './metrics.js';
import { observeRegistryAnswers } from './registry-answers.js';
import { observeWriteBudget } from './write-budget-metrics.js';

export interface InstalledWorkerRuntime {
  logger: PinoLogger;
  /** Where `temporal_*` metrics are served (`http://{address}/metrics`); undefined = off. */
  prometheusBindAddress: string | undefined;
  /** False when a Runtime was already installed (for example by a test setup): nothing changed. */
  installed: boolean;
}

export function installWorkerRuntime(
  env: Record<string, string | undefined> = process.env,
): InstalledWorkerRuntime {
  const obs = workerObservabilityFromEnv(env);
  const logger = createLogger({ component: 'worker', level: obs.logLevel });
  try {
    Runtime.install(
      runtimeTelemetryOptions({
        prometheusBindAddress: obs.prometheusBindAddress,
        logger: pinoTemporalLogger(logger),
      }),
    );
  } catch (error) {
    if (!(error instanceof IllegalStateError)) throw error;
    logger.warn('a Temporal Runtime is already installed; worker metrics and logger settings not applied');
    return { logger, prometheusBindAddress: undefined, installed: false };
  }
  if (obs.prometheusBindAddress) {
    // tcr_registry_answers_total, tcr_write_budget_* & co. on the same endpoint (the workflows' tcr_ metrics need nothing).
    observeRegistryAnswers(Runtime.instance().metricMeter);
    observeWriteBudget(Runtime.instance().metricMeter);
    observePlaintextDecodes(Runtime.instance().metricMeter);
    logger.info(
      { metrics: `http://${obs.prometheusBindAddress}/metrics` },
      'worker metrics exporter listening',
    );
  }
  return { logger, prometheusBindAddress: obs.prometheusBindAddress, installed: true };
}
