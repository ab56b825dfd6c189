/**
 * Worker configuration from the environment, validated at the edge. Errors name the variable, the
 * account and the field (`TCR_ACCOUNTS[0].baseUrl (account acme): ...`) and say how to fix it, never
 * a value, so secrets never reach logs. `describeWorkerConfig` prints a configuration with every
 * secret redacted. The accounts are read by src/config/accounts.ts (shared with `tcr accounts` and
 * `tcr webhooks`), the Temporal connection by src/config/temporal-connection.ts (envconfig).
 */
import { type CspAccountConfig, describeAccount, loadAccounts } from './accounts.js';
import { loadSweepConfig, type SweepConfig } from './sweep-config.js';
import {
  describeTemporalConnection,
  loadTemporalConnection,
  type TemporalConnectionConfig,
  type TemporalOverrides,
} from './temporal-connection.js';
import { describeTracing, loadTracingConfig, type TracingConfig } from './tracing-config.js';

export {
  type CspAccountConfig,
  CspAccountSchema,
  RegistryEnvironmentSchema,
  type ResolvedAccount,
} from './accounts.js';
export type { TemporalConnectionConfig } from './temporal-connection.js';

export interface WorkerConfig {
  temporal: TemporalConnectionConfig;
  accounts: CspAccountConfig[];
  /**
   * Workflows the worker keeps in memory between tasks (TCR_WORKER_MAX_CACHED_WORKFLOWS). Undefined:
   * the SDK's default, derived from the heap limit. An evicted workflow is replayed from its history
   * on its next task.
   */
  maxCachedWorkflows?: number;
  /**
   * The estate sweep (TCR_SWEEP_*: src/config/sweep-config.ts). With `every`, the workers create or
   * update each account's sweep Schedule when they start. Undefined (a configuration built by hand,
   * e.g. in tests): no Schedule is touched.
   */
  sweep?: SweepConfig;
  /** Traces (OTEL_EXPORTER_OTLP_*: src/config/tracing-config.ts); undefined: off. */
  tracing?: TracingConfig;
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  ${problems.join('\n  ')}`);
  }
}

type Env = Record<string, string | undefined>;

export function loadWorkerConfig(env: Env = process.env, overrides: TemporalOverrides = {}): WorkerConfig {
  const problems: string[] = [];
  const temporal = loadTemporalConnection(env, problems, overrides);
  const accounts = loadAccounts(env, problems);
  let maxCachedWorkflows: number | undefined;
  if (env.TCR_WORKER_MAX_CACHED_WORKFLOWS) {
    maxCachedWorkflows = Number(env.TCR_WORKER_MAX_CACHED_WORKFLOWS);
    if (!Number.isSafeInteger(maxCachedWorkflows) || maxCachedWorkflows < 2)
      problems.push('TCR_WORKER_MAX_CACHED_WORKFLOWS: expected a whole number of at least 2');
  }
  const sweep = loadSweepConfig(env, problems);
  const tracing = loadTracingConfig(env, problems, 'tcr-worker');
  if (problems.length > 0) throw new ConfigError(problems);
  return {
    temporal,
    accounts,
    sweep,
    ...(tracing ? { tracing } : {}),
    ...(maxCachedWorkflows !== undefined ? { maxCachedWorkflows } : {}),
  };
}

/** The configuration with every secret replaced, safe to log. */
export function describeWorkerConfig(config: WorkerConfig): Record<string, unknown> {
  return {
    temporal: describeTemporalConnection(config.temporal),
    accounts: config.accounts.map(describeAccount),
    ...(config.sweep ? { sweep: config.sweep } : {}),
    tracing: describeTracing(config.tracing),
    ...(config.maxCachedWorkflows !== undefined ? { maxCachedWorkflows: config.maxCachedWorkflows } : {}),
  };
}
