/**
 * The webhook secrets file (TCR_WEBHOOK_SECRETS_FILE): the signing secrets the ingress accepts, one
 * per line, so the separator (a line break) cannot occur in a secret. Lines that start with `#` are
 * comments; `tcr webhooks subscribe` writes a label comment before each secret it stores, naming the
 * account and the event category (the registry gives one secret per category), and replaces that
 * secret in place when it subscribes again. Hand-written files need no labels.
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
    secrets.push({ ...(label ? { label } : {}), secret: line });
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
