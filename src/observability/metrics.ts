/**
 * Worker runtime telemetry: Prometheus metrics from the Temporal Core runtime (`temporal_*`, served
 * at `http://{bindAddress}/metrics`) and the Runtime logger. Install once per process, before any
 * connection or worker is created:
 *
 *   const obs = workerObservabilityFromEnv(process.env);
 *   Runtime.install(runtimeTelemetryOptions({ ...obs, logger: pinoTemporalLogger(createLogger({ component: 'worker', level: obs.logLevel })) }));
 */
import type { MetricMeter, Logger as TemporalLogger } from '@temporalio/common';
import type { RuntimeOptions } from '@temporalio/worker';
import { z } from 'zod';
import { onPlaintextDecode } from '../common/plaintext-decodes.js';
import { onUnboundDecode } from '../common/unbound-decodes.js';
import type { PinoLevel } from './logger.js';
import { WRITE_BUDGET_WAIT_BUCKETS } from './write-budget-metrics.js';

export const DEFAULT_WORKER_METRICS_ADDRESS = '127.0.0.1:9464';

let stopPlaintextCount: (() => void) | undefined;

/**
 * Counts, on `meter`, every payload a codec of this process met unencrypted (refused, or allowed by
 * TCR_ALLOW_PLAINTEXT_INPUT): tcr_plaintext_payload_decodes_total; and every payload opened that is
 * bound to no workflow (src/codec/workflow-binding.ts): tcr_unbound_payload_decodes_total, tagged with
 * its envelope version. Replaces an earlier observer.
 */
export function observePlaintextDecodes(meter: MetricMeter): () => void {
  stopPlaintextCount?.();
  const counter = meter.createCounter(
    'tcr_plaintext_payload_decodes_total',
    undefined,
    'Payloads a codec met unencrypted (refused, or allowed during a migration window)',
  );
  const stop = onPlaintextDecode(() => counter.add(1));
  const unbound = meter.createCounter(
    'tcr_unbound_payload_decodes_total',
    undefined,
    'Encrypted payloads opened that are bound to no workflow (envelopes 1-3: earlier releases, or no serialization context)',
  );
  const stopUnbound = onUnboundDecode((envelope) => unbound.add(1, { envelope }));
  stopPlaintextCount = () => {
    stop();
    stopUnbound();
    stopPlaintextCount = undefined;
  };
  return stopPlaintextCount;
}

export interface RuntimeTelemetryInput {
  /** host:port for the Prometheus endpoint; undefined = no metrics exporter. */
  prometheusBindAddress?: string | undefined;
  /** The Runtime logger (see `pinoTemporalLogger`); default the SDK's stderr logger. */
  logger?: TemporalLogger;
  /** Forward Core's (Rust) logs to `logger` at this level and above (default WARN). */
  coreLogLevel?: 'TRACE' | 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
  /** Added to every metric as labels (for example `{ deployment: 'prod-east' }`). */
  globalTags?: Record<string, string>;
}

/**
 * None: the process handles SIGINT and SIGTERM itself and stops its workers in order (the registry
 * activities drain first, while the workflow workers still answer the write budget's reservations
 * and the brand status queries they make; see `runningWorkers` in src/workers/create-workers.ts).
 * The Runtime's default handlers shut every worker down at once on those signals, and a write about
 * to reserve its instant then waited for an answer that no worker would give.
 */
export const OWN_SHUTDOWN_SIGNALS: NodeJS.Signals[] = [];

/** Options for `Runtime.install(...)`: Prometheus exporter, forwarded Core logs, the logger, no signal handlers. */
export function runtimeTelemetryOptions(input: RuntimeTelemetryInput): RuntimeOptions {
  const address = input.prometheusBindAddress;
  if (address !== undefined) assertBindAddress(address);
  return {
    ...(input.logger ? { logger: input.logger } : {}),
    shutdownSignals: OWN_SHUTDOWN_SIGNALS,
    telemetryOptions: {
      ...(input.logger
        ? { logging: { filter: { core: input.coreLogLevel ?? 'WARN', other: 'ERROR' }, forward: {} } }
        : {}),
      ...(address !== undefined
        ? {
            metrics: {
              prometheus: { bindAddress: address, histogramBucketOverrides: BUSINESS_HISTOGRAM_BUCKETS },
              ...(input.globalTags ? { globalTags: input.globalTags } : {}),
            },
          }
        : {}),
    },
  };
}

/** Seconds: 1 min … 30 days (a brand's vet or a campaign's DCA review takes days). */
const PHASE_TIME_BUCKETS = [
  60, 300, 900, 1800, 3600, 7200, 14_400, 28_800, 86_400, 172_800, 345_600, 604_800, 1_209_600, 2_592_000,
];

/** Buckets of the workflows' business histograms (src/workflows/entity/metrics.ts). */
export const BUSINESS_HISTOGRAM_BUCKETS: Record<string, number[]> = {
  tcr_time_to_ready_seconds: PHASE_TIME_BUCKETS,
  tcr_time_to_running_seconds: PHASE_TIME_BUCKETS,
  tcr_write_budget_wait_seconds: WRITE_BUDGET_WAIT_BUCKETS,
  // Parked events (src/workflows/parked-metrics.ts): seconds to 30 days, the default retention.
  tcr_parked_event_age_seconds: [1, 10, 60, 300, 900, 3600, 21_600, 86_400, 604_800, 2_592_000],
};

const bindAddressPattern = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/;

function assertBindAddress(address: string): void {
  const match = bindAddressPattern.exec(address);
  const port = Number(match?.[2]);
  if (!match || port < 1 || port > 65535)
    throw new Error(`prometheus bind address must be host:port with a port 1-65535, got "${address}"`);
}

export interface WorkerObservabilityConfig {
  /** Undefined when metrics are switched off (`TCR_WORKER_METRICS_ADDRESS=off`). */
  prometheusBindAddress: string | undefined;
  logLevel: PinoLevel;
}

const EnvSchema = z.object({
  TCR_WORKER_METRICS_ADDRESS: z
    .string()
    .optional()
    .transform((value, ctx) => {
      const v = value?.trim();
      if (v === undefined || v === '') return DEFAULT_WORKER_METRICS_ADDRESS;
      if (v === 'off') return undefined;
      try {
        assertBindAddress(v);
      } catch {
        ctx.addIssue({ code: 'custom', message: `must be host:port or "off", got "${v}"` });
        return z.NEVER;
      }
      return v;
    }),
  TCR_WORKER_LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
    .default('info'),
});

/**
 * Reads the worker's observability settings: TCR_WORKER_METRICS_ADDRESS (default 127.0.0.1:9464,
 * `off` disables) and TCR_WORKER_LOG_LEVEL (pino level, default info). Errors name the variable.
 */
export function workerObservabilityFromEnv(
  env: Record<string, string | undefined> = process.env,
): WorkerObservabilityConfig {
  const parsed = EnvSchema.safeParse({
    TCR_WORKER_METRICS_ADDRESS: env.TCR_WORKER_METRICS_ADDRESS,
    TCR_WORKER_LOG_LEVEL: env.TCR_WORKER_LOG_LEVEL || undefined,
  });
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${String(i.path[0])}: ${i.message}`);
    throw new Error(`invalid observability configuration: ${problems.join('; ')}`);
  }
  return {
    prometheusBindAddress: parsed.data.TCR_WORKER_METRICS_ADDRESS,
    logLevel: parsed.data.TCR_WORKER_LOG_LEVEL,
  };
}
