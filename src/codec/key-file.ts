/**
 * Where the payload keys come from: a key file (TCR_PAYLOAD_KEYS_FILE, mode 0600, a mounted secret in
 * production) or the key file's document in TCR_PAYLOAD_KEYS. Never from the image or the repository.
 * Writes are atomic (a temporary file renamed over the old one) and leave the file 0600.
 */
import { existsSync, readFileSync } from 'node:fs';
import { secretFileProblem, writeSecretFile } from '../common/secret-file.js';
import { Keyring, KeyringError } from './keyring.js';

export const KEYS_FILE_VARIABLE = 'TCR_PAYLOAD_KEYS_FILE';
export const KEYS_VARIABLE = 'TCR_PAYLOAD_KEYS';

export type Env = Record<string, string | undefined>;

/**
 * The ring in `path`, refused unless only its owner can read it (mode 0600 or stricter); `label` names
 * the file in errors (default the variable TCR_PAYLOAD_KEYS_FILE).
 */
export function readKeyFile(path: string, label: string = KEYS_FILE_VARIABLE): Keyring {
  return Keyring.parse(readKeyFileText(path, label, 'payload key file'), `payload key file ${path}`);
}

/** The text of a key file (`what` names it in errors), refused unless only its owner can read it. */
export function readKeyFileText(path: string, label: string, what: string): string {
  const access = secretFileProblem(label, path);
  if (access) throw new KeyringError(access);
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as { code?: string }).code ?? 'unreadable';
    throw new KeyringError(`${what} ${path}: cannot read it (${code})`);
  }
}

/**
 * Writes the ring to `path` (0600), replacing any file there in one rename, through an exclusively
 * created temporary file of a random name.
 */
export function writeKeyFile(path: string, keyring: Keyring): void {
  writeSecretFile(path, `${JSON.stringify(keyring.toFile(), null, 2)}\n`);
}

/** The ring in `path`; a new file with one fresh key when there is none (the local stack's own key). */
export function ensureKeyFile(path: string): Keyring {
  if (existsSync(path)) return readKeyFile(path);
  const keyring = Keyring.generate();
  writeKeyFile(path, keyring);
  return keyring;
}

/**
 * The keyring the environment names: TCR_PAYLOAD_KEYS_FILE (a path) or TCR_PAYLOAD_KEYS (the file's
 * JSON document); undefined when neither is set (payloads then travel unencrypted).
 */
export function keyringFromEnv(env: Env = process.env): Keyring | undefined {
  const file = env[KEYS_FILE_VARIABLE] || undefined;
  const inline = env[KEYS_VARIABLE] || undefined;
  if (file && inline) throw new KeyringError(`set ${KEYS_FILE_VARIABLE} or ${KEYS_VARIABLE}, not both`);
  if (file) return readKeyFile(file);
  if (inline) return Keyring.parse(inline, KEYS_VARIABLE);
  return undefined;
}
