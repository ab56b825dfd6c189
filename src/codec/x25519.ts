/**
 * X25519 key pairs as raw 32-byte keys (what the key files hold, in base64), and the Diffie-Hellman
 * agreement between them, with node:crypto only. Node takes X25519 keys as DER: the raw key behind a
 * fixed PKCS#8 (private) or SPKI (public) prefix (RFC 8410).
 */
import {
  createPrivateKey,
  createPublicKey,
  diffieHellman,
  generateKeyPairSync,
  type KeyObject,
} from 'node:crypto';

export const X25519_KEY_BYTES = 32;
const PKCS8_PREFIX = Buffer.from('302e020100300506032b656e04220420', 'hex');
const SPKI_PREFIX = Buffer.from('302a300506032b656e032100', 'hex');

export function x25519PrivateKey(raw: Buffer): KeyObject {
  return createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, raw]), format: 'der', type: 'pkcs8' });
}

export function x25519PublicKey(raw: Buffer): KeyObject {
  return createPublicKey({ key: Buffer.concat([SPKI_PREFIX, raw]), format: 'der', type: 'spki' });
}

/** The raw public key of a key object (private or public). */
export function rawPublicKey(key: KeyObject): Buffer {
  const publicKey = key.type === 'private' ? createPublicKey(key) : key;
  return publicKey.export({ format: 'der', type: 'spki' }).subarray(SPKI_PREFIX.length);
}

/** The raw public key of a raw private key. */
export function publicOfPrivate(raw: Buffer): Buffer {
  return rawPublicKey(x25519PrivateKey(raw));
}

/** A new key pair: the private key raw (32 bytes) and its public key raw. */
export function generateX25519(): { privateKey: Buffer; publicKey: Buffer; key: KeyObject } {
  const { privateKey } = generateKeyPairSync('x25519');
  const raw = privateKey.export({ format: 'der', type: 'pkcs8' }).subarray(PKCS8_PREFIX.length);
  return { privateKey: Buffer.from(raw), publicKey: rawPublicKey(privateKey), key: privateKey };
}

/** The shared secret of a private key and a public key (throws on a degenerate public key). */
export function x25519Agree(privateKey: KeyObject, publicKey: KeyObject): Buffer {
  return diffieHellman({ privateKey, publicKey });
}
