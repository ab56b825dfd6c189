/**
 * The CSP accounts, one configuration for every part that talks to the registry (`tcr worker`,
 * `tcr accounts`, `tcr webhooks`): TCR_ACCOUNTS (inline JSON) or TCR_ACCOUNTS_FILE (a file readable by
 * its owner only), plus the deployment-wide TCR_REGISTRY_<ENV>_HOSTS and TCR_REGISTRY_TIMEOUT_MS
 * (src/registry/config.ts).
 *
 * Every account is checked here, at start, the way its registry client will check it: the base-URL
 * guard (credentials of one environment only ever go to a host known for it, over https unless the
 * environment is `local`), credentials present. A problem names the account, the field and the fix,
 * never a value; the process refuses to start instead of failing at the first registry call.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { messageOf } from '../common/error-message.js';
import { secretFileProblem } from '../common/secret-file.js';
import { accountNamePattern } from '../contracts/task-queues.js';
import { MAX_WRITE_LIMIT } from '../contracts/write-budget.js';
import type { RegistryClientOptions } from '../registry/client.js';
import { hostsVariable, registryEnvironmentSettings } from '../registry/config.js';
import { checkBaseUrl, type RemoteEnvironment, RemoteEnvironmentNames } from '../registry/environments.js';

export const RegistryEnvironmentSchema = z.enum(['local', 'qa', 'staging', 'preview', 'production']);

const hostName = z
  .string()
  .min(1)
  .regex(/^[A-Za-z0-9.\-[\]:]+$/, 'a host name only (no scheme, port or path)')
  .transform((h) => h.toLowerCase());

export const CspAccountSchema = z
  .object({
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
        // The account's write budget workflow keeps this many grants (src/contracts/write-budget.ts).
        writesPer10Seconds: z
          .number()
          .positive()
          .max(MAX_WRITE_LIMIT, `at most ${MAX_WRITE_LIMIT} (the most the write budget can hold)`),
      })
      .strict()
      .optional(),
    /**
     * Hosts this account's credentials may be sent to, besides TCR_REGISTRY_<ENV>_HOSTS (remote
     * environments only; `local` talks to loopback).
     */
    allowedHosts: z.array(hostName).optional(),
    /** Per-request timeout of this account's registry calls; default TCR_REGISTRY_TIMEOUT_MS. */
    timeoutMs: z.number().int().positive().max(600_000).optional(),
  })
  .strict();
export type CspAccountConfig = z.input<typeof CspAccountSchema>;

/** An account as loaded: its own fields plus the hosts and timeout that apply to it. */
export type ResolvedAccount = z.output<typeof CspAccountSchema> & {
  allowedHosts: string[];
  timeoutMs: number;
};

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

type Env = Record<string, string | undefined>;

function issuesOf(variable: string, error: z.ZodError, raw: unknown): string[] {
  return error.issues.map((i) => {
    const path = i.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('');
    const index = typeof i.path[0] === 'number' ? i.path[0] : undefined;
    const name =
      index !== undefined && Array.isArray(raw)
        ? (raw[index] as { name?: unknown } | undefined)?.name
        : undefined;
    const account = typeof name === 'string' && accountNamePattern.test(name) ? ` (account ${name})` : '';
    return `${variable}${path}${account}: ${i.message}`;
  });
}

export { secretFileProblem };

function readRawAccounts(env: Env, problems: string[]): { raw: unknown; variable: string } | undefined {
  if (env.TCR_ACCOUNTS) {
    try {
      return { raw: JSON.parse(env.TCR_ACCOUNTS), variable: 'TCR_ACCOUNTS' };
    } catch {
      problems.push('TCR_ACCOUNTS: not valid JSON (expected an array of accounts)');
      return undefined;
    }
  }
  if (env.TCR_ACCOUNTS_FILE) {
    const variable = `TCR_ACCOUNTS_FILE (${env.TCR_ACCOUNTS_FILE})`;
    const access = secretFileProblem('TCR_ACCOUNTS_FILE', env.TCR_ACCOUNTS_FILE);
    if (access) {
      problems.push(access);
      return undefined;
    }
    try {
      return { raw: JSON.parse(readFileSync(env.TCR_ACCOUNTS_FILE, 'utf8')), variable };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      problems.push(`${variable}: ${code ? `cannot read the file (${code})` : 'not valid JSON'}`);
      return undefined;
    }
  }
  problems.push(
    'TCR_ACCOUNTS or TCR_ACCOUNTS_FILE: required (a JSON array of {name, environment, baseUrl, apiKey, apiSecret, cspId?, allowedHosts?, rateLimits?, timeoutMs?})',
  );
  return undefined;
}

/**
 * Reads and checks every account. Problems are pushed to `problems` (the accounts are then not to be
 * used); each names the variable, the account and the field, and says how to fix it.
 */
export function loadAccounts(env: Env, problems: string[]): ResolvedAccount[] {
  const before = problems.length;
  const settings = registryEnvironmentSettings(env, problems);
  const source = readRawAccounts(env, problems);
  if (!source) return [];
  const parsed = AccountsSchema.safeParse(source.raw);
  if (!parsed.success) {
    problems.push(...issuesOf(source.variable, parsed.error, source.raw));
    return [];
  }
  // The hosts each remote environment is known by: the deployment's lists and every account's own.
  const hostsByEnvironment = Object.fromEntries(
    RemoteEnvironmentNames.map((e) => [e, new Set(settings.hosts[e])]),
  ) as Record<RemoteEnvironment, Set<string>>;
  for (const account of parsed.data)
    if (account.environment !== 'local')
      for (const host of account.allowedHosts ?? []) hostsByEnvironment[account.environment].add(host);

  const accounts = parsed.data.map((account, index): ResolvedAccount => {
    const allowedHosts =
      account.environment === 'local'
        ? []
        : [...new Set([...settings.hosts[account.environment], ...(account.allowedHosts ?? [])])];
    const field = `${source.variable}[${index}].baseUrl (account ${account.name})`;
    try {
      checkBaseUrl(account.environment, account.baseUrl, allowedHosts, hostsByEnvironment);
    } catch (error) {
      problems.push(`${field}: ${messageOf(error)}. ${fixFor(account, hostsByEnvironment)}`);
    }
    return { ...account, allowedHosts, timeoutMs: account.timeoutMs ?? settings.timeoutMs };
  });
  return problems.length > before ? [] : accounts;
}

function fixFor(
  account: z.output<typeof CspAccountSchema>,
  hostsByEnvironment: Record<RemoteEnvironment, Set<string>>,
): string {
  if (account.environment === 'local')
    return 'Fix: environment local is the simulator on this machine (a loopback host); use the registry environment the credentials were issued for';
  let host = '<host>';
  let scheme = '';
  try {
    const url = new URL(account.baseUrl);
    host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
    scheme = url.protocol;
  } catch {}
  if (scheme === 'http:') return `Fix: use the https:// base URL of the ${account.environment} registry`;
  const others = RemoteEnvironmentNames.filter(
    (e) => e !== account.environment && hostsByEnvironment[e].has(host),
  );
  // A host of another environment: the environment or the base URL is wrong, never the host list
  // (adding the host would send these credentials to a registry that refuses them).
  if (others.length > 0)
    return `Fix: use the base URL of the ${account.environment} registry, or, if these are ${others.join('/')} credentials, set "environment": "${others[0]}"`;
  return `Fix: use the https base URL of the ${account.environment} registry; if ${host} is that host, add "allowedHosts": ["${host}"] to the account or set ${hostsVariable(account.environment)}=${host}`;
}

/** The registry client options of an account (the same for the worker and every `tcr` command). */
export function registryClientOptions(
  account: CspAccountConfig & { allowedHosts?: string[]; timeoutMs?: number },
  overrides: Partial<RegistryClientOptions> = {},
): RegistryClientOptions {
  return {
    account: account.name,
    environment: account.environment,
    baseUrl: account.baseUrl,
    apiKey: account.apiKey,
    apiSecret: account.apiSecret,
    ...(account.rateLimits ? { rateLimits: account.rateLimits } : {}),
    ...(account.allowedHosts?.length ? { allowedHosts: account.allowedHosts } : {}),
    ...(account.timeoutMs !== undefined ? { timeoutMs: account.timeoutMs } : {}),
    ...overrides,
  };
}

/** An account with every secret replaced, safe to log. */
export function describeAccount(account: CspAccountConfig & { allowedHosts?: string[]; timeoutMs?: number }) {
  return {
    name: account.name,
    environment: account.environment,
    baseUrl: account.baseUrl,
    cspId: account.cspId,
    apiKey: '[redacted]',
    apiSecret: '[redacted]',
    ...(account.rateLimits ? { rateLimits: account.rateLimits } : {}),
    ...(account.allowedHosts?.length ? { allowedHosts: account.allowedHosts } : {}),
    ...(account.timeoutMs !== undefined ? { timeoutMs: account.timeoutMs } : {}),
  };
}
