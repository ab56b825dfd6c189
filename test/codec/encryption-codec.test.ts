import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { ApplicationFailure, defaultPayloadConverter } from '@temporalio/common';
import { afterAll, describe, expect, it } from 'vitest';
import { failureConverter } from '../../src/codec/failure-converter.js';
import {
  dataConverter,
  EncryptionCodec,
  encryptsPayloads,
  ensureKeyFile,
  isEncrypted,
  Keyring,
  KeyringError,
  keyringFromEnv,
  PayloadDecryptionError,
  payloadKeyId,
  readKeyFile,
  writeKeyFile,
} from '../../src/codec/index.js';

const dir = mkdtempSync(join(tmpdir(), 'tcr-codec-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const order = {
  reference: 'globex-public',
  brand: { ein: '987654321', phone: '+14155550100', businessContactFirstName: 'Hank' },
};

describe('the encryption codec', () => {
  it('encrypts the whole payload under the current key and decodes it back to the same payload', async () => {
    const keyring = Keyring.generate('k1');
    const codec = new EncryptionCodec(keyring);
    const plain = defaultPayloadConverter.toPayload(order);
    const [encrypted] = await codec.encode([plain]);
    expect(isEncrypted(encrypted!)).toBe(true);
    expect(payloadKeyId(encrypted!)).toBe('k1');
    // The bytes that leave the process: the data and every metadata value, searched as raw bytes (a
    // JSON.stringify of a Uint8Array is a list of numbers and never contains the text it encodes).
    const wire = Buffer.concat([
      Buffer.from(encrypted!.data!),
      ...Object.values(encrypted!.metadata ?? {}).map((v) => Buffer.from(v)),
    ]);
    for (const secret of ['987654321', '+14155550100', 'Hank', 'json/plain'])
      expect(wire.includes(secret), secret).toBe(false);
    // The check can see a leak: the plain payload's own bytes hold each secret.
    const plainBytes = Buffer.concat([
      Buffer.from(plain.data!),
      ...Object.values(plain.metadata ?? {}).map((v) => Buffer.from(v)),
    ]);
    for (const secret of ['987654321', '+14155550100', 'Hank', 'json/plain'])
      expect(plainBytes.includes(secret), secret).toBe(true);
    const [decoded] = await codec.decode([encrypted!]);
    expect(defaultPayloadConverter.fromPayload(decoded!)).toEqual(order);
    expect(Buffer.from(decoded!.metadata!.encoding!).toString()).toBe('json/plain');
    // A fresh IV each time: the same value never encrypts to the same bytes.
    const [again] = await codec.encode([plain]);
    expect(Buffer.from(again!.data!).equals(Buffer.from(encrypted!.data!))).toBe(false);
  });

  it('decodes payloads of older keys after a rotation, and leaves unencrypted payloads alone', async () => {
    const old = Keyring.generate('k1');
    const [underOld] = await new EncryptionCodec(old).encode([defaultPayloadConverter.toPayload(order)]);
    const rotated = old.withNewKey('k2', true);
    const codec = new EncryptionCodec(rotated);
    const [underNew] = await codec.encode([defaultPayloadConverter.toPayload(order)]);
    expect(payloadKeyId(underNew!)).toBe('k2');
    const plain = defaultPayloadConverter.toPayload('from before encryption');
    const decoded = await codec.decode([underOld!, underNew!, plain]);
    expect(decoded.map((p) => defaultPayloadConverter.fromPayload(p))).toEqual([
      order,
      order,
      'from before encryption',
    ]);
  });

  it('refuses a payload of an unknown key or altered data, naming the key id only', async () => {
    const a = Keyring.generate('ka');
    const [payload] = await new EncryptionCodec(a).encode([defaultPayloadConverter.toPayload(order)]);
    const other = new EncryptionCodec(Keyring.generate('kb'));
    await expect(other.decode([payload!])).rejects.toThrow(PayloadDecryptionError);
    await expect(other.decode([payload!])).rejects.toThrow(
      /key 'ka', which is not in the keyring \(have: kb\)/,
    );
    const altered = Buffer.from(payload!.data!);
    altered[20] = (altered[20] ?? 0) ^ 1;
    await expect(new EncryptionCodec(a).decode([{ ...payload!, data: altered }])).rejects.toThrow(
      /does not authenticate/,
    );
  });

  it('moves failure messages and stack traces into an encoded payload (so the codec encrypts them)', () => {
    const failure = failureConverter.errorToFailure(
      ApplicationFailure.nonRetryable("ein: the registry refused '987654321'"),
      defaultPayloadConverter,
    );
    expect(failure.message).toBe('Encoded failure');
    expect(JSON.stringify(failure)).not.toContain('987654321');
    expect(failure.encodedAttributes).toBeDefined();
    const back = failureConverter.failureToError(failure, defaultPayloadConverter);
    expect(back.message).toBe("ein: the registry refused '987654321'");
  });
});

describe('the keyring and key files', () => {
  it('writes a key file 0600 and reads the same keys back; never prints key material', () => {
    const file = join(dir, 'keys.json');
    const ring = Keyring.generate('k1').withNewKey('k2');
    writeKeyFile(file, ring);
    expect((statSync(file).mode & 0o777).toString(8)).toBe('600');
    const read = readKeyFile(file);
    expect(read.currentId).toBe('k1');
    expect(read.ids()).toEqual(['k1', 'k2']);
    expect(read.key('k2')!.equals(ring.key('k2')!)).toBe(true);
    const key = ring.key('k1')!.toString('base64');
    expect(readFileSync(file, 'utf8')).toContain(key);
    expect(JSON.stringify(ring)).not.toContain(key);
    expect(inspect(ring)).not.toContain(key);
    expect(String(ring.withCurrent('k2').currentId)).toBe('k2');
  });

  it('makes a key file once (0600) and reuses it on the next start', () => {
    const file = join(dir, 'stack-keys.json');
    const first = ensureKeyFile(file);
    expect((statSync(file).mode & 0o777).toString(8)).toBe('600');
    expect(ensureKeyFile(file).current.key.equals(first.current.key)).toBe(true);
  });

  it('refuses a key file that group or others can read (0644), naming the variable and the fix', () => {
    const file = join(dir, 'open-keys.json');
    writeFileSync(file, JSON.stringify(Keyring.generate('kopen').toFile()), { mode: 0o600 });
    chmodSync(file, 0o644);
    expect(() => readKeyFile(file)).toThrow(
      /TCR_PAYLOAD_KEYS_FILE \(.*open-keys\.json\): .*mode 0644.*chmod 600/,
    );
    expect(() => keyringFromEnv({ TCR_PAYLOAD_KEYS_FILE: file })).toThrow(/mode 0644/);
    // Nor does the local stack's own file get quietly fixed: it is refused too.
    expect(() => ensureKeyFile(file)).toThrow(/mode 0644/);
    expect(statSync(file).mode & 0o777).toBe(0o644);
    chmodSync(file, 0o400);
    expect(readKeyFile(file).currentId).toBe('kopen');
  });

  it('writes through an exclusive temporary file of a random name (a planted temp name is not followed)', () => {
    const sub = mkdtempSync(join(dir, 'write-'));
    const file = join(sub, 'keys.json');
    // The old writer's predictable name, planted (a symlink or a file an attacker can read).
    writeFileSync(`${file}.${process.pid}.tmp`, 'planted', { mode: 0o644 });
    writeKeyFile(file, Keyring.generate('kw'));
    expect(readFileSync(`${file}.${process.pid}.tmp`, 'utf8')).toBe('planted');
    expect(readKeyFile(file).currentId).toBe('kw');
    expect(readdirSync(sub).sort()).toEqual(['keys.json', `keys.json.${process.pid}.tmp`]);
  });

  it('names the field of a bad key file, without repeating any key', () => {
    const bad = (doc: unknown) => () => Keyring.parse(JSON.stringify(doc), 'keys.json');
    const key = Buffer.alloc(32, 7).toString('base64');
    expect(bad({ version: 1, current: 'k9', keys: { k1: key } })).toThrow(
      /keys\.json: current: the current key id/,
    );
    expect(bad({ version: 1, current: 'k1', keys: { k1: Buffer.alloc(16).toString('base64') } })).toThrow(
      /keys\.k1: expected 32 bytes/,
    );
    expect(bad({ version: 2, current: 'k1', keys: { k1: key } })).toThrow(/version/);
    expect(() => Keyring.parse('{', 'keys.json')).toThrow(/keys\.json: not JSON/);
    try {
      bad({ version: 1, current: 'k1', keys: { k1: key, k2: 'short' } })();
    } catch (error) {
      expect(String(error)).not.toContain(key);
    }
  });

  it('reads the keys the environment names; without any, the data converter does not encrypt', () => {
    const file = join(dir, 'env-keys.json');
    writeKeyFile(file, Keyring.generate('kenv'));
    expect(keyringFromEnv({ TCR_PAYLOAD_KEYS_FILE: file })?.currentId).toBe('kenv');
    const inline = JSON.stringify(Keyring.generate('kinline').toFile());
    expect(keyringFromEnv({ TCR_PAYLOAD_KEYS: inline })?.currentId).toBe('kinline');
    expect(() => keyringFromEnv({ TCR_PAYLOAD_KEYS: inline, TCR_PAYLOAD_KEYS_FILE: file })).toThrow(
      KeyringError,
    );
    expect(() => keyringFromEnv({ TCR_PAYLOAD_KEYS_FILE: join(dir, 'missing.json') })).toThrow(
      /TCR_PAYLOAD_KEYS_FILE \(.*\): cannot read the file \(ENOENT\)/,
    );
    expect(keyringFromEnv({})).toBeUndefined();
    expect(encryptsPayloads(dataConverter({ env: { TCR_PAYLOAD_KEYS_FILE: file } }))).toBe(true);
    expect(encryptsPayloads(dataConverter({ env: {} }))).toBe(false);
    writeFileSync(join(dir, 'garbage.json'), 'not json', { mode: 0o600 });
    expect(() => dataConverter({ env: { TCR_PAYLOAD_KEYS_FILE: join(dir, 'garbage.json') } })).toThrow(
      /not JSON/,
    );
  });
});
