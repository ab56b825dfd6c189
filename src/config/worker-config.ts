/**
 * Worker configuration from the environment, validated with zod at the edge. Errors name the
 * variable and the field (`TCR_ACCOUNTS[0].apiSecret: ...`), never a value, so secrets never reach
 * logs. `describeWorkerConfig` prints a configuration with every secret redacted.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { accountNamePattern } from '../workflows/task-queues.js';
import { describeProblem, type TemporalSecurity, temporalSecurityFromEnv } from './temporal-connection.js';

export const RegistryEnvironmentSchema = z.enum(['local', 'qa', 'staging', 'preview', 'production']);

export const CspAccountSchema = z.object({
  name: z
    .string()
    .regex(accountNamePattern, 'name: letters, digits, . _ - (1-64), starting with a letter or digit'),
  environment: RegistryEnvironmentSchema,
  baseUrl: z.url(),
  apiKey: z.string().min(1),
  apiSecret: z.string().min(1),
  cspId: z.string().min(1).optional(),
  /**
   * The account's registry budget, when the registry grants it another than the spec's (20 GET/s,
   * 20 writes per 10 s). It sets both the task-queue rate limits and the client's limiter.
   */
  rateLimits: z
    .object({
      getsPerSecond: z.number().positive().max(10_000),
      writesPer10Seconds: z.number().positive().max(100_000),
    })
    .strict()
    .optional(),
});
export type CspAccountConfig = z.infer<typeof CspAccountSchema>;

const AccountsSchema = z
  .array(CspAccountSchema)
  .min(1, 'at least one CSP account')
  .superRefine((accounts, ctx) => {
    const seen = new Set<string>();
    accounts.forEach((a, i) => {
      if (seen.has(a.name))
        ctx.addIssue({ code: 'custom', path: [i, 'name'], message: `duplicate account name ${a.name}` });
      seen.add(a.name);
    });
  });

export interface TemporalConnectionConfig extends TemporalSecurity {
  address: string;
  namespace: string;
}

export interface WorkerConfig {
  temporal: TemporalConnectionConfig;
  accounts: CspAccountConfig[];
  /**
   * Workflows the worker keeps in memory between tasks (TCR_WORKER_MAX_CACHED_WORKFLOWS). Undefined:
   * the SDK's default, derived from the heap limit. An evicted workflow is replayed from its history
   * on its next task.
   */
  maxCachedWorkflows?: number;
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  ${problems.join('\n  ')}`);
  }
}

type Env = Record<string, string | undefined>;

function issuesOf(variable: string, error: z.ZodError): string[] {
  return error.issues.map((i) => {
    const path = i.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('');
    return `${variable}${path}: ${i.message}`;
  });
}

function readAccounts(env: Env, problems: string[]): CspAccountConfig[] {
  let raw: unknown;
  let variable = 'TCR_ACCOUNTS';
  if (env.TCR_ACCOUNTS) {
    try {
      raw = JSON.parse(env.TCR_ACCOUNTS);
    } catch {
      problems.push('TCR_ACCOUNTS: not valid JSON (expected an array of accounts)');
      return [];
    }
  } else if (env.TCR_ACCOUNTS_FILE) {
    variable = `TCR_ACCOUNTS_FILE (${env.TCR_ACCOUNTS_FILE})`;
    try {
      raw = JSON.parse(readFileSync(env.TCR_ACCOUNTS_FILE, 'utf8'));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      problems.push(`${variable}: ${code ? `cannot read the file (${code})` : 'not valid JSON'}`);
      return [];
    }
  } else {
    problems.push(
      'TCR_ACCOUNTS or TCR_ACCOUNTS_FILE: required (a JSON array of {name, environment, baseUrl, apiKey, apiSecret, cspId?})',
    );
    return [];
  }
  const parsed = AccountsSchema.safeParse(raw);
  if (!parsed.success) {
    problems.push(...issuesOf(variable, parsed.error));
    return [];
  }
  return parsed.data;
}

export function loadWorkerConfig(env: Env = process.env): WorkerConfig {
  const problems: string[] = [];
  const address = env.TEMPORAL_ADDRESS || '127.0.0.1:7233';
  if (!/^[^\s:]+:\d{1,5}$/.test(address)) problems.push('TEMPORAL_ADDRESS: expected host:port');
  const namespace = env.TEMPORAL_NAMESPACE || 'default';
  const { problem: tlsProblem, ...security } = temporalSecurityFromEnv(env);
  if (tlsProblem) problems.push(describeProblem(tlsProblem));
  const accounts = readAccounts(env, problems);
  let maxCachedWorkflows: number | undefined;
  if (env.TCR_WORKER_MAX_CACHED_WORKFLOWS) {
    maxCachedWorkflows = Number(env.TCR_WORKER_MAX_CACHED_WORKFLOWS);
    if (!Number.isSafeInteger(maxCachedWorkflows) || maxCachedWorkflows < 2)
      problems.push('TCR_WORKER_MAX_CACHED_WORKFLOWS: expected a whole number of at least 2');
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return {
    temporal: { address, namespace, ...security },
    accounts,
    ...(maxCachedWorkflows !== undefined ? { maxCachedWorkflows } : {}),
  };
}

/** The configuration with every secret replaced, safe to log. */
export function describeWorkerConfig(config: WorkerConfig): Record<string, unknown> {
  return {
    temporal: {
      address: config.temporal.address,
      namespace: config.temporal.namespace,
      apiKey: config.temporal.apiKey ? '[redacted]' : undefined,
      tls: config.temporal.tls,
    },
    accounts: config.accounts.map((a) => ({
      name: a.name,
      environment: a.environment,
      baseUrl: a.baseUrl,
      cspId: a.cspId,
      apiKey: '[redacted]',
      apiSecret: '[redacted]',
      ...(a.rateLimits ? { rateLimits: a.rateLimits } : {}),
    })),
    ...(config.maxCachedWorkflows !== undefined ? { maxCachedWorkflows: config.maxCachedWorkflows } : {}),
  };
}
