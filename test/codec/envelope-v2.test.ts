/**
 * The envelope (issue 35, items 1 and 6): version 2 binds each ciphertext to its key id and envelope
 * version (AES-GCM associated data) and encrypts under a subkey derived (HKDF-SHA256) from the key and
 * a random 256-bit salt per codec, renewed every `subkeyLimit` encryptions (default 2^32), so random
 * 96-bit nonces never exceed their bound under one AES key. Version 1 ciphertexts still decode.
 */
import { createCipheriv, randomBytes } from 'node:crypto';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import proto from '@temporalio/proto';
import { describe, expect, it } from 'vitest';
import { EncryptionCodec, KEY_ID_METADATA, Keyring, PayloadDecryptionError } from '../../src/codec/index.js';

const plain = defaultPayloadConverter.toPayload({ ein: '12-3456789' });
const value = (p: Payload | undefined) => defaultPayloadConverter.fromPayload(p!);

/** A payload as the version-1 codec wrote it (key id in the metadata, no associated data). */
function v1(keyring: Keyring, payload: Payload): Payload {
  const { id, key } = keyring.current;
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const bytes = proto.temporal.api.common.v1.Payload.encode(payload).finish();
  return {
    metadata: { encoding: Buffer.from('binary/encrypted'), [KEY_ID_METADATA]: Buffer.from(id) },
    data: Buffer.concat([iv, cipher.update(bytes), cipher.final(), cipher.getAuthTag()]),
  };
}

describe('the version 2 envelope', () => {
  it('still decodes version 1 ciphertexts', async () => {
    const ring = Keyring.generate('kv1');
    expect(value((await new EncryptionCodec(ring).decode([v1(ring, plain)]))[0])).toEqual({
      ein: '12-3456789',
    });
  });

  it('is bound to its key id: relabelled to another key of the ring (same key bytes), it does not decode', async () => {
    const base = Keyring.generate('ka');
    const same = new Keyring(
      'ka',
      new Map([
        ['ka', base.key('ka')!],
        ['kb', base.key('ka')!],
      ]),
    );
    const codec = new EncryptionCodec(same);
    const [encrypted] = await codec.encode([plain]);
    expect(Buffer.from(encrypted!.metadata!['encryption-envelope']!).toString()).toBe('2');
    const moved = {
      ...encrypted!,
      metadata: { ...encrypted!.metadata, [KEY_ID_METADATA]: Buffer.from('kb') },
    };
    await expect(codec.decode([moved])).rejects.toThrow(PayloadDecryptionError);
    expect(value((await codec.decode([encrypted!]))[0])).toEqual({ ein: '12-3456789' });
  });

  it('renews its subkey (a new salt) every subkeyLimit encryptions; all decode', async () => {
    const ring = Keyring.generate('kl');
    const codec = new EncryptionCodec(ring, { subkeyLimit: 2 });
    const out = await codec.encode([plain, plain, plain, plain, plain]);
    const salts = out.map((p) => Buffer.from(p.data!).subarray(0, 32).toString('hex'));
    expect(salts[0]).toBe(salts[1]);
    expect(salts[2]).not.toBe(salts[1]);
    expect(salts[2]).toBe(salts[3]);
    expect(salts[4]).not.toBe(salts[3]);
    for (const p of await new EncryptionCodec(ring).decode(out))
      expect(value(p)).toEqual({ ein: '12-3456789' });
  });
});
