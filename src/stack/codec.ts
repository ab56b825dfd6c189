/**
 * The local stack's payload encryption: its own key file and codec-server token in the data folder
 * (created once, mode 0600, so a restart decrypts what the last run wrote), the codec server the Web
 * UI and the `temporal` CLI decode through, and a `temporal` CLI configuration file that points the
 * CLI at it. Nothing here is ever logged: the token travels only in the files and in the Web UI's
 * codec endpoint URL (loopback only; the dev server's UI cannot send a header).
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type RunningCodecServer, startCodecServer } from '../codec/codec-server.js';
import { ensureKeyFile, writeKeyFile } from '../codec/key-file.js';
import type { Keyring } from '../codec/keyring.js';
import { PublicKeys, writePublicKeyFile } from '../codec/public-keys.js';

export const PAYLOAD_KEYS_FILE_NAME = 'payload-keys.json';
/** The ingress's public key file (TCR_INGRESS_PAYLOAD_PUBLIC_KEYS_FILE): all the stack's ingress holds. */
export const INGRESS_PUBLIC_KEYS_FILE_NAME = 'ingress-public-keys.json';
export const CODEC_TOKEN_FILE_NAME = 'codec-token';
export const CLI_PROFILE_FILE_NAME = 'temporal-cli.toml';

export interface LocalCodec {
  keyring: Keyring;
  /** `{dataDir}/payload-keys.json`: what TCR_PAYLOAD_KEYS_FILE names for a CLI or order system on this stack. */
  keysFile: string;
  /** `{dataDir}/ingress-public-keys.json`: the public ingress keys, what the stack's ingress is given. */
  publicKeysFile: string;
  /** The codec server's token (a secret). */
  token: string;
  server: RunningCodecServer;
  /** What the Web UI calls: the server's URL with the token as path prefix. */
  uiEndpoint: string;
}

/** The token in `{dataDir}/codec-token`, created on first use (0600). */
export function localCodecToken(dataDir: string): string {
  const file = join(dataDir, CODEC_TOKEN_FILE_NAME);
  if (existsSync(file)) {
    const token = readFileSync(file, 'utf8').trim();
    if (/^[0-9a-f]{32,}$/.test(token)) return token;
  }
  const token = randomBytes(24).toString('hex');
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return token;
}

/** Key file, token and codec server on `port` for a Web UI on `uiPort`. */
export async function startLocalCodec(opts: {
  dataDir: string;
  port: number;
  uiPort: number;
}): Promise<LocalCodec> {
  const keysFile = join(opts.dataDir, PAYLOAD_KEYS_FILE_NAME);
  let keyring = ensureKeyFile(keysFile);
  // A key file from before the ingress keys (issue 35, item 3) gets one; the ingress gets its public half.
  if (keyring.sealingIds().length === 0) {
    keyring = keyring.withNewSealingKey();
    writeKeyFile(keysFile, keyring);
  }
  const publicKeysFile = join(opts.dataDir, INGRESS_PUBLIC_KEYS_FILE_NAME);
  writePublicKeyFile(publicKeysFile, PublicKeys.of(keyring));
  const token = localCodecToken(opts.dataDir);
  const server = await startCodecServer({
    keyring,
    tokens: [token],
    allowedOrigins: [`http://127.0.0.1:${opts.uiPort}`, `http://localhost:${opts.uiPort}`],
    host: '127.0.0.1',
    port: opts.port,
    onError: (message) => console.error(message),
  });
  return { keyring, keysFile, publicKeysFile, token, server, uiEndpoint: `${server.url}/t/${token}` };
}

/**
 * `{dataDir}/temporal-cli.toml` (0600): a `temporal` CLI profile for the stack with its codec server,
 * so `TEMPORAL_CONFIG_FILE=.data/temporal-cli.toml temporal workflow show -w brand/local/acme-widgets`
 * prints decoded payloads.
 */
export function writeTemporalCliConfig(opts: {
  dataDir: string;
  address: string;
  namespace: string;
  codecUrl: string;
  token: string;
}): string {
  const file = join(opts.dataDir, CLI_PROFILE_FILE_NAME);
  const toml = [
    '# Written by tcr dev: the local stack with its codec server. Holds a secret (the codec token).',
    '[profile.default]',
    `address = ${JSON.stringify(opts.address)}`,
    `namespace = ${JSON.stringify(opts.namespace)}`,
    '',
    '[profile.default.codec]',
    `endpoint = ${JSON.stringify(opts.codecUrl)}`,
    `auth = ${JSON.stringify(`Bearer ${opts.token}`)}`,
    '',
  ].join('\n');
  writeFileSync(file, toml, { mode: 0o600 });
  chmodSync(file, 0o600);
  return file;
}
