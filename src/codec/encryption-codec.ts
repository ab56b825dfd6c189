/**
 * The payload codec: every payload (workflow and activity inputs and results, signals, updates,
 * queries, memos, failure details and, with the failure converter of ./failure-converter.ts, failure
 * messages and stack traces) is replaced by an AES-256-GCM encryption of the whole original payload
 * (metadata included), under the keyring's current key, with the key's id in clear in the metadata.
 *
 *   metadata: { encoding: "binary/encrypted", "encryption-key-id": "<id>" }
 *   data:     12-byte IV | ciphertext | 16-byte tag
 *
 * Decoding uses the key its payload names, so payloads written before a rotation still decode. A
 * payload that is not encrypted (a history from before encryption was switched on) is counted, and
 * refused by a codec made with `plaintextInput: 'refuse'` (the worker, the ingress and order clients
 * started from their environment, unless TCR_ALLOW_PLAINTEXT_INPUT=true).
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Payload, PayloadCodec } from '@temporalio/common';
// @temporalio/proto is CommonJS: Node's ESM loader gives it a default export only (a named import
// works under vitest but not from dist/).
import proto from '@temporalio/proto';
import type { Keyring } from './keyring.js';

export const ENCRYPTED_ENCODING = 'binary/encrypted';
export const KEY_ID_METADATA = 'encryption-key-id';
const CIPHER = 'aes-256-gcm';
const IV_BYTES = 12;
const TAG_BYTES = 16;

const PayloadProto = proto.temporal.api.common.v1.Payload;
const encryptedEncoding = Buffer.from(ENCRYPTED_ENCODING);

export class PayloadDecryptionError extends Error {
  override name = 'PayloadDecryptionError';
}

export function isEncrypted(payload: Payload): boolean {
  const encoding = payload.metadata?.encoding;
  return encoding !== undefined && encoding !== null && encryptedEncoding.equals(encoding);
}

/** The key id an encrypted payload names (undefined for a payload that is not encrypted). */
export function payloadKeyId(payload: Payload): string | undefined {
  if (!isEncrypted(payload)) return undefined;
  const id = payload.metadata?.[KEY_ID_METADATA];
  return id ? Buffer.from(id).toString('utf8') : undefined;
}

/** What a codec does with a payload that is not encrypted (a history from before encryption). */
export type PlaintextInput = 'allow' | 'refuse';

export interface EncryptionCodecOptions {
  /** Default 'allow' (the codec server and the CLI read old histories); processes started from their
   * environment refuse (TCR_ALLOW_PLAINTEXT_INPUT, src/codec/data-converter.ts). */
  plaintextInput?: PlaintextInput;
}

let plaintextDecodes = 0;
const plaintextListeners = new Set<() => void>();

/** Plaintext payloads met by any codec of this process (allowed or refused). */
export function plaintextDecodeCount(): number {
  return plaintextDecodes;
}

/** Calls `listener` on each plaintext payload a codec meets (the metric). Returns an unsubscribe. */
export function onPlaintextDecode(listener: () => void): () => void {
  plaintextListeners.add(listener);
  return () => plaintextListeners.delete(listener);
}

export class EncryptionCodec implements PayloadCodec {
  private readonly plaintextInput: PlaintextInput;

  constructor(
    private readonly keyring: Keyring,
    options: EncryptionCodecOptions = {},
  ) {
    this.plaintextInput = options.plaintextInput ?? 'allow';
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => this.encrypt(payload));
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => this.decrypt(payload));
  }

  encrypt(payload: Payload): Payload {
    const { id, key } = this.keyring.current;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv(CIPHER, key, iv);
    const plain = PayloadProto.encode(payload).finish();
    const data = Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
    return {
      metadata: { encoding: encryptedEncoding, [KEY_ID_METADATA]: Buffer.from(id) },
      data,
    };
  }

  decrypt(payload: Payload): Payload {
    if (!isEncrypted(payload)) {
      plaintextDecodes += 1;
      for (const listener of plaintextListeners) listener();
      if (this.plaintextInput === 'refuse')
        throw new PayloadDecryptionError(
          'payload is not encrypted, and this process has payload keys: refusing plaintext input (set TCR_ALLOW_PLAINTEXT_INPUT=true only for a migration window, while histories from before encryption are still read)',
        );
      return payload;
    }
    const id = payloadKeyId(payload);
    if (!id) throw new PayloadDecryptionError(`encrypted payload without '${KEY_ID_METADATA}' metadata`);
    const key = this.keyring.key(id);
    if (!key)
      throw new PayloadDecryptionError(
        `payload encrypted with key '${id}', which is not in the keyring (have: ${this.keyring.ids().join(', ')})`,
      );
    const data = payload.data ?? new Uint8Array();
    if (data.length < IV_BYTES + TAG_BYTES)
      throw new PayloadDecryptionError(`encrypted payload (key '${id}') is too short`);
    const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    const decipher = createDecipheriv(CIPHER, key, bytes.subarray(0, IV_BYTES));
    decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
    let plain: Buffer;
    try {
      plain = Buffer.concat([
        decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)),
        decipher.final(),
      ]);
    } catch {
      throw new PayloadDecryptionError(
        `payload encrypted with key '${id}' does not authenticate (wrong key or altered data)`,
      );
    }
    return PayloadProto.decode(plain);
  }
}
