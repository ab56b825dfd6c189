/**
 * The ingress's public key file (issue 35, item 3): the public halves of the ingress keys of the
 * payload key file, derived by `tcr payload-keys public`. It is all the webhook ingress holds: it
 * seals every payload it writes to the current key (./sealed-envelope.ts) and can open none. Several
 * keys may be listed (a rotation); `current` names the one that seals, the newest.
 *
 *   { "version": 1, "kind": "tcr-ingress-public-keys", "current": "<id>", "keys": { "<id>": "<base64>" } }
 *
 * Read like the other key files: mode 0600 or refused (the file decides where the ingress's payloads
 * go, so no one else may write it).
 */
import { z } from 'zod';
import { writeSecretFile } from '../common/secret-file.js';
import { readKeyFileText } from './key-file.js';
import { type Keyring, KeyringError, keyIdPattern } from './keyring.js';
import { X25519_KEY_BYTES, x25519PublicKey } from './x25519.js';

export const PUBLIC_KEYS_FILE_VARIABLE = 'TCR_INGRESS_PAYLOAD_PUBLIC_KEYS_FILE';
export const PUBLIC_KEYS_KIND = 'tcr-ingress-public-keys';

const keyId = z.string().regex(keyIdPattern, 'expected a key id (letters, digits, . _ -; up to 64)');
const base64PublicKey = z
  .string()
  .regex(/^[A-Za-z0-9+/]+={0,2}$/, 'expected base64')
  .refine((value) => Buffer.from(value, 'base64').length === X25519_KEY_BYTES, {
    message: `expected ${X25519_KEY_BYTES} bytes (an X25519 public key) in base64`,
  });

export const PublicKeyFileSchema = z
  .object({
    version: z.literal(1),
    kind: z.literal(PUBLIC_KEYS_KIND),
    current: keyId,
    keys: z.record(keyId, base64PublicKey),
  })
  .strict()
  .refine((file) => Object.hasOwn(file.keys, file.current), {
    message: 'the current key id must be one of the keys',
    path: ['current'],
  });

export type PublicKeyFile = z.infer<typeof PublicKeyFileSchema>;

/** The ingress's public keys: raw X25519 public keys by id, one current (the one that seals). */
export class PublicKeys {
  private readonly keys: ReadonlyMap<string, Buffer>;

  constructor(
    readonly currentId: string,
    keys: ReadonlyMap<string, Buffer>,
  ) {
    if (!keys.has(currentId))
      throw new KeyringError(`the current key '${currentId}' is not among the public keys`);
    for (const [id, key] of keys) {
      if (!keyIdPattern.test(id)) throw new KeyringError(`key id '${id}' is not a valid key id`);
      try {
        x25519PublicKey(key);
      } catch {
        throw new KeyringError(`public key '${id}' is not an X25519 public key`);
      }
    }
    this.keys = new Map(keys);
  }

  /** The public keys of `keyring`'s ingress keys; throws when it has none. */
  static of(keyring: Keyring): PublicKeys {
    const pub = keyring.publicKeys();
    if (!pub)
      throw new KeyringError(
        'the payload key file has no ingress key: add one with tcr payload-keys ingress-key (workers first, then the ingress)',
      );
    return new PublicKeys(pub.current, pub.keys);
  }

  static parse(text: string, source: string): PublicKeys {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new KeyringError(`${source}: not JSON`);
    }
    if (json && typeof json === 'object' && !('kind' in json) && ('keys' in json || 'sealing' in json))
      throw new KeyringError(
        `${source}: this is a payload key file (it holds the keys that decrypt every history); give the ingress only the public key file: tcr payload-keys public --out FILE`,
      );
    const parsed = PublicKeyFileSchema.safeParse(json);
    if (!parsed.success) {
      const issues = parsed.error.issues.map(
        (i) => `${i.path.map(String).join('.') || '(root)'}: ${i.message}`,
      );
      throw new KeyringError(`${source}: ${issues.join('; ')}`);
    }
    const file = parsed.data;
    return new PublicKeys(
      file.current,
      new Map(Object.entries(file.keys).map(([id, key]) => [id, Buffer.from(key, 'base64')])),
    );
  }

  get current(): { id: string; key: Buffer } {
    return { id: this.currentId, key: this.keys.get(this.currentId) as Buffer };
  }

  ids(): string[] {
    return [...this.keys.keys()];
  }

  toFile(): PublicKeyFile {
    return {
      version: 1,
      kind: PUBLIC_KEYS_KIND,
      current: this.currentId,
      keys: Object.fromEntries([...this.keys].map(([id, key]) => [id, key.toString('base64')])),
    };
  }

  toJSON(): { current: string; ids: string[] } {
    return { current: this.currentId, ids: this.ids() };
  }
}

/** The public keys in `path`, refused unless mode 0600 (or stricter). */
export function readPublicKeyFile(path: string, label: string = PUBLIC_KEYS_FILE_VARIABLE): PublicKeys {
  return PublicKeys.parse(readKeyFileText(path, label, 'public key file'), `${label} (${path})`);
}

/** Writes the public keys to `path` (0600, one rename through an exclusive temporary file). */
export function writePublicKeyFile(path: string, keys: PublicKeys): void {
  writeSecretFile(path, `${JSON.stringify(keys.toFile(), null, 2)}\n`);
}
