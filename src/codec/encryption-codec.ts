/**
 * The payload codec: every payload (workflow and activity inputs and results, signals, updates,
 * queries, memos, failure details and, with the failure converter of ./failure-converter.ts, failure
 * messages and stack traces) is replaced by an AES-256-GCM encryption of the whole original payload
 * (metadata included), under the keyring's current key, with the key's id in clear in the metadata.
 *
 *   metadata: { encoding: "binary/encrypted", "encryption-key-id": "<id>", "encryption-envelope": "2" }
 *   data:     32-byte salt | 12-byte IV | ciphertext | 16-byte tag
 *
 * Version 2 (written since issue 35): AES-256-GCM under a subkey HKDF-SHA256(key, salt, info), with
 * the envelope version and key id as associated data, so a ciphertext cannot be relabelled to another
 * key id. Each codec draws a random 256-bit salt and derives a new subkey after DEFAULT_SUBKEY_LIMIT
 * (2^32) encryptions, so no AES key ever sees more random 96-bit IVs than NIST's bound, however many
 * payloads the key file's key encrypts. Not bound to a workflow: written today only where the SDK
 * gives no serialization context (./workflow-binding.ts says where).
 * Version 4 (the workflow binding): version 2 with the namespace and workflow id of the encode's
 * serialization context in the associated data and in the metadata ("encryption-binding",
 * "encryption-namespace", "encryption-workflow-id"); decoded with another workflow's context it is
 * refused, without a context it opens (./workflow-binding.ts).
 * Version 1 (no "encryption-envelope"; 12-byte IV | ciphertext | tag under the key itself) is read,
 * never written.
 * Version 3 (issue 35, item 3): sealed by the webhook ingress to the public half of an ingress key
 * (X25519 + HKDF + AES-256-GCM, ./sealed-envelope.ts) with `SealingCodec`, which holds public keys
 * only and opens nothing; this codec opens it with the ring's ingress private key. Version 5: version
 * 3 bound to its workflow as version 4 is (the ingress's signal-with-start gives the target's context).
 * Versions 1, 2 and 3 are unbound: they open anywhere, and each decode is counted
 * (tcr_unbound_payload_decodes_total).
 *
 * Decoding uses the key its payload names, so payloads written before a rotation still decode. A
 * payload that is not encrypted (a history from before encryption was switched on) is counted, and
 * refused by a codec made with `plaintextInput: 'refuse'` (the worker, the ingress and order clients
 * started from their environment, unless TCR_ALLOW_PLAINTEXT_INPUT=true).
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { Payload, PayloadCodec, SerializationContext } from '@temporalio/common';
// @temporalio/proto is CommonJS: Node's ESM loader gives it a default export only (a named import
// works under vitest but not from dist/).
import proto from '@temporalio/proto';
import {
  onPlaintextDecode,
  plaintextDecodeCount,
  recordPlaintextDecode,
} from '../common/plaintext-decodes.js';
import { recordUnboundDecode } from '../common/unbound-decodes.js';
import type { Keyring } from './keyring.js';
import type { PublicKeys } from './public-keys.js';
import { open, SealedEnvelopeError, seal } from './sealed-envelope.js';
import {
  bindingFor,
  bindingMetadata,
  bindingMismatch,
  bindingOf,
  serializeBinding,
  type WorkflowBinding,
} from './workflow-binding.js';

export const ENCRYPTED_ENCODING = 'binary/encrypted';
export const KEY_ID_METADATA = 'encryption-key-id';
/** Present (value `2`) on version 2 envelopes; absent on version 1 (read, never written). */
export const ENVELOPE_METADATA = 'encryption-envelope';
const SALT_BYTES = 32;
/**
 * Encryptions under one derived subkey before a new one is derived: 2^32, NIST SP 800-38D's bound for
 * random 96-bit IVs under one AES key.
 */
export const DEFAULT_SUBKEY_LIMIT = 2 ** 32;
const CIPHER = 'aes-256-gcm';
const IV_BYTES = 12;
const TAG_BYTES = 16;

const PayloadProto = proto.temporal.api.common.v1.Payload;
const encryptedEncoding = Buffer.from(ENCRYPTED_ENCODING);
const envelopeV2 = Buffer.from('2');
const envelopeV3 = Buffer.from('3');
const envelopeV4 = Buffer.from('4');
const envelopeV5 = Buffer.from('5');

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
  /** Encryptions per derived subkey before a new salt (default DEFAULT_SUBKEY_LIMIT; tests lower it). */
  subkeyLimit?: number;
}

/** What a version 2 ciphertext is bound to (AES-GCM associated data): the envelope version and key id. */
function associatedData(keyId: string): Buffer {
  return Buffer.from(`tcr-payload-v2\0${keyId}`);
}

/** Version 4's associated data: the envelope version, key id and serialized workflow binding. */
function boundAssociatedData(keyId: string, binding: WorkflowBinding): Buffer {
  return Buffer.from(`tcr-payload-v4\0${keyId}\0${serializeBinding(binding)}`);
}

function subkey(key: Buffer, salt: Buffer, keyId: string): Buffer {
  return Buffer.from(hkdfSync('sha256', key, salt, associatedData(keyId), 32));
}

export { onPlaintextDecode, plaintextDecodeCount };

export class EncryptionCodec implements PayloadCodec {
  private readonly plaintextInput: PlaintextInput;
  private readonly subkeyLimit: number;
  private readonly subkeys = new Map<string, { salt: Buffer; key: Buffer; used: number }>();

  constructor(
    private readonly keyring: Keyring,
    options: EncryptionCodecOptions = {},
  ) {
    this.plaintextInput = options.plaintextInput ?? 'allow';
    this.subkeyLimit = options.subkeyLimit ?? DEFAULT_SUBKEY_LIMIT;
  }

  /** The subkey for the current key, a new one (new random salt) once the last reached its limit. */
  private currentSubkey(id: string, key: Buffer): { salt: Buffer; key: Buffer } {
    let entry = this.subkeys.get(id);
    if (!entry || entry.used >= this.subkeyLimit) {
      const salt = randomBytes(SALT_BYTES);
      entry = { salt, key: subkey(key, salt, id), used: 0 };
      this.subkeys.set(id, entry);
    }
    entry.used += 1;
    return entry;
  }

  /** With a context naming a workflow, bound to it (version 4); without, version 2. */
  async encode(payloads: Payload[], context?: SerializationContext): Promise<Payload[]> {
    const binding = bindingFor(context);
    return payloads.map((payload) => this.encrypt(payload, binding));
  }

  /** A bound payload decoded with another workflow's context is refused (PayloadDecryptionError). */
  async decode(payloads: Payload[], context?: SerializationContext): Promise<Payload[]> {
    return payloads.map((payload) => this.decrypt(payload, context));
  }

  encrypt(payload: Payload, binding?: WorkflowBinding): Payload {
    const { id, key } = this.keyring.current;
    const sub = this.currentSubkey(id, key);
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv(CIPHER, sub.key, iv);
    cipher.setAAD(binding ? boundAssociatedData(id, binding) : associatedData(id));
    const plain = PayloadProto.encode(payload).finish();
    const data = Buffer.concat([sub.salt, iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
    return {
      metadata: {
        encoding: encryptedEncoding,
        [KEY_ID_METADATA]: Buffer.from(id),
        [ENVELOPE_METADATA]: binding ? envelopeV4 : envelopeV2,
        ...(binding ? bindingMetadata(binding) : {}),
      },
      data,
    };
  }

  decrypt(payload: Payload, context?: SerializationContext): Payload {
    if (!isEncrypted(payload)) return plaintextInput(payload, this.plaintextInput);
    const id = payloadKeyId(payload);
    if (!id) throw new PayloadDecryptionError(`encrypted payload without '${KEY_ID_METADATA}' metadata`);
    const version = envelopeVersion(payload);
    let binding: WorkflowBinding | undefined;
    if (version === '4' || version === '5') {
      const read = bindingOf(payload);
      if (typeof read === 'string')
        throw new PayloadDecryptionError(`encrypted payload (key '${id}'): ${read}`);
      binding = read;
    }
    // Opened first, so the ids an error names are the authenticated ones; no plaintext is returned.
    const opened = this.open(payload, id, version, binding);
    if (!binding) {
      recordUnboundDecode(version);
      return opened;
    }
    const mismatch = bindingMismatch(binding, context);
    if (mismatch) throw new PayloadDecryptionError(mismatch);
    return opened;
  }

  private open(payload: Payload, id: string, version: string, binding: WorkflowBinding | undefined): Payload {
    if (version === '3' || version === '5') return this.openSealed(payload, id, binding);
    const key = this.keyring.key(id);
    if (!key)
      throw new PayloadDecryptionError(
        `payload encrypted with key '${id}', which is not in the keyring (have: ${this.keyring.ids().join(', ')})`,
      );
    if (version !== '1' && version !== '2' && version !== '4')
      throw new PayloadDecryptionError(`encrypted payload (key '${id}') of unknown envelope version`);
    const salted = version !== '1';
    const saltBytes = salted ? SALT_BYTES : 0;
    const data = payload.data ?? new Uint8Array();
    if (data.length < saltBytes + IV_BYTES + TAG_BYTES)
      throw new PayloadDecryptionError(`encrypted payload (key '${id}') is too short`);
    const all = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    const bytes = all.subarray(saltBytes);
    const decipher = createDecipheriv(
      CIPHER,
      salted ? subkey(key, all.subarray(0, SALT_BYTES), id) : key,
      bytes.subarray(0, IV_BYTES),
    );
    if (salted) decipher.setAAD(binding ? boundAssociatedData(id, binding) : associatedData(id));
    decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
    let plain: Buffer;
    try {
      plain = Buffer.concat([
        decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)),
        decipher.final(),
      ]);
    } catch {
      throw new PayloadDecryptionError(
        `payload encrypted with key '${id}' does not authenticate (wrong key, or altered data or binding)`,
      );
    }
    return PayloadProto.decode(plain);
  }

  /** A version 3 (or bound, 5) payload, sealed by the ingress to ingress key `id`: opened with its private key. */
  private openSealed(payload: Payload, id: string, binding: WorkflowBinding | undefined): Payload {
    const privateKey = this.keyring.sealingKey(id);
    if (!privateKey)
      throw new PayloadDecryptionError(
        `payload sealed to ingress key '${id}', which is not in the keyring (have ingress keys: ${this.keyring.sealingIds().join(', ') || 'none'})`,
      );
    const data = payload.data ?? new Uint8Array();
    try {
      return PayloadProto.decode(
        open(
          Buffer.from(data.buffer, data.byteOffset, data.byteLength),
          id,
          privateKey,
          binding && serializeBinding(binding),
        ),
      );
    } catch (error) {
      if (error instanceof SealedEnvelopeError) throw new PayloadDecryptionError(error.message);
      throw error;
    }
  }
}

function envelopeVersion(payload: Payload): string {
  const envelope = payload.metadata?.[ENVELOPE_METADATA];
  return envelope ? Buffer.from(envelope).toString('utf8') : '1';
}

/** A payload that is not encrypted: counted, and refused unless plaintext input is allowed. */
function plaintextInput(payload: Payload, mode: PlaintextInput): Payload {
  recordPlaintextDecode();
  if (mode === 'refuse')
    throw new PayloadDecryptionError(
      'payload is not encrypted, and this process has payload keys: refusing plaintext input (set TCR_ALLOW_PLAINTEXT_INPUT=true only for a migration window, while histories from before encryption are still read)',
    );
  return payload;
}

/**
 * The webhook ingress's codec: seals every payload to the current public ingress key (envelope
 * version 3) and opens none, not even its own: it holds no private key (./public-keys.ts). The
 * ingress only signals workflows and never reads a payload back; a decode is refused, naming why.
 */
export class SealingCodec implements PayloadCodec {
  private readonly plaintextInput: PlaintextInput;

  constructor(
    private readonly publicKeys: PublicKeys,
    options: Pick<EncryptionCodecOptions, 'plaintextInput'> = {},
  ) {
    this.plaintextInput = options.plaintextInput ?? 'refuse';
  }

  /** Bound (version 5) to the workflow `context` names, e.g. the target of a signal-with-start. */
  async encode(payloads: Payload[], context?: SerializationContext): Promise<Payload[]> {
    const binding = bindingFor(context);
    return payloads.map((payload) => this.seal(payload, binding));
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => {
      if (!isEncrypted(payload)) return plaintextInput(payload, this.plaintextInput);
      throw new PayloadDecryptionError(
        `payload encrypted with key '${payloadKeyId(payload) ?? '?'}': this process holds only the ingress's public keys, which encrypt but never decrypt`,
      );
    });
  }

  seal(payload: Payload, binding?: WorkflowBinding): Payload {
    const { id, key } = this.publicKeys.current;
    return {
      metadata: {
        encoding: encryptedEncoding,
        [KEY_ID_METADATA]: Buffer.from(id),
        [ENVELOPE_METADATA]: binding ? envelopeV5 : envelopeV3,
        ...(binding ? bindingMetadata(binding) : {}),
      },
      data: seal(PayloadProto.encode(payload).finish(), id, key, binding && serializeBinding(binding)),
    };
  }
}
