/**
 * The sealed envelope (payload envelope version 3, issue 35 item 3): how the webhook ingress encrypts
 * what it hands to Temporal while holding public keys only, so that code running in the ingress can
 * write payloads but never read one back, its own included.
 *
 * For each payload: a fresh ephemeral X25519 key pair; the shared secret with the recipient's public
 * key (an ingress key of the workers' ring) through HKDF-SHA256 (salt: both public keys; info: the
 * envelope label and key id) gives a one-time AES-256-GCM key; the key id is also the associated data,
 * so a ciphertext cannot be relabelled to another key. The ephemeral private key is dropped at once.
 *
 *   data: 32-byte ephemeral public key | 12-byte IV | ciphertext | 16-byte tag
 *
 * Opening needs the recipient's private key, which only the payload key file holds (./keyring.ts).
 *
 * Version 5 (the workflow binding, ./encryption-codec.ts): the same, with the label (HKDF info and
 * associated data) also holding the serialized binding (namespace and workflow id), so a payload
 * sealed for one workflow does not open under another's binding.
 */
import { createCipheriv, createDecipheriv, hkdfSync, type KeyObject, randomBytes } from 'node:crypto';
import { generateX25519, rawPublicKey, X25519_KEY_BYTES, x25519Agree, x25519PublicKey } from './x25519.js';

const CIPHER = 'aes-256-gcm';
const IV_BYTES = 12;
const TAG_BYTES = 16;

export class SealedEnvelopeError extends Error {
  override name = 'SealedEnvelopeError';
}

/** Version 3 without a binding; version 5 with one (the serialized binding, ./encryption-codec.ts). */
function label(keyId: string, binding: string | undefined): Buffer {
  return Buffer.from(
    binding === undefined ? `tcr-payload-v3\0${keyId}` : `tcr-payload-v5\0${keyId}\0${binding}`,
  );
}

function contentKey(shared: Buffer, ephemeral: Buffer, recipient: Buffer, info: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', shared, Buffer.concat([ephemeral, recipient]), info, 32));
}

/**
 * Seals `plain` to the public key `recipient` (raw X25519) of ingress key `keyId`; with `binding`
 * (version 5), bound to it too.
 */
export function seal(plain: Uint8Array, keyId: string, recipient: Buffer, binding?: string): Buffer {
  const ephemeral = generateX25519();
  const info = label(keyId, binding);
  const key = contentKey(
    x25519Agree(ephemeral.key, x25519PublicKey(recipient)),
    ephemeral.publicKey,
    recipient,
    info,
  );
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv(CIPHER, key, iv);
  cipher.setAAD(info);
  return Buffer.concat([ephemeral.publicKey, iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
}

/**
 * Opens what `seal` made for ingress key `keyId` (and `binding`, version 5), with its private key;
 * throws when it does not authenticate.
 */
export function open(data: Buffer, keyId: string, privateKey: KeyObject, binding?: string): Buffer {
  if (data.length < X25519_KEY_BYTES + IV_BYTES + TAG_BYTES)
    throw new SealedEnvelopeError(`sealed payload (key '${keyId}') is too short`);
  const ephemeral = data.subarray(0, X25519_KEY_BYTES);
  const iv = data.subarray(X25519_KEY_BYTES, X25519_KEY_BYTES + IV_BYTES);
  try {
    const shared = x25519Agree(privateKey, x25519PublicKey(Buffer.from(ephemeral)));
    const info = label(keyId, binding);
    const key = contentKey(shared, ephemeral, rawPublicKey(privateKey), info);
    const decipher = createDecipheriv(CIPHER, key, iv);
    decipher.setAAD(info);
    decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
    return Buffer.concat([
      decipher.update(data.subarray(X25519_KEY_BYTES + IV_BYTES, data.length - TAG_BYTES)),
      decipher.final(),
    ]);
  } catch {
    throw new SealedEnvelopeError(
      `payload sealed to ingress key '${keyId}' does not authenticate (wrong key or altered data)`,
    );
  }
}
