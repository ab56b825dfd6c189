/**
 * The webhook secrets file (TCR_WEBHOOK_SECRETS_FILE): the signing secrets the ingress accepts, one
 * per line, so the separator (a line break) cannot occur in a secret. Lines that start with `#` are
 * comments; `tcr webhooks subscribe` writes a label comment before each secret it stores, naming the
 * account and the event category (the registry gives one secret per category), and replaces that
 * secret in place when it subscribes again.
 *
 * Each secret belongs to one CSP account: the ingress delivers an event only to the workflows of the
 * account whose secret verified it. A label names it; an unlabelled line (or a TCR_WEBHOOK_SECRETS
 * secret) is valid only when exactly one account is known to the ingress (TCR_INGRESS_ACCOUNTS, or
 * the labels of the file), else the configuration is refused naming the line. The ingress knows
 * accounts by name and optional cspId only (TCR_INGRESS_ACCOUNTS: `name[=cspId],...`), never their
 * API keys.
 *
 *   # tcr webhook secrets: one secret per line; lines starting with # are comments
 *   # account=acme category=BRAND
 *   <secret>
 *
 * Every secret is at least 32 bytes. The file must be readable by its owner only (mode 0600); it is
 * written atomically with that mode. Secrets never appear in a message of this module.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { secretFileProblem } from './accounts.js';

export const MIN_SECRET_BYTES = 32;

export interface StoredSecret {
  /** `account=acme category=BRAND`, or undefined for an unlabelled line. */
  label?: string;
  secret: string;
  /** The line it was read from (1-based), when read from a file. */
  line?: number;
}

const HEADER = '# tcr webhook secrets: one secret per line; lines starting with # are comments';
const LABEL = /^#\s*(account=\S+\s+category=\S+)\s*$/;

export const secretLabel = (account: string, category: string) => `account=${account} category=${category}`;

/** Parses the file's text; problems name the line, never the secret. */
export function parseWebhookSecrets(text: string, problems: string[], variable: string): StoredSecret[] {
  const secrets: StoredSecret[] = [];
  let label: string | undefined;
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    if (line === '') return;
    if (line.startsWith('#')) {
      label = LABEL.exec(line)?.[1];
      return;
    }
    if (Buffer.byteLength(line, 'utf8') < MIN_SECRET_BYTES)
      problems.push(
        `${variable}: the secret on line ${index + 1} is shorter than ${MIN_SECRET_BYTES} bytes; use the secret the registry issued (tcr webhooks subscribe stores it)`,
      );
    secrets.push({ ...(label ? { label } : {}), secret: line, line: index + 1 });
    label = undefined;
  });
  return secrets;
}

/**
 * Reads the secrets file the ingress uses: refused when group- or world-accessible, when a secret is
 * too short, or when it holds none.
 */
export function readWebhookSecretsFile(
  path: string,
  problems: string[],
  variable = 'TCR_WEBHOOK_SECRETS_FILE',
) {
  const access = secretFileProblem(variable, path);
  if (access) {
    problems.push(access);
    return [];
  }
  const secrets = parseWebhookSecrets(readFileSync(path, 'utf8'), problems, `${variable} (${path})`);
  if (secrets.length === 0) problems.push(`${variable} (${path}): holds no secret`);
  return secrets;
}

/** The stored secrets, or none when the file does not exist yet. Other problems are thrown. */
export function loadWebhookSecretsForUpdate(path: string): StoredSecret[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new Error(
      `cannot read the webhook secrets file ${path} (${(error as NodeJS.ErrnoException).code})`,
    );
  }
  const access = secretFileProblem('webhook secrets file', path);
  if (access) throw new Error(access);
  const problems: string[] = [];
  const secrets = parseWebhookSecrets(text, problems, path);
  if (problems.length > 0) throw new Error(problems.join('; '));
  return secrets;
}

/** Writes the secrets (atomically, mode 0600). */
export function writeWebhookSecrets(path: string, secrets: StoredSecret[]): void {
  const lines = [HEADER];
  for (const s of secrets) {
    if (/[\r\n]/.test(s.secret) || s.secret.trim() !== s.secret || s.secret.startsWith('#'))
      throw new Error(
        `a secret${s.label ? ` (${s.label})` : ''} cannot be stored in a line: it has a line break, surrounding space, or starts with #`,
      );
    if (s.label) lines.push(`# ${s.label}`);
    lines.push(s.secret);
  }
  const temporary = `${path}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(temporary, `${lines.join('\n')}\n`, { mode: 0o600, flag: 'wx' });
  renameSync(temporary, path);
}

/** Sets the secret of `label` (replacing the one stored under it). Returns whether anything changed. */
export function upsertSecret(secrets: StoredSecret[], label: string, secret: string): boolean {
  const existing = secrets.find((s) => s.label === label);
  if (existing) {
    if (existing.secret === secret) return false;
    existing.secret = secret;
    return true;
  }
  secrets.push({ label, secret });
  return true;
}

/** An account as the ingress knows it: its name and, when configured, its cspId. No credentials. */
export interface IngressAccount {
  name: string;
  cspId?: string;
}

/** A webhook secret and the account it verifies events for. */
export interface AccountSecret {
  account: string;
  secret: string;
}

/** The account a label names (`account=acme category=BRAND` → acme). */
export function accountOfLabel(label: string): string | undefined {
  return /(?:^|\s)account=(\S+)/.exec(label)?.[1];
}

const accountNamePattern = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const cspIdPattern = /^[A-Za-z0-9._-]{1,100}$/;

/**
 * TCR_INGRESS_ACCOUNTS: the accounts the ingress serves, `name` or `name=cspId`, comma-separated
 * (`acme=CSP1234,acme-qa`). Undefined when not set.
 */
export function parseIngressAccounts(
  value: string | undefined,
  problems: string[],
  variable = 'TCR_INGRESS_ACCOUNTS',
): IngressAccount[] | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const accounts: IngressAccount[] = [];
  value.split(',').forEach((raw, index) => {
    const item = raw.trim();
    const [name = '', cspId, ...rest] = item.split('=');
    if (
      !accountNamePattern.test(name) ||
      rest.length > 0 ||
      (cspId !== undefined && !cspIdPattern.test(cspId))
    ) {
      problems.push(
        `${variable}: entry ${index + 1} is not name or name=cspId (an account name: letters, digits, . _ -, up to 64; a cspId: letters, digits, . _ -)`,
      );
      return;
    }
    if (accounts.some((a) => a.name === name)) {
      problems.push(`${variable}: account ${name} is listed twice`);
      return;
    }
    accounts.push({ name, ...(cspId ? { cspId } : {}) });
  });
  return accounts;
}

/** A secret to assign: its label (file lines) and where it came from, for messages. */
export interface SecretSource {
  secret: string;
  label?: string;
  /** e.g. `TCR_WEBHOOK_SECRETS_FILE (path) line 3` or `TCR_WEBHOOK_SECRETS secret 2`. */
  where: string;
}

/**
 * Maps every secret to its account: a labelled one to the account its label names (which must be
 * among `configured`, when given), an unlabelled one to the only account known (configured, else the
 * labels' accounts), refused naming its line when there is not exactly one. One secret for two
 * accounts is refused. Returns the accounts the ingress serves and the secrets with their accounts.
 */
export function assignSecretAccounts(
  sources: readonly SecretSource[],
  configured: IngressAccount[] | undefined,
  problems: string[],
): { accounts: IngressAccount[]; secrets: AccountSecret[] } {
  const labelled = new Set<string>();
  for (const s of sources) {
    const account = s.label ? accountOfLabel(s.label) : undefined;
    if (account !== undefined) labelled.add(account);
  }
  const accounts = configured ?? [...labelled].map((name) => ({ name }));
  const names = accounts.map((a) => a.name);
  const secrets: AccountSecret[] = [];
  for (const s of sources) {
    let account = s.label ? accountOfLabel(s.label) : undefined;
    if (account !== undefined && !names.includes(account)) {
      problems.push(
        `${s.where}: labelled for account ${account}, which TCR_INGRESS_ACCOUNTS does not list (${names.join(', ')})`,
      );
      continue;
    }
    if (account === undefined) {
      if (names.length !== 1) {
        problems.push(
          `${s.where}: an unlabelled secret is valid only with exactly one account (${names.length === 0 ? 'none' : names.join(', ')} known): label it (# account=NAME category=CATEGORY on the line before) or set TCR_INGRESS_ACCOUNTS to its one account`,
        );
        continue;
      }
      account = names[0]!;
    }
    const other = secrets.find((e) => e.secret === s.secret && e.account !== account);
    if (other) {
      problems.push(`${s.where}: the same secret is given for accounts ${other.account} and ${account}`);
      continue;
    }
    if (!secrets.some((e) => e.secret === s.secret)) secrets.push({ account, secret: s.secret });
  }
  return { accounts, secrets };
}
