/**
 * The sealed envelope (version 3, issue 35 item 3): what the ingress writes with public keys only.
 * The workers' ring opens it (after a round trip through the key files); relabelled, altered, or
 * sealed to an ingress key the ring lacks, it does not open; the ingress keys survive the key file.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { afterAll, describe, expect, it } from 'vitest';
import {
  EncryptionCodec,
  Keyring,
  PayloadDecryptionError,
  PublicKeys,
  readKeyFile,
  readPublicKeyFile,
  SealingCodec,
  writeKeyFile,
  writePublicKeyFile,
} from '../../src/codec/index.js';

const dir = mkdtempSync(join(tmpdir(), 'tcr-sealed-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const plain = defaultPayloadConverter.toPayload({ ein: '12-3456789', email: 'ops@acme.example' });
const value = (p: Payload | undefined) => defaultPayloadConverter.fromPayload(p!);
const meta = (p: Payload, key: string) => Buffer.from(p.metadata![key]!).toString();

describe('the sealed envelope', () => {
  const ring = Keyring.generate('k1').withNewSealingKey('s1');

  it('is opened by the ring, after both key files are written and read back', async () => {
    writeKeyFile(join(dir, 'keys.json'), ring);
    writePublicKeyFile(join(dir, 'public.json'), PublicKeys.of(ring));
    const pub = readPublicKeyFile(join(dir, 'public.json'));
    const [sealed] = await new SealingCodec(pub).encode([plain]);
    expect(meta(sealed!, 'encryption-envelope')).toBe('3');
    expect(meta(sealed!, 'encryption-key-id')).toBe('s1');
    expect(Buffer.from(sealed!.data!).toString('latin1')).not.toContain('3456789');
    const reread = readKeyFile(join(dir, 'keys.json'));
    expect(reread.sealingIds()).toEqual(['s1']);
    expect(value((await new EncryptionCodec(reread).decode([sealed!]))[0])).toEqual(value(plain));
    // The public file holds no private key material.
    expect(JSON.stringify(pub.toFile())).not.toContain(JSON.stringify(ring.toFile().sealing!.keys.s1));
  });

  it('does not open relabelled, altered, or sealed to an ingress key the ring lacks', async () => {
    const two = ring.withNewSealingKey('s2');
    const [sealed] = await new SealingCodec(PublicKeys.of(two)).encode([plain]);
    const codec = new EncryptionCodec(two);
    const relabelled = {
      ...sealed!,
      metadata: { ...sealed!.metadata, 'encryption-key-id': Buffer.from('s1') },
    };
    await expect(codec.decode([relabelled])).rejects.toThrow(/does not authenticate/);
    const data = Buffer.from(sealed!.data!);
    data[data.length - 20]! ^= 1;
    await expect(codec.decode([{ ...sealed!, data }])).rejects.toThrow(PayloadDecryptionError);
    await expect(new EncryptionCodec(ring).decode([sealed!])).rejects.toThrow(
      /sealed to ingress key 's2', which is not in the keyring/,
    );
    // After a rotation the older ingress key still opens what was sealed to it.
    const [old] = await new SealingCodec(PublicKeys.of(ring)).encode([plain]);
    expect(value((await codec.decode([old!]))[0])).toEqual(value(plain));
  });

  it('seals to the current (newest) key of several, and never prints keys', () => {
    const pub = PublicKeys.of(ring.withNewSealingKey('s2').withNewSealingKey('s3'));
    expect(pub.toJSON()).toEqual({ current: 's3', ids: ['s1', 's2', 's3'] });
    expect(JSON.stringify(ring)).not.toContain(ring.toFile().sealing!.keys.s1);
    expect(() => PublicKeys.of(Keyring.generate('k9'))).toThrow(/no ingress key.*ingress-key/);
  });
});
