/**
 * The payload keyring: AES-256 keys by id, one of them current. The current key encrypts every new
 * payload; every key of the ring decrypts (payloads written before a rotation name their key in their
 * metadata). Keys are secrets: nothing here prints key material, and errors name key ids only.
 *
 * Optionally also the ingress keys (`sealing`): X25519 private keys by id, whose public halves are
 * all the webhook ingress holds (./public-keys.ts). The ingress seals payloads to the current one's
 * public key; only a holder of this ring opens them (./sealed-envelope.ts). Older ones stay to open
 * what was sealed to them.
 */
import { type KeyObject, randomBytes } from 'node:crypto';
import { z } from 'zod';
import { generateX25519, publicOfPrivate, x25519PrivateKey } from './x25519.js';

/** Key ids travel in every payload's metadata: short, printable, no secret in them. */
export const keyIdPattern = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export const KEY_BYTES = 32;

const base64Key = z
  .string()
  .regex(/^[A-Za-z0-9+/]+={0,2}$/, 'expected base64')
  .refine((value) => Buffer.from(value, 'base64').length === KEY_BYTES, {
    message: `expected ${KEY_BYTES} bytes (AES-256) in base64`,
  });

const keyId = z.string().regex(keyIdPattern, 'expected a key id (letters, digits, . _ -; up to 64)');

/** The ingress keys: `{ "current": "<id>", "keys": { "<id>": "<base64 X25519 private key>" } }`. */
const SealingSchema = z
  .object({ current: keyId, keys: z.record(keyId, base64Key) })
  .strict()
  .refine((sealing) => Object.hasOwn(sealing.keys, sealing.current), {
    message: 'the current ingress key id must be one of the ingress keys',
    path: ['current'],
  });

/**
 * The key file's document: `{ "version": 1, "current": "<id>", "keys": { "<id>": "<base64>" },
 * "sealing"?: { "current": "<id>", "keys": { "<id>": "<base64 X25519 private key>" } } }`.
 */
export const KeyFileSchema = z
  .object({
    version: z.literal(1),
    current: keyId,
    keys: z.record(keyId, base64Key),
    sealing: SealingSchema.optional(),
  })
  .strict()
  .refine((file) => Object.hasOwn(file.keys, file.current), {
    message: 'the current key id must be one of the keys',
    path: ['current'],
  });

/** The ingress keys of a ring: X25519 private keys (raw) by id, one current. */
export interface SealingKeys {
  current: string;
  keys: ReadonlyMap<string, Buffer>;
}

export type KeyFile = z.infer<typeof KeyFileSchema>;

export class KeyringError extends Error {
  override name = 'KeyringError';
}

/** `path: message` for each issue of a failed parse; values are never repeated (they are keys). */
function describeIssues(source: string, error: z.ZodError): string {
  const issues = error.issues.map((i) => `${i.path.map(String).join('.') || '(root)'}: ${i.message}`);
  return `${source}: ${issues.join('; ')}`;
}

export class Keyring {
  readonly currentId: string;
  private readonly keys: ReadonlyMap<string, Buffer>;
  private readonly sealing: SealingKeys | undefined;
  private readonly sealingObjects = new Map<string, KeyObject>();

  constructor(currentId: string, keys: ReadonlyMap<string, Buffer>, sealing?: SealingKeys) {
    const current = keys.get(currentId);
    if (!current) throw new KeyringError(`the current key '${currentId}' is not in the keyring`);
    for (const [id, key] of [...keys, ...(sealing?.keys ?? [])]) {
      if (!keyIdPattern.test(id)) throw new KeyringError(`key id '${id}' is not a valid key id`);
      if (key.length !== KEY_BYTES) throw new KeyringError(`key '${id}' is not ${KEY_BYTES} bytes`);
    }
    if (sealing) {
      if (!sealing.keys.has(sealing.current))
        throw new KeyringError(`the current ingress key '${sealing.current}' is not in the keyring`);
      for (const id of sealing.keys.keys())
        if (keys.has(id))
          throw new KeyringError(`key id '${id}' names both a payload key and an ingress key`);
    }
    this.currentId = currentId;
    this.keys = new Map(keys);
    this.sealing = sealing ? { current: sealing.current, keys: new Map(sealing.keys) } : undefined;
  }

  /** Parses a key file's document (JSON text); `source` names it in errors (a path or a variable). */
  static parse(text: string, source: string): Keyring {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new KeyringError(`${source}: not JSON`);
    }
    const parsed = KeyFileSchema.safeParse(json);
    if (!parsed.success) throw new KeyringError(describeIssues(source, parsed.error));
    return Keyring.fromFile(parsed.data);
  }

  static fromFile(file: KeyFile): Keyring {
    const decoded = (keys: Record<string, string>) =>
      new Map(Object.entries(keys).map(([id, key]) => [id, Buffer.from(key, 'base64')]));
    return new Keyring(
      file.current,
      decoded(file.keys),
      file.sealing ? { current: file.sealing.current, keys: decoded(file.sealing.keys) } : undefined,
    );
  }

  /** A ring with one new random key (tests, a fresh key file). */
  static generate(id = newKeyId()): Keyring {
    return new Keyring(id, new Map([[id, generateKey()]]));
  }

  get current(): { id: string; key: Buffer } {
    // The constructor checked that the current key exists.
    return { id: this.currentId, key: this.keys.get(this.currentId) as Buffer };
  }

  key(id: string): Buffer | undefined {
    return this.keys.get(id);
  }

  ids(): string[] {
    return [...this.keys.keys()];
  }

  /** The ingress key ids (X25519 key pairs), oldest first; empty when the ring has none. */
  sealingIds(): string[] {
    return [...(this.sealing?.keys.keys() ?? [])];
  }

  /** The ingress key the public key file names current (the one the ingress seals to). */
  get sealingCurrentId(): string | undefined {
    return this.sealing?.current;
  }

  /** The private key that opens payloads sealed to ingress key `id`. */
  sealingKey(id: string): KeyObject | undefined {
    const raw = this.sealing?.keys.get(id);
    if (!raw) return undefined;
    let key = this.sealingObjects.get(id);
    if (!key) {
      key = x25519PrivateKey(raw);
      this.sealingObjects.set(id, key);
    }
    return key;
  }

  /** The public halves of the ingress keys (raw, by id) and the current one: no secret in them. */
  publicKeys(): { current: string; keys: Map<string, Buffer> } | undefined {
    if (!this.sealing) return undefined;
    return {
      current: this.sealing.current,
      keys: new Map([...this.sealing.keys].map(([id, key]) => [id, publicOfPrivate(key)])),
    };
  }

  toFile(): KeyFile {
    const encoded = (keys: ReadonlyMap<string, Buffer>) =>
      Object.fromEntries([...keys].map(([id, key]) => [id, key.toString('base64')]));
    return {
      version: 1,
      current: this.currentId,
      keys: encoded(this.keys),
      ...(this.sealing
        ? { sealing: { current: this.sealing.current, keys: encoded(this.sealing.keys) } }
        : {}),
    };
  }

  /** A ring with `id` (new random key) added; current only with `makeCurrent`. */
  withNewKey(id = newKeyId(), makeCurrent = false): Keyring {
    if (this.keys.has(id) || this.sealing?.keys.has(id))
      throw new KeyringError(`key '${id}' is already in the keyring`);
    const keys = new Map(this.keys);
    keys.set(id, generateKey());
    return new Keyring(makeCurrent ? id : this.currentId, keys, this.sealing);
  }

  /** A ring whose current key is `id` (already in the ring). */
  withCurrent(id: string): Keyring {
    if (!this.keys.has(id))
      throw new KeyringError(`key '${id}' is not in the keyring (have: ${this.ids().join(', ')})`);
    return new Keyring(id, this.keys, this.sealing);
  }

  /**
   * A ring with a new ingress key pair `id`, current for the ingress (the public key file derived from
   * the ring names it current); older ingress keys stay, to open what was sealed to them.
   */
  withNewSealingKey(id = newKeyId(new Date(), 's')): Keyring {
    if (this.keys.has(id) || this.sealing?.keys.has(id))
      throw new KeyringError(`key '${id}' is already in the keyring`);
    const keys = new Map(this.sealing?.keys ?? []);
    keys.set(id, generateX25519().privateKey);
    return new Keyring(this.currentId, this.keys, { current: id, keys });
  }

  /** Never print key material, even by accident (console.log, JSON.stringify, util.inspect). */
  toJSON(): { current: string; ids: string[]; ingress?: { current: string; ids: string[] } } {
    return {
      current: this.currentId,
      ids: this.ids(),
      ...(this.sealing ? { ingress: { current: this.sealing.current, ids: this.sealingIds() } } : {}),
    };
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    const ingress = this.sealing ? `, ingress: ${this.sealingIds().join(', ')}` : '';
    return `Keyring(current: ${this.currentId}, ids: ${this.ids().join(', ')}${ingress})`;
  }
}

export function generateKey(): Buffer {
  return randomBytes(KEY_BYTES);
}

/**
 * `k<yyyymmdd>-<6 hex>` (`s…` for an ingress key): sortable by creation day, unique enough to never
 * collide in one ring.
 */
export function newKeyId(now = new Date(), prefix: 'k' | 's' = 'k'): string {
  const day = now.toISOString().slice(0, 10).replaceAll('-', '');
  return `${prefix}${day}-${randomBytes(3).toString('hex')}`;
}
