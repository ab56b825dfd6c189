/**
 * The payload keyring: AES-256 keys by id, one of them current. The current key encrypts every new
 * payload; every key of the ring decrypts (payloads written before a rotation name their key in their
 * metadata). Keys are secrets: nothing here prints key material, and errors name key ids only.
 */
import { randomBytes } from 'node:crypto';
import { z } from 'zod';

/** Key ids travel in every payload's metadata: short, printable, no secret in them. */
export const keyIdPattern = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export const KEY_BYTES = 32;

const base64Key = z
  .string()
  .regex(/^[A-Za-z0-9+/]+={0,2}$/, 'expected base64')
  .refine((value) => Buffer.from(value, 'base64').length === KEY_BYTES, {
    message: `expected ${KEY_BYTES} bytes (AES-256) in base64`,
  });

/** The key file's document: `{ "version": 1, "current": "<id>", "keys": { "<id>": "<base64>" } }`. */
export const KeyFileSchema = z
  .object({
    version: z.literal(1),
    current: z.string().regex(keyIdPattern, 'expected a key id (letters, digits, . _ -; up to 64)'),
    keys: z.record(
      z.string().regex(keyIdPattern, 'expected a key id (letters, digits, . _ -; up to 64)'),
      base64Key,
    ),
  })
  .strict()
  .refine((file) => Object.hasOwn(file.keys, file.current), {
    message: 'the current key id must be one of the keys',
    path: ['current'],
  });

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

  constructor(currentId: string, keys: ReadonlyMap<string, Buffer>) {
    const current = keys.get(currentId);
    if (!current) throw new KeyringError(`the current key '${currentId}' is not in the keyring`);
    for (const [id, key] of keys) {
      if (!keyIdPattern.test(id)) throw new KeyringError(`key id '${id}' is not a valid key id`);
      if (key.length !== KEY_BYTES) throw new KeyringError(`key '${id}' is not ${KEY_BYTES} bytes`);
    }
    this.currentId = currentId;
    this.keys = new Map(keys);
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
    return new Keyring(
      file.current,
      new Map(Object.entries(file.keys).map(([id, key]) => [id, Buffer.from(key, 'base64')])),
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

  toFile(): KeyFile {
    return {
      version: 1,
      current: this.currentId,
      keys: Object.fromEntries([...this.keys].map(([id, key]) => [id, key.toString('base64')])),
    };
  }

  /** A ring with `id` (new random key) added; current only with `makeCurrent`. */
  withNewKey(id = newKeyId(), makeCurrent = false): Keyring {
    if (this.keys.has(id)) throw new KeyringError(`key '${id}' is already in the keyring`);
    const keys = new Map(this.keys);
    keys.set(id, generateKey());
    return new Keyring(makeCurrent ? id : this.currentId, keys);
  }

  /** A ring whose current key is `id` (already in the ring). */
  withCurrent(id: string): Keyring {
    if (!this.keys.has(id))
      throw new KeyringError(`key '${id}' is not in the keyring (have: ${this.ids().join(', ')})`);
    return new Keyring(id, this.keys);
  }

  /** Never print key material, even by accident (console.log, JSON.stringify, util.inspect). */
  toJSON(): { current: string; ids: string[] } {
    return { current: this.currentId, ids: this.ids() };
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `Keyring(current: ${this.currentId}, ids: ${this.ids().join(', ')})`;
  }
}

export function generateKey(): Buffer {
  return randomBytes(KEY_BYTES);
}

/** `k<yyyymmdd>-<6 hex>`: sortable by creation day, unique enough to never collide in one ring. */
export function newKeyId(now = new Date()): string {
  const day = now.toISOString().slice(0, 10).replaceAll('-', '');
  return `k${day}-${randomBytes(3).toString('hex')}`;
}
