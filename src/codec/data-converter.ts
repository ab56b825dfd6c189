/**
 * The one data converter of the product: the worker, the ingress's client, the CLI, the local stack,
 * the benchmarks and order systems (exported from the package) all use `dataConverter()`, so
 * whatever any of them writes to Temporal the others read.
 *
 * With a keyring (given, or named by TCR_PAYLOAD_KEYS_FILE / TCR_PAYLOAD_KEYS), payloads are
 * encrypted (./encryption-codec.ts). Failure messages and stack traces are always moved into an
 * encoded payload, so they are encrypted too whenever payloads are.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { DataConverter } from '@temporalio/common';
import { EncryptionCodec, type PlaintextInput } from './encryption-codec.js';

export { onPlaintextDecode, plaintextDecodeCount } from './encryption-codec.js';

import { type Env, KEYS_FILE_VARIABLE, KEYS_VARIABLE, keyringFromEnv } from './key-file.js';
import { type Keyring, KeyringError } from './keyring.js';

/**
 * TCR_PAYLOAD_ENCRYPTION: `required` (the default) or `off`. A process that writes payloads (an order
 * system's client, the worker, the ingress) cannot ask the namespace whether its workers encrypt, so
 * it does not guess: unless told `off` (a namespace whose workers run without keys, on purpose), it
 * refuses to start without keys instead of writing an order's personal data in clear.
 */
export const ENCRYPTION_VARIABLE = 'TCR_PAYLOAD_ENCRYPTION';
export type PayloadEncryption = 'required' | 'off';

export function payloadEncryptionFromEnv(env: Env): PayloadEncryption {
  const value = env[ENCRYPTION_VARIABLE]?.trim() || 'required';
  if (value === 'required' || value === 'off') return value;
  throw new KeyringError(`${ENCRYPTION_VARIABLE}: expected required or off (the default is required)`);
}

/**
 * The keyring `env` names, or undefined when TCR_PAYLOAD_ENCRYPTION=off and there is none. Throws
 * (naming the variables) when encryption is required and no keys are set.
 */
export function requiredKeyringFromEnv(env: Env): Keyring | undefined {
  const mode = payloadEncryptionFromEnv(env);
  const keyring = keyringFromEnv(env);
  if (!keyring && mode === 'required')
    throw new KeyringError(
      `${KEYS_FILE_VARIABLE}: not set (nor ${KEYS_VARIABLE}), and payloads must be encrypted (${ENCRYPTION_VARIABLE}=required, the default): set ${KEYS_FILE_VARIABLE} to the workers' key file; only for a namespace whose workers do not encrypt, set ${ENCRYPTION_VARIABLE}=off`,
    );
  return keyring;
}

/** The failure converter module, by path (the SDK requires it): the build's .js, or the .ts source. */
export const failureConverterPath = ((): string => {
  const built = fileURLToPath(new URL('./failure-converter.js', import.meta.url));
  return existsSync(built) ? built : fileURLToPath(new URL('./failure-converter.ts', import.meta.url));
})();

export interface DataConverterOptions {
  /** The keys; default: the ones TCR_PAYLOAD_KEYS_FILE / TCR_PAYLOAD_KEYS name in `env`. */
  keyring?: Keyring;
  /** Where to look for the keys when no keyring is given (default process.env). */
  env?: Env;
  /** What the codec does with payloads that are not encrypted (default 'allow', counted). */
  plaintextInput?: PlaintextInput;
}

export const ALLOW_PLAINTEXT_VARIABLE = 'TCR_ALLOW_PLAINTEXT_INPUT';

/** TCR_ALLOW_PLAINTEXT_INPUT: `true` opens a migration window for plaintext input; default refuse. */
export function plaintextInputFromEnv(env: Env): PlaintextInput {
  const value = env[ALLOW_PLAINTEXT_VARIABLE]?.trim().toLowerCase() || 'false';
  if (value === 'true') return 'allow';
  if (value === 'false') return 'refuse';
  throw new KeyringError(`${ALLOW_PLAINTEXT_VARIABLE}: expected true or false (default false)`);
}

/**
 * The data converter for a Temporal Client or Worker. Without a keyring (none given and none in the
 * environment) payloads are not encrypted; `payloadEncryption(converter)` tells which.
 *
 *   new Client({ connection, dataConverter: dataConverter() })
 */
export function dataConverter(options: DataConverterOptions = {}): DataConverter {
  const keyring = options.keyring ?? keyringFromEnv(options.env ?? process.env);
  return {
    failureConverterPath,
    ...(keyring
      ? {
          payloadCodecs: [
            new EncryptionCodec(keyring, { plaintextInput: options.plaintextInput ?? 'allow' }),
          ],
        }
      : {}),
  };
}

/**
 * The data converter of a process configured by its environment (an order system's client, the
 * worker, the ingress): keys from TCR_PAYLOAD_KEYS_FILE / TCR_PAYLOAD_KEYS, and none only when
 * TCR_PAYLOAD_ENCRYPTION=off (see `requiredKeyringFromEnv`).
 */
export function requiredDataConverter(env: Env = process.env): DataConverter {
  const keyring = requiredKeyringFromEnv(env);
  const plaintextInput = plaintextInputFromEnv(env);
  return dataConverter(keyring ? { keyring, plaintextInput } : { env: {} });
}

/** Whether a converter of `dataConverter()` encrypts payloads. */
export function encryptsPayloads(converter: DataConverter): boolean {
  return (converter.payloadCodecs ?? []).some((codec) => codec instanceof EncryptionCodec);
}

/** Options for `bundleWorkflowCode`: the workflow sandbox's failure converter. */
export const workflowBundleConverterOptions = { failureConverterPath } as const;
