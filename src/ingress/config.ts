import { z } from 'zod';
import { messageOf } from '../common/error-message.js';
import { loadTemporalConnection, type TemporalConnectionConfig } from '../config/temporal-connection.js';
import { loadTracingConfig, type TracingConfig } from '../config/tracing-config.js';
import {
  type AccountSecret,
  assignSecretAccounts,
  type IngressAccount,
  MIN_SECRET_BYTES,
  parseIngressAccounts,
  readWebhookSecretsFile,
  type SecretSource,
} from '../config/webhook-secrets.js';
import { WORKFLOW_TASK_QUEUE } from '../contracts/task-queues.js';
import { isLoopbackHost, parseCidrList } from './source-addresses.js';

/** The ingress configuration, parsed from the environment by `parseIngressConfig`. */
export interface IngressConfig {
  host: string;
  port: number;
  /** Path of the webhook POST endpoint. */
  path: string;
  /** The exact URL registered with the registry: the first part of every signed string. */
  webhookUrl: string;
  /**
   * Webhook signing secrets: TCR_WEBHOOK_SECRETS and the lines of TCR_WEBHOOK_SECRETS_FILE (one per
   * event category as the registry issues them, and old and new during a rotation). An event is
   * accepted when it is signed with any of them. Never logged.
   */
  secrets: string[];
  /**
   * Each secret with the account it verifies events for (labels, or the only account): an event is
   * delivered only to that account's workflows (src/config/webhook-secrets.ts).
   */
  accountSecrets: AccountSecret[];
  /** The accounts served (TCR_INGRESS_ACCOUNTS, else the secrets' labels): names and cspIds, no keys. */
  accounts: IngressAccount[];
  /** Source addresses allowed to POST events (CIDRs); empty = anyone. */
  allow: string[];
  /** Proxies whose X-Forwarded-For is believed (addresses or CIDRs); empty = no forwarded header is. */
  trustedProxies: string[];
  /** Largest accepted body in bytes (413 above). */
  bodyLimit: number;
  /** Headers and body of a request must have arrived within this (408 and closed after it). */
  requestTimeoutMs: number;
  /** A connection with no traffic either way for this long is closed. */
  idleTimeoutMs: number;
  /** An idle kept-alive connection is closed after this. */
  keepAliveTimeoutMs: number;
  /** Requests served on one kept-alive connection before it is closed. */
  maxRequestsPerSocket: number;
  /** Open connections on the public listener; more are dropped on accept. */
  maxConnections: number;
  /** Open connections from one source address (trusted proxies exempt); more are dropped on accept. */
  maxConnectionsPerAddress: number;
  /** Requests per second one source may make (token bucket; verified deliveries give theirs back). */
  rateLimit: number;
  /** The bucket's size: requests one source may make at once. */
  rateBurst: number;
  /** TCR_INGRESS_ALLOW_ANY=1: listening beyond loopback without an allow-list was asked for. */
  allowAny: boolean;
  /**
   * Where /healthz, /readyz and /metrics are served: a separate listener (default 127.0.0.1:8471),
   * `public` (on the webhook listener, for local use) or `off`.
   */
  internal: InternalListen;
  /** What a failed hand-off answers: `close` the connection (a network error to the registry) or `503`. */
  handoffFailure: HandoffFailureAnswer;
  /** Deadline for handing an event to Temporal before answering 503. */
  handoffTimeoutMs: number;
  /** Task queue of the worker that hosts the `parkedEvents` workflow. */
  parkedTaskQueue: string;
  /** How long parked events wait for an owner. */
  parkedRetentionMs: number;
  temporalAddress: string;
  temporalNamespace: string;
  /** The whole Temporal connection as envconfig reads it (API key and TLS files included; never logged). */
  temporal: TemporalConnectionConfig;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** Traces (OTEL_EXPORTER_OTLP_*: src/config/tracing-config.ts); undefined: off. */
  tracing?: TracingConfig;
}

export type InternalListen = { mode: 'listener'; host: string; port: number } | { mode: 'public' | 'off' };
export type HandoffFailureAnswer = 'close' | '503';

export const DEFAULT_INGRESS_PATH = '/webhooks/registry';
/** Events are flat objects of short strings (spec, "Events"): a few KiB at most. */
export const DEFAULT_BODY_LIMIT = 64 * 1024;
export const DEFAULT_INTERNAL_PORT = 8471;
/** The workflow worker hosts `parkedEvents` beside the entity workflows (src/workflows/index.ts). */
export const DEFAULT_PARKED_TASK_QUEUE = WORKFLOW_TASK_QUEUE;

const list = (value: string | undefined): string[] =>
  (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);

const cidrList = z
  .string()
  .optional()
  .transform((value, ctx) => {
    const items = list(value);
    try {
      parseCidrList(items);
    } catch (error) {
      ctx.addIssue({ code: 'custom', message: messageOf(error) });
      return z.NEVER;
    }
    return items;
  });

const positiveInt = (fallback: number) =>
  z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || value.trim() === '') return fallback;
      const n = Number(value);
      if (!Number.isSafeInteger(n) || n <= 0) {
        ctx.addIssue({ code: 'custom', message: `must be a positive integer, got "${value}"` });
        return z.NEVER;
      }
      return n;
    });

/** "host:port", "[v6]:port", "public" or "off". */
const internalListen = z
  .string()
  .optional()
  .transform((value, ctx): InternalListen => {
    const v = (value ?? '').trim();
    if (v === '') return { mode: 'listener', host: '127.0.0.1', port: DEFAULT_INTERNAL_PORT };
    if (v === 'public' || v === 'off') return { mode: v };
    const match = /^(?:\[([0-9A-Fa-f:.]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(v);
    const port = match ? Number(match[3]) : Number.NaN;
    if (!match || port > 65535) {
      ctx.addIssue({
        code: 'custom',
        message: `must be HOST:PORT (e.g. 127.0.0.1:8471, [::1]:8471), "public" or "off", got "${v}"`,
      });
      return z.NEVER;
    }
    return { mode: 'listener', host: (match[1] ?? match[2])!, port };
  });

const EnvSchema = z.object({
  TCR_INGRESS_HOST: z.string().min(1).default('127.0.0.1'),
  TCR_INGRESS_PORT: z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || value.trim() === '') return 8470;
      const n = Number(value);
      if (!Number.isInteger(n) || n < 0 || n > 65535) {
        ctx.addIssue({ code: 'custom', message: `must be a port number 0-65535, got "${value}"` });
        return z.NEVER;
      }
      return n;
    }),
  TCR_INGRESS_PATH: z
    .string()
    .regex(/^\/[A-Za-z0-9._~\-/]*$/, 'must be an absolute URL path such as /webhooks/registry')
    .default(DEFAULT_INGRESS_PATH),
  TCR_WEBHOOK_URL: z
    .string({ error: 'is required: the exact webhook URL registered with the registry' })
    .min(1, 'is required: the exact webhook URL registered with the registry')
    .refine((value) => URL.canParse(value), 'must be an absolute URL (the one registered with the registry)'),
  TCR_WEBHOOK_SECRETS: z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || value === '') return [];
      const secrets = list(value);
      if (secrets.length === 0) {
        ctx.addIssue({ code: 'custom', message: 'must hold at least one secret' });
        return z.NEVER;
      }
      return secrets;
    }),
  TCR_WEBHOOK_SECRETS_FILE: z.string().optional(),
  TCR_INGRESS_ACCOUNTS: z.string().optional(),
  TCR_INGRESS_ALLOW: cidrList,
  TCR_INGRESS_TRUSTED_PROXIES: cidrList,
  TCR_INGRESS_BODY_LIMIT: positiveInt(DEFAULT_BODY_LIMIT),
  TCR_INGRESS_HANDOFF_TIMEOUT_MS: positiveInt(5_000),
  TCR_INGRESS_REQUEST_TIMEOUT_MS: positiveInt(10_000),
  TCR_INGRESS_IDLE_TIMEOUT_MS: positiveInt(30_000),
  TCR_INGRESS_KEEP_ALIVE_TIMEOUT_MS: positiveInt(5_000),
  TCR_INGRESS_MAX_REQUESTS_PER_SOCKET: positiveInt(1_000),
  TCR_INGRESS_MAX_CONNECTIONS: positiveInt(1_024),
  TCR_INGRESS_MAX_CONNECTIONS_PER_ADDRESS: positiveInt(64),
  TCR_INGRESS_RATE_LIMIT: positiveInt(20),
  TCR_INGRESS_RATE_BURST: positiveInt(100),
  TCR_INGRESS_ALLOW_ANY: z.enum(['', '0', '1'], { error: 'must be 1 (or empty / 0)' }).optional(),
  TCR_INGRESS_INTERNAL_LISTEN: internalListen,
  TCR_INGRESS_HANDOFF_FAILURE: z.enum(['close', '503']).default('close'),
  TCR_PARKED_EVENTS_TASK_QUEUE: z.string().min(1).default(DEFAULT_PARKED_TASK_QUEUE),
  TCR_PARKED_RETENTION_DAYS: positiveInt(30),
  TCR_INGRESS_LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
    .default('info'),
});

export class IngressConfigError extends Error {
  constructor(readonly issues: { variable: string; message: string }[]) {
    super(`invalid ingress configuration: ${issues.map((i) => `${i.variable} ${i.message}`).join('; ')}`);
    this.name = 'IngressConfigError';
  }
}

/**
 * The Temporal connection (TEMPORAL_* and temporal.toml profiles, as the worker reads them) and the
 * webhook secrets: TCR_WEBHOOK_SECRETS (comma-separated) and TCR_WEBHOOK_SECRETS_FILE (one secret
 * per line, each at least 32 bytes, mode 0600: src/config/webhook-secrets.ts); at least one in all.
 */
function temporalAndSecrets(
  env: NodeJS.ProcessEnv,
  inline: string[],
  file: string | undefined,
): {
  temporal: TemporalConnectionConfig;
  secrets: string[];
  accountSecrets: AccountSecret[];
  accounts: IngressAccount[];
} {
  const problems: string[] = [];
  const temporal = loadTemporalConnection(env, problems);
  const secrets = [...inline];
  const sources: SecretSource[] = inline.map((secret, i) => ({
    secret,
    where: `TCR_WEBHOOK_SECRETS secret ${i + 1}`,
  }));
  if (file) {
    const stored = readWebhookSecretsFile(file, problems);
    secrets.push(...stored.map((s) => s.secret));
    for (const s of stored)
      sources.push({
        secret: s.secret,
        ...(s.label ? { label: s.label } : {}),
        where: `TCR_WEBHOOK_SECRETS_FILE (${file}) line ${s.line ?? '?'}`,
      });
  } else if (secrets.length === 0)
    problems.push(
      'TCR_WEBHOOK_SECRETS_FILE or TCR_WEBHOOK_SECRETS: required (the file tcr webhooks subscribe writes, or comma-separated secrets)',
    );
  const configured = parseIngressAccounts(env.TCR_INGRESS_ACCOUNTS, problems);
  const { accounts, secrets: accountSecrets } =
    problems.length > 0 ? { accounts: [], secrets: [] } : assignSecretAccounts(sources, configured, problems);
  if (problems.length > 0)
    throw new IngressConfigError(
      problems.map((p) => {
        const colon = p.indexOf(': ');
        return { variable: p.slice(0, colon), message: p.slice(colon + 2) };
      }),
    );
  return { temporal, secrets: [...new Set(secrets)], accountSecrets, accounts };
}

/**
 * Reads the ingress configuration from environment variables. Errors name the variable and never
 * echo a secret's value.
 */
export function parseIngressConfig(env: NodeJS.ProcessEnv): IngressConfig {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    throw new IngressConfigError(
      parsed.error.issues.map((issue) => ({
        variable: String(issue.path[0] ?? '?'),
        message: issue.message,
      })),
    );
  }
  const e = parsed.data;
  const edgeProblems = checkWebhookUrl(e.TCR_WEBHOOK_URL, e.TCR_INGRESS_PATH);
  if (e.TCR_INGRESS_IDLE_TIMEOUT_MS <= e.TCR_INGRESS_HANDOFF_TIMEOUT_MS) {
    edgeProblems.push({
      variable: 'TCR_INGRESS_IDLE_TIMEOUT_MS',
      message: `must be longer than TCR_INGRESS_HANDOFF_TIMEOUT_MS (${e.TCR_INGRESS_HANDOFF_TIMEOUT_MS}), or a connection waiting for its hand-off is closed`,
    });
  }
  if (
    e.TCR_INGRESS_ALLOW.length === 0 &&
    !isLoopbackHost(e.TCR_INGRESS_HOST) &&
    e.TCR_INGRESS_ALLOW_ANY !== '1'
  ) {
    edgeProblems.push({
      variable: 'TCR_INGRESS_ALLOW',
      message: `is empty and TCR_INGRESS_HOST is ${e.TCR_INGRESS_HOST} (beyond loopback): set TCR_INGRESS_ALLOW to the registry's published webhook source addresses, or TCR_INGRESS_ALLOW_ANY=1 to let anyone POST`,
    });
  }
  edgeProblems.push(...checkInlineSecrets(e.TCR_WEBHOOK_SECRETS, e.TCR_WEBHOOK_URL));
  const tracingProblems: string[] = [];
  const tracing = loadTracingConfig(env, tracingProblems, 'tcr-ingress');
  for (const problem of tracingProblems) {
    const [variable, ...message] = problem.split(': ');
    edgeProblems.push({ variable: variable!, message: message.join(': ') });
  }
  if (edgeProblems.length > 0) throw new IngressConfigError(edgeProblems);
  const { temporal, secrets, accountSecrets, accounts } = temporalAndSecrets(
    env,
    e.TCR_WEBHOOK_SECRETS,
    e.TCR_WEBHOOK_SECRETS_FILE,
  );
  return {
    host: e.TCR_INGRESS_HOST,
    port: e.TCR_INGRESS_PORT,
    path: e.TCR_INGRESS_PATH,
    webhookUrl: e.TCR_WEBHOOK_URL,
    secrets,
    accountSecrets,
    accounts,
    allow: e.TCR_INGRESS_ALLOW,
    trustedProxies: e.TCR_INGRESS_TRUSTED_PROXIES,
    bodyLimit: e.TCR_INGRESS_BODY_LIMIT,
    requestTimeoutMs: e.TCR_INGRESS_REQUEST_TIMEOUT_MS,
    idleTimeoutMs: e.TCR_INGRESS_IDLE_TIMEOUT_MS,
    keepAliveTimeoutMs: e.TCR_INGRESS_KEEP_ALIVE_TIMEOUT_MS,
    maxRequestsPerSocket: e.TCR_INGRESS_MAX_REQUESTS_PER_SOCKET,
    maxConnections: e.TCR_INGRESS_MAX_CONNECTIONS,
    maxConnectionsPerAddress: e.TCR_INGRESS_MAX_CONNECTIONS_PER_ADDRESS,
    rateLimit: e.TCR_INGRESS_RATE_LIMIT,
    rateBurst: e.TCR_INGRESS_RATE_BURST,
    allowAny: e.TCR_INGRESS_ALLOW_ANY === '1',
    internal: e.TCR_INGRESS_INTERNAL_LISTEN,
    handoffFailure: e.TCR_INGRESS_HANDOFF_FAILURE,
    handoffTimeoutMs: e.TCR_INGRESS_HANDOFF_TIMEOUT_MS,
    parkedTaskQueue: e.TCR_PARKED_EVENTS_TASK_QUEUE,
    parkedRetentionMs: e.TCR_PARKED_RETENTION_DAYS * 24 * 3600_000,
    temporalAddress: temporal.address,
    temporalNamespace: temporal.namespace,
    temporal,
    logLevel: e.TCR_INGRESS_LOG_LEVEL,
    ...(tracing ? { tracing } : {}),
  };
}

/**
 * The registered URL must lead here: its path is the listen path (one character off and every real
 * event is a 401 until the registry discards it), and it is https unless it points at loopback.
 */
/**
 * Secrets given inline (TCR_WEBHOOK_SECRETS) follow the file's rule, at least 32 bytes each, unless
 * the webhook URL is on loopback (local stacks and tests). Problems name the position, never the value.
 */
function checkInlineSecrets(secrets: string[], webhookUrl: string): { variable: string; message: string }[] {
  if (isLoopbackHost(new URL(webhookUrl).hostname)) return [];
  return secrets.flatMap((secret, index) =>
    Buffer.byteLength(secret, 'utf8') < MIN_SECRET_BYTES
      ? [
          {
            variable: 'TCR_WEBHOOK_SECRETS',
            message: `secret ${index + 1} of ${secrets.length} is shorter than ${MIN_SECRET_BYTES} bytes (a secret cannot contain a comma here: use TCR_WEBHOOK_SECRETS_FILE, one secret per line)`,
          },
        ]
      : [],
  );
}

function checkWebhookUrl(webhookUrl: string, path: string): { variable: string; message: string }[] {
  const url = new URL(webhookUrl);
  const problems: { variable: string; message: string }[] = [];
  if (url.pathname !== path) {
    problems.push({
      variable: 'TCR_WEBHOOK_URL',
      message: `has the path "${url.pathname}" but the ingress listens on TCR_INGRESS_PATH "${path}": every signature would fail`,
    });
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname))) {
    problems.push({
      variable: 'TCR_WEBHOOK_URL',
      message: `must be https (the spec requires it; plain http is accepted only on loopback), got ${url.protocol}//${url.host}`,
    });
  }
  return problems;
}
