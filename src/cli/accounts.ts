/**
 * `tcr accounts check`: for each CSP account of the deployment (TCR_ACCOUNTS / TCR_ACCOUNTS_FILE, read
 * as the worker reads them), whether its credentials work (one cheap read), the rate budget it is
 * configured with, the webhook subscriptions the registry holds and whether they point at this
 * deployment's ingress URL (and have a secret stored for the ingress), and the registry's clock
 * against ours. Exit 1 on any problem. Never prints a secret.
 */

import { messageOf } from '../common/error-message.js';
import { loadAccounts, type ResolvedAccount, registryClientOptions } from '../config/accounts.js';
import { loadWebhookSecretsForUpdate, secretLabel } from '../config/webhook-secrets.js';
import {
  closeRegistryClients,
  type RegistryClient,
  registryClientFor,
  WEBHOOK_EVENT_CATEGORIES,
} from '../registry/client.js';
import { NotFoundError, RegistryError, UnauthorizedError } from '../registry/errors.js';
import { DEFAULT_RATE_LIMITS } from '../registry/rate-limiter.js';
import type { WebhookSubscription } from '../registry/schemas.js';
import { positiveInt } from './args.js';
import { type CliCommand, commandGroup, defineCommand } from './command.js';
import type { CliContext, CliEnv } from './context.js';
import { CliError, ExitCode, UsageError } from './errors.js';
import { oneLine } from './printable.js';

/** The accounts as the worker loads them; a configuration problem is a usage error (exit 2). */
export function cliAccounts(env: CliEnv, only?: string, helpText?: string): ResolvedAccount[] {
  const problems: string[] = [];
  const accounts = loadAccounts(env, problems);
  if (problems.length > 0)
    throw new CliError(`invalid account configuration:\n  ${problems.join('\n  ')}`, ExitCode.usage);
  if (only === undefined) return accounts;
  const account = accounts.find((a) => a.name === only);
  if (!account)
    throw new UsageError(
      `no account named ${only} (configured: ${accounts.map((a) => a.name).join(', ')})`,
      helpText,
    );
  return [account];
}

/** The client `tcr` uses for an account: the worker's options, a few 429 retries of its own. */
export function cliRegistryClient(account: ResolvedAccount): RegistryClient {
  return registryClientFor(registryClientOptions(account, { maxRateLimitRetries: 3 }));
}

/** A registry failure in words that say what to do, never a secret. */
export function describeRegistryFailure(account: ResolvedAccount, error: unknown): string {
  if (error instanceof UnauthorizedError)
    return `the registry rejected the credentials (401): check apiKey and apiSecret of account ${account.name}; they must be the ${account.environment} environment's keys (keys of one environment are refused by another)`;
  if (error instanceof RegistryError) return error.message;
  return messageOf(error);
}

const checkHelp = `tcr accounts check: check every CSP account against its registry

For each account (TCR_ACCOUNTS or TCR_ACCOUNTS_FILE, read as the worker reads them):
  credentials    one cheap read (GET /v2/enum/mno) with the account's key and secret
  rate budget    the budget the worker gives the account (rateLimits, or the spec's 20 GET/s, 20 writes/10 s)
  webhooks       a subscription per event category at the registry, pointing at this deployment's
                 ingress URL (--webhook-url or TCR_WEBHOOK_URL), and its secret in
                 TCR_WEBHOOK_SECRETS_FILE when that is set
  clock          the registry's clock (its Date header) against ours
Exit 0 when every check passes, 1 on any problem, 2 when the configuration itself is invalid.

Options:
  --account NAME            check this account only
  --webhook-url URL         the ingress URL registered with the registry (env TCR_WEBHOOK_URL)
  --max-clock-skew S        largest accepted clock difference in seconds (default 30)
  --json                    print the results as JSON
  -h, --help                this text`;

type Status = 'ok' | 'problem' | 'warning' | 'info';
interface CheckLine {
  check: 'credentials' | 'rate budget' | 'webhooks' | 'clock';
  status: Status;
  detail: string;
}
interface AccountReport {
  account: string;
  environment: string;
  baseUrl: string;
  ok: boolean;
  checks: CheckLine[];
}

export async function checkAccount(
  account: ResolvedAccount,
  options: { webhookUrl?: string | undefined; maxSkewSeconds: number; secretsFile?: string | undefined },
): Promise<AccountReport> {
  const client = cliRegistryClient(account);
  const checks: CheckLine[] = [];
  let reachable = false;
  try {
    const access = await client.checkAccess();
    reachable = true;
    checks.push({ check: 'credentials', status: 'ok', detail: 'accepted (GET /v2/enum/mno)' });
    if (access.registryDate) {
      const skew = Math.round((access.registryDate.getTime() - access.localDate.getTime()) / 1000);
      checks.push({
        check: 'clock',
        status: Math.abs(skew) > options.maxSkewSeconds ? 'problem' : 'ok',
        detail: `the registry's clock is ${skew >= 0 ? '+' : ''}${skew} s from ours${
          Math.abs(skew) > options.maxSkewSeconds
            ? ` (more than ${options.maxSkewSeconds} s: check NTP on this host)`
            : ''
        }`,
      });
    } else checks.push({ check: 'clock', status: 'warning', detail: 'the registry sent no Date header' });
  } catch (error) {
    checks.push({ check: 'credentials', status: 'problem', detail: describeRegistryFailure(account, error) });
  }
  const budget = account.rateLimits ?? DEFAULT_RATE_LIMITS;
  checks.push({
    check: 'rate budget',
    status: 'info',
    detail: `${budget.getsPerSecond} GET/s, ${budget.writesPer10Seconds} writes per 10 s${account.rateLimits ? ' (the account rateLimits)' : " (the spec's default)"}`,
  });
  if (reachable) checks.push(await checkWebhooks(account, client, options));
  return {
    account: account.name,
    environment: account.environment,
    baseUrl: account.baseUrl,
    ok: checks.every((c) => c.status !== 'problem'),
    checks,
  };
}

async function checkWebhooks(
  account: ResolvedAccount,
  client: RegistryClient,
  options: { webhookUrl?: string | undefined; secretsFile?: string | undefined },
): Promise<CheckLine> {
  let subscriptions: WebhookSubscription[];
  try {
    subscriptions = await client.listWebhookSubscriptions();
  } catch (error) {
    if (error instanceof NotFoundError)
      return {
        check: 'webhooks',
        status: 'warning',
        detail: 'the registry does not list subscriptions (404): check them in its portal',
      };
    return { check: 'webhooks', status: 'problem', detail: describeRegistryFailure(account, error) };
  }
  const fix = `tcr webhooks subscribe --account ${account.name} --url ${options.webhookUrl ?? 'URL'}`;
  if (!options.webhookUrl)
    return {
      check: 'webhooks',
      status: 'problem',
      detail: `${subscriptions.length} subscription(s); set TCR_WEBHOOK_URL or --webhook-url to check they point at this deployment's ingress`,
    };
  const byCategory = new Map(subscriptions.map((s) => [s.eventCategory, s]));
  const missing = WEBHOOK_EVENT_CATEGORIES.filter((c) => !byCategory.has(c));
  const elsewhere = WEBHOOK_EVENT_CATEGORIES.filter((c) => {
    const s = byCategory.get(c);
    return s !== undefined && s.webhookEndpoint !== options.webhookUrl;
  });
  const problems: string[] = [];
  if (missing.length > 0) problems.push(`not subscribed: ${missing.join(', ')}`);
  if (elsewhere.length > 0)
    problems.push(
      `pointing elsewhere: ${elsewhere.map((c) => `${c} → ${byCategory.get(c)?.webhookEndpoint}`).join(', ')}`,
    );
  if (options.secretsFile) {
    let labels = new Set<string>();
    try {
      labels = new Set(loadWebhookSecretsForUpdate(options.secretsFile).map((s) => s.label ?? ''));
    } catch (error) {
      problems.push(messageOf(error));
    }
    const noSecret = WEBHOOK_EVENT_CATEGORIES.filter(
      (c) => byCategory.has(c) && !labels.has(secretLabel(account.name, c)),
    );
    if (noSecret.length > 0)
      problems.push(`no secret stored in ${options.secretsFile} for ${noSecret.join(', ')}`);
  }
  if (problems.length > 0)
    return { check: 'webhooks', status: 'problem', detail: `${problems.join('; ')} (fix: ${fix})` };
  return {
    check: 'webhooks',
    status: 'ok',
    detail: `${WEBHOOK_EVENT_CATEGORIES.length}/${WEBHOOK_EVENT_CATEGORIES.length} categories → ${options.webhookUrl}${options.secretsFile ? ', secrets stored' : ''}`,
  };
}

const checkCommand: CliCommand = defineCommand({
  summary: 'check credentials, rate budget, webhook subscriptions and clock of every account',
  help: checkHelp,
  options: {
    account: { type: 'string' },
    'webhook-url': { type: 'string' },
    'max-clock-skew': { type: 'string' },
  },
  connection: false,
  async run(parsed, ctx) {
    const accounts = cliAccounts(ctx.env, parsed.values.account, checkHelp);
    const maxSkewSeconds = positiveInt(parsed.values['max-clock-skew'], '--max-clock-skew', 30, checkHelp);
    const webhookUrl = parsed.values['webhook-url'] || ctx.env.TCR_WEBHOOK_URL || undefined;
    const secretsFile = ctx.env.TCR_WEBHOOK_SECRETS_FILE || undefined;
    const reports: AccountReport[] = [];
    try {
      for (const account of accounts)
        reports.push(await checkAccount(account, { webhookUrl, maxSkewSeconds, secretsFile }));
    } finally {
      await closeRegistryClients();
    }
    const ok = reports.every((r) => r.ok);
    if (parsed.values.json) ctx.json({ ok, accounts: reports });
    else printReports(ctx, reports);
    return ok ? ExitCode.ok : ExitCode.failure;
  },
});

/** The report's lines; details quote the registry (errors, URLs), so each stays on its line, without control characters. */
export function reportLines(reports: AccountReport[]): string[] {
  const mark: Record<Status, string> = { ok: 'ok', problem: 'PROBLEM', warning: 'warning', info: '' };
  return reports
    .flatMap((r) => [
      `${r.account} (${r.environment}, ${r.baseUrl}): ${r.ok ? 'OK' : 'PROBLEM'}`,
      ...r.checks.map(
        (c) => `  ${c.check.padEnd(12)} ${mark[c.status] ? `${mark[c.status]}: ` : ''}${c.detail}`,
      ),
    ])
    .map(oneLine);
}

function printReports(ctx: CliContext, reports: AccountReport[]): void {
  for (const line of reportLines(reports)) ctx.io.out(line);
  const bad = reports.filter((r) => !r.ok).length;
  ctx.io.out(
    bad === 0
      ? `OK: ${reports.length} account${reports.length === 1 ? '' : 's'} checked`
      : `${bad} of ${reports.length} account${reports.length === 1 ? '' : 's'} with problems`,
  );
}

export const accountsCommands = commandGroup('accounts', 'check the CSP accounts against their registry', {
  check: checkCommand,
});
