/**
 * Where `tcr` takes its payload keys from, in this order:
 *
 * 1. TCR_PAYLOAD_KEYS_FILE (or the inline TCR_PAYLOAD_KEYS): the workers' key file, as the worker
 *    and the ingress read it.
 * 2. The local stack's: when neither is set and the CLI talks to the Temporal server of the local
 *    stack whose data folder is TCR_DATA_DIR (default `.data` at the project root), the stack's
 *    `payload-keys.json` there. "Talks to the stack" means the address the CLI connects to is the one
 *    the stack wrote into its `temporal-cli.toml` (or, when that file is missing, the stack's default
 *    127.0.0.1:7233). Like every secret file, it must be readable by its owner only.
 * 3. None. Then the CLI fails closed: it sends no payload in clear (a start, an update, a signal with
 *    arguments is refused before it leaves, since the namespace's workers may encrypt and cannot be
 *    asked), and an encrypted payload it reads is refused with the same message, which names
 *    TCR_PAYLOAD_KEYS_FILE and the local stack's key file. Payloads that are not encrypted are read
 *    as they are, and a query without arguments sends none.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Payload, PayloadCodec } from '@temporalio/common';
import { isEncrypted, payloadKeyId } from '../codec/encryption-codec.js';
import { KEYS_FILE_VARIABLE, KEYS_VARIABLE, keyringFromEnv, readKeyFile } from '../codec/key-file.js';
import type { Keyring } from '../codec/keyring.js';
import { messageOf } from '../common/error-message.js';
import { DEFAULT_TEMPORAL_ADDRESS } from '../config/temporal-connection.js';
import { CLI_PROFILE_FILE_NAME, PAYLOAD_KEYS_FILE_NAME } from '../stack/codec.js';
import { projectRoot } from '../toolchain/paths.js';
import { CliError, ExitCode } from './errors.js';

type Env = Record<string, string | undefined>;

/** The local stack's data folder: TCR_DATA_DIR, or `.data` at the project root (as `tcr dev`). */
export function localStackDataDir(env: Env): string {
  return resolve(env.TCR_DATA_DIR || join(projectRoot, '.data'));
}

export function localStackKeysFile(env: Env): string {
  return join(localStackDataDir(env), PAYLOAD_KEYS_FILE_NAME);
}

export const normalAddress = (address: string) => address.trim().replace(/^localhost:/i, '127.0.0.1:');

/** The address the stack wrote into `{dataDir}/temporal-cli.toml`; the default one without that file. */
export function localStackAddress(dataDir: string): string | undefined {
  const profile = join(dataDir, CLI_PROFILE_FILE_NAME);
  if (!existsSync(profile)) return DEFAULT_TEMPORAL_ADDRESS;
  const match = /^\s*address\s*=\s*"([^"]+)"\s*$/m.exec(readFileSync(profile, 'utf8'));
  return match?.[1];
}

export interface CliKeys {
  /** Undefined: no keys anywhere (the CLI then fails closed, see `noKeysCodec`). */
  keyring: Keyring | undefined;
  /** Where they came from, for messages: the variable, or the stack's file. */
  source: string;
}

/** The keys for a CLI connecting to `address` (see the module comment for the order). */
export function cliPayloadKeys(env: Env, address: string): CliKeys {
  if (env[KEYS_FILE_VARIABLE] || env[KEYS_VARIABLE]) {
    try {
      return {
        keyring: keyringFromEnv(env),
        source: env[KEYS_FILE_VARIABLE] ? KEYS_FILE_VARIABLE : KEYS_VARIABLE,
      };
    } catch (error) {
      throw new CliError(messageOf(error), ExitCode.usage);
    }
  }
  const dataDir = localStackDataDir(env);
  const file = join(dataDir, PAYLOAD_KEYS_FILE_NAME);
  if (!existsSync(file)) return { keyring: undefined, source: 'none' };
  const stackAddress = localStackAddress(dataDir);
  if (stackAddress === undefined || normalAddress(stackAddress) !== normalAddress(address))
    return { keyring: undefined, source: 'none' };
  try {
    return { keyring: readKeyFile(file, "the local stack's payload key file"), source: file };
  } catch (error) {
    throw new CliError(messageOf(error), ExitCode.usage);
  }
}

/** The error of a CLI without keys that met an encrypted payload or was about to send one in clear. */
export function missingKeysMessage(env: Env, what: string): string {
  return `${what}, and this CLI has no payload keys: set ${KEYS_FILE_VARIABLE} to the workers' key file (docs/cli.md, "Payload keys"); against the local stack it is ${localStackKeysFile(env)}, which tcr finds by itself when it connects to that stack's address (set TCR_DATA_DIR for a stack started with another data folder)`;
}

/**
 * The codec of a CLI without keys: it sends nothing in clear (any payload to encode is refused: the
 * workers may encrypt, and nothing tells the CLI they do not) and refuses encrypted payloads with a
 * message that says where the keys are, instead of the SDK's "Unknown encoding: binary/encrypted".
 */
export function noKeysCodec(env: Env): PayloadCodec {
  return {
    async encode(payloads: Payload[]): Promise<Payload[]> {
      if (payloads.length === 0) return payloads;
      throw new CliError(missingKeysMessage(env, 'refusing to send a payload unencrypted'), ExitCode.usage);
    },
    async decode(payloads: Payload[]): Promise<Payload[]> {
      const encrypted = payloads.find(isEncrypted);
      if (encrypted)
        throw new CliError(
          missingKeysMessage(
            env,
            `the payloads are encrypted (key '${payloadKeyId(encrypted) ?? 'unknown'}')`,
          ),
          ExitCode.usage,
        );
      return payloads;
    },
  };
}
