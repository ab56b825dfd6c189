/**
 * `tcr webhooks subscribe | list | unsubscribe`: the registry's webhook subscriptions of an account,
 * managed through the registry client (PUT / GET / DELETE /v2/webhook/subscription), idempotently.
 * Where the registry returns a signing secret (one per event category), `subscribe` stores it in the
 * secrets file the ingress reads (TCR_WEBHOOK_SECRETS_FILE or --secrets-file; one secret per line,
 * mode 0600, src/config/webhook-secrets.ts). No secret is ever printed.
 */

import { messageOf } from '../common/error-message.js';
import type { ResolvedAccount } from '../config/accounts.js';
import {
  loadWebhookSecretsForUpdate,
  type StoredSecret,
  secretLabel,
  upsertSecret,
  writeWebhookSecrets,
} from '../config/webhook-secrets.js';
import { closeRegistryClients, WEBHOOK_EVENT_CATEGORIES } from '../registry/client.js';
import { NotFoundError } from '../registry/errors.js';
import type { WebhookSubscription } from '../registry/schemas.js';
import { cliAccounts, cliRegistryClient, describeRegistryFailure } from './accounts.js';
import { required } from './args.js';
import { type CliCommand, commandGroup, defineCommand } from './command.js';
import type { CliEnv } from './context.js';
import { CliError, ExitCode, UsageError } from './errors.js';
import { oneLine } from './printable.js';

const CATEGORY = /^[A-Z][A-Z0-9_]*$/;

function categoriesOf(values: string[] | undefined, helpText: string): string[] {
  const list = values?.length ? values : [...WEBHOOK_EVENT_CATEGORIES];
  for (const c of list)
    if (!CATEGORY.test(c))
      throw new UsageError(`--category: expected an event category such as BRAND, got '${c}'`, helpText);
  return [...new Set(list)];
}

function secretsFileOf(flag: string | undefined, env: CliEnv): string | undefined {
  return flag || env.TCR_WEBHOOK_SECRETS_FILE || undefined;
}

function checkUrl(url: string, helpText: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`--url: not an absolute URL`, helpText);
  }
  const loopback = /^(127\.|localhost$|\[::1\]$)/.test(parsed.hostname);
  if (parsed.protocol !== 'https:' && !(parsed.protocol === 'http:' && loopback))
    throw new UsageError(`--url: must be https (http only on loopback), got ${parsed.protocol}`, helpText);
  return url;
}

async function withClient<T>(account: ResolvedAccount, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new CliError(`account ${account.name}: ${describeRegistryFailure(account, error)}`);
  } finally {
    await closeRegistryClients();
  }
}

async function currentSubscriptions(
  client: ReturnType<typeof cliRegistryClient>,
): Promise<Map<string, WebhookSubscription> | undefined> {
  try {
    return new Map((await client.listWebhookSubscriptions()).map((s) => [s.eventCategory, s]));
  } catch (error) {
    if (error instanceof NotFoundError) return undefined; // the registry does not list them
    throw error;
  }
}

const subscribeHelp = `tcr webhooks subscribe: subscribe the ingress URL to the registry's webhook events

Usage: tcr webhooks subscribe --account NAME --url URL [--category C ...] [--secrets-file PATH]

For each event category (default: ${WEBHOOK_EVENT_CATEGORIES.join(', ')}), makes sure the account's
subscription points at URL, and stores the signing secret the registry returns in the secrets file
the ingress reads (TCR_WEBHOOK_SECRETS_FILE, one secret per line, mode 0600). Idempotent: a category
already pointing at URL with its secret stored is left alone. Secrets are never printed.

Options:
  --account NAME       the account (TCR_ACCOUNTS / TCR_ACCOUNTS_FILE)
  --url URL            the ingress URL, exactly as the ingress's TCR_WEBHOOK_URL (default: TCR_WEBHOOK_URL)
  --category C         an event category (repeatable; default every category)
  --secrets-file PATH  where to store the secrets (default TCR_WEBHOOK_SECRETS_FILE)
  --json               print the result as JSON
  -h, --help           this text`;

const subscribeCommand: CliCommand = defineCommand({
  summary: 'subscribe the ingress URL for every event category, storing the secrets for the ingress',
  help: subscribeHelp,
  options: {
    account: { type: 'string' },
    url: { type: 'string' },
    category: { type: 'string', multiple: true },
    'secrets-file': { type: 'string' },
  },
  connection: false,
  async run(parsed, ctx) {
    const name = required(parsed.values.account, '--account', subscribeHelp);
    const url = checkUrl(
      required(parsed.values.url || ctx.env.TCR_WEBHOOK_URL, '--url', subscribeHelp),
      subscribeHelp,
    );
    const categories = categoriesOf(parsed.values.category, subscribeHelp);
    const secretsFile = secretsFileOf(parsed.values['secrets-file'], ctx.env);
    if (!secretsFile)
      throw new UsageError(
        '--secrets-file or TCR_WEBHOOK_SECRETS_FILE is required: the registry returns a secret per category, and the ingress reads it from that file',
        subscribeHelp,
      );
    const [account] = cliAccounts(ctx.env, name, subscribeHelp) as [ResolvedAccount];
    let stored: StoredSecret[];
    try {
      stored = loadWebhookSecretsForUpdate(secretsFile);
    } catch (error) {
      throw new CliError(messageOf(error), ExitCode.usage);
    }
    const results = await withClient(account, async () => {
      const client = cliRegistryClient(account);
      const current = await currentSubscriptions(client);
      const out: { category: string; outcome: 'unchanged' | 'subscribed' | 'moved'; secret: string }[] = [];
      for (const category of categories) {
        const label = secretLabel(account.name, category);
        const existing = current?.get(category);
        const hasSecret = stored.some((s) => s.label === label);
        if (existing?.webhookEndpoint === url && hasSecret) {
          out.push({ category, outcome: 'unchanged', secret: 'stored' });
          continue;
        }
        const result = await client.putWebhookSubscription({ eventCategory: category, webhookEndpoint: url });
        let secret = hasSecret ? 'stored' : 'missing';
        if (result.webhookSecret) {
          upsertSecret(stored, label, result.webhookSecret);
          secret = 'stored';
        }
        out.push({ category, outcome: existing ? 'moved' : 'subscribed', secret });
      }
      return out;
    });
    if (results.some((r) => r.outcome !== 'unchanged')) writeWebhookSecrets(secretsFile, stored);
    const missing = results.filter((r) => r.secret === 'missing');
    if (parsed.values.json) ctx.json({ account: account.name, url, secretsFile, categories: results });
    else {
      for (const r of results)
        ctx.io.out(
          `${account.name} ${r.category.padEnd(16)} ${r.outcome.padEnd(10)} → ${url} (secret ${r.secret})`,
        );
      if (missing.length > 0)
        ctx.io.err(
          `the registry returned no secret for ${missing.map((r) => r.category).join(', ')}: copy it from the registry's portal into ${secretsFile}, on the line after '# ${secretLabel(account.name, 'CATEGORY')}'`,
        );
      else
        ctx.io.err(`secrets in ${secretsFile}; restart the ingress if it was already running to read them`);
    }
    return missing.length > 0 ? ExitCode.failure : ExitCode.ok;
  },
});

const listHelp = `tcr webhooks list: the registry's webhook subscriptions of every account

Usage: tcr webhooks list [--account NAME] [--json]

Shows each subscription's category and URL, and whether its secret is in the secrets file
(TCR_WEBHOOK_SECRETS_FILE or --secrets-file).

Options:
  --account NAME       list this account only
  --secrets-file PATH  the secrets file to look in (default TCR_WEBHOOK_SECRETS_FILE)
  --json               print the result as JSON
  -h, --help           this text`;

const listCommand: CliCommand = defineCommand({
  summary: "list the registry's webhook subscriptions",
  help: listHelp,
  options: { account: { type: 'string' }, 'secrets-file': { type: 'string' } },
  connection: false,
  async run(parsed, ctx) {
    const accounts = cliAccounts(ctx.env, parsed.values.account, listHelp);
    const secretsFile = secretsFileOf(parsed.values['secrets-file'], ctx.env);
    const labels = new Set(
      secretsFile ? loadWebhookSecretsForUpdate(secretsFile).map((s) => s.label ?? '') : [],
    );
    const rows: {
      account: string;
      eventCategory: string;
      webhookEndpoint: string;
      secretStored?: boolean;
    }[] = [];
    for (const account of accounts) {
      const subscriptions = await withClient(account, () =>
        cliRegistryClient(account).listWebhookSubscriptions(),
      );
      for (const s of subscriptions)
        rows.push({
          account: account.name,
          eventCategory: s.eventCategory,
          webhookEndpoint: s.webhookEndpoint,
          ...(secretsFile ? { secretStored: labels.has(secretLabel(account.name, s.eventCategory)) } : {}),
        });
    }
    if (parsed.values.json) ctx.json({ subscriptions: rows });
    else if (rows.length === 0) ctx.io.out('no webhook subscriptions');
    else for (const r of rows) ctx.io.out(subscriptionLine(r));
    return ExitCode.ok;
  },
});

const unsubscribeHelp = `tcr webhooks unsubscribe: remove an account's webhook subscriptions

Usage: tcr webhooks unsubscribe --account NAME (--category C ... | --all) [--secrets-file PATH]

Deletes the subscriptions (a category not subscribed is not an error) and their secrets from the
secrets file, when one is given.

Options:
  --account NAME       the account
  --category C         an event category (repeatable)
  --all                every category
  --secrets-file PATH  the secrets file to remove the secrets from (default TCR_WEBHOOK_SECRETS_FILE)
  --json               print the result as JSON
  -h, --help           this text`;

const unsubscribeCommand: CliCommand = defineCommand({
  summary: 'remove webhook subscriptions (and their stored secrets)',
  help: unsubscribeHelp,
  options: {
    account: { type: 'string' },
    category: { type: 'string', multiple: true },
    all: { type: 'boolean' },
    'secrets-file': { type: 'string' },
  },
  connection: false,
  async run(parsed, ctx) {
    const name = required(parsed.values.account, '--account', unsubscribeHelp);
    if (!parsed.values.all && !parsed.values.category?.length)
      throw new UsageError('name the categories (--category C ...) or give --all', unsubscribeHelp);
    const categories = categoriesOf(parsed.values.all ? undefined : parsed.values.category, unsubscribeHelp);
    const [account] = cliAccounts(ctx.env, name, unsubscribeHelp) as [ResolvedAccount];
    const secretsFile = secretsFileOf(parsed.values['secrets-file'], ctx.env);
    const results = await withClient(account, async () => {
      const client = cliRegistryClient(account);
      const out: { category: string; outcome: 'removed' | 'not subscribed' }[] = [];
      for (const category of categories) {
        try {
          await client.deleteWebhookSubscription(category);
          out.push({ category, outcome: 'removed' });
        } catch (error) {
          if (!(error instanceof NotFoundError)) throw error;
          out.push({ category, outcome: 'not subscribed' });
        }
      }
      return out;
    });
    if (secretsFile) {
      const stored = loadWebhookSecretsForUpdate(secretsFile);
      const labels = new Set(categories.map((c) => secretLabel(account.name, c)));
      const kept = stored.filter((s) => !s.label || !labels.has(s.label));
      if (kept.length !== stored.length) writeWebhookSecrets(secretsFile, kept);
    }
    if (parsed.values.json) ctx.json({ account: account.name, categories: results });
    else for (const r of results) ctx.io.out(`${account.name} ${r.category.padEnd(16)} ${r.outcome}`);
    return ExitCode.ok;
  },
});

/** One subscription as `tcr webhooks list` prints it; the registry's text without control characters. */
export function subscriptionLine(r: {
  account: string;
  eventCategory: string;
  webhookEndpoint: string;
  secretStored?: boolean;
}): string {
  const stored =
    r.secretStored === undefined ? '' : r.secretStored ? ' (secret stored)' : ' (no secret stored)';
  return oneLine(`${r.account} ${r.eventCategory.padEnd(16)} → ${r.webhookEndpoint}${stored}`);
}

export const webhooksCommands = commandGroup('webhooks', "manage the registry's webhook subscriptions", {
  subscribe: subscribeCommand,
  list: listCommand,
  unsubscribe: unsubscribeCommand,
});
