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
import { EncryptionCodec } from './encryption-codec.js';
import { type Env, keyringFromEnv } from './key-file.js';
import type { Keyring } from './keyring.js';

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
    ...(keyring ? { payloadCodecs: [new EncryptionCodec(keyring)] } : {}),
  };
}

/** Whether a converter of `dataConverter()` encrypts payloads. */
export function encryptsPayloads(converter: DataConverter): boolean {
  return (converter.payloadCodecs ?? []).some((codec) => codec instanceof EncryptionCodec);
}

/** Options for `bundleWorkflowCode`: the workflow sandbox's failure converter. */
export const workflowBundleConverterOptions = { failureConverterPath } as const;
