/**
 * Least privilege at the edge (issue 35, item 3): the ingress holds only the public ingress keys.
 * Its data converter, as its own configuration code builds it (`ingressDataConverter`, what `tcr
 * ingress` and the local stack use), writes payloads only the workers' key file opens, and decodes
 * none: not one a worker wrote, not one it wrote itself, not with an older key of the file. It
 * refuses the workers' key file, and fails closed without the public file.
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DataConverter, defaultPayloadConverter, type Payload } from '@temporalio/common';
import { afterAll, describe, expect, it } from 'vitest';
import {
  EncryptionCodec,
  Keyring,
  PayloadDecryptionError,
  PublicKeys,
  writeKeyFile,
  writePublicKeyFile,
} from '../../src/codec/index.js';
import { ingressDataConverter } from '../../src/ingress/temporal.js';

const dir = mkdtempSync(join(tmpdir(), 'tcr-ingress-encrypt-only-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const EVENT = { eventType: 'BRAND_CONTACT_VERIFIED', description: 'contact ops@acme.example, EIN 731104556' };
// The workers' ring: an old ingress key and the current one (a rotation), beside the payload key.
const workers = Keyring.generate('k1').withNewSealingKey('s-old').withNewSealingKey('s-new');
const workersFile = join(dir, 'payload-keys.json');
const publicFile = join(dir, 'ingress-public-keys.json');
writeKeyFile(workersFile, workers);
writePublicKeyFile(publicFile, PublicKeys.of(workers));

function codecOf(converter: DataConverter) {
  const codecs = converter.payloadCodecs ?? [];
  expect(codecs).toHaveLength(1);
  return codecs[0]!;
}

const ingress = () => codecOf(ingressDataConverter({ TCR_INGRESS_PAYLOAD_PUBLIC_KEYS_FILE: publicFile }));
const worker = new EncryptionCodec(workers);
const value = (p: Payload | undefined) => defaultPayloadConverter.fromPayload(p!);

describe('the ingress data converter', () => {
  it('writes payloads the workers decode, sealed to the newest ingress key', async () => {
    const [sealed] = await ingress().encode([defaultPayloadConverter.toPayload(EVENT)]);
    expect(Buffer.from(sealed!.metadata!['encryption-key-id']!).toString()).toBe('s-new');
    expect(Buffer.from(sealed!.data!).toString('latin1')).not.toContain('731104556');
    expect(value((await worker.decode([sealed!]))[0])).toEqual(EVENT);
  });

  it('cannot decode what it wrote itself', async () => {
    const codec = ingress();
    const sealed = await codec.encode([defaultPayloadConverter.toPayload(EVENT)]);
    await expect(codec.decode(sealed)).rejects.toThrow(PayloadDecryptionError);
    await expect(codec.decode(sealed)).rejects.toThrow(/only the ingress's public keys/);
  });

  it('cannot decode a history payload a worker wrote (current and older keys)', async () => {
    const codec = ingress();
    const written = await worker.encode([defaultPayloadConverter.toPayload(EVENT)]);
    await expect(codec.decode(written)).rejects.toThrow(PayloadDecryptionError);
    const older = await new EncryptionCodec(workers.withNewKey('k2', true)).encode([
      defaultPayloadConverter.toPayload(EVENT),
    ]);
    await expect(codec.decode(older)).rejects.toThrow(PayloadDecryptionError);
  });

  it("refuses the workers' key file, and fails closed without the public keys", () => {
    expect(() =>
      ingressDataConverter({
        TCR_PAYLOAD_KEYS_FILE: workersFile,
        TCR_INGRESS_PAYLOAD_PUBLIC_KEYS_FILE: publicFile,
      }),
    ).toThrow(/TCR_PAYLOAD_KEYS_FILE: set for the ingress/);
    expect(() => ingressDataConverter({ TCR_PAYLOAD_KEYS: JSON.stringify(workers.toFile()) })).toThrow(
      /TCR_PAYLOAD_KEYS: set for the ingress/,
    );
    expect(() => ingressDataConverter({})).toThrow(/TCR_INGRESS_PAYLOAD_PUBLIC_KEYS_FILE: not set/);
    expect(ingressDataConverter({ TCR_PAYLOAD_ENCRYPTION: 'off' }).payloadCodecs ?? []).toEqual([]);
    // The workers' key file named as the public file is refused too (it holds the private keys).
    expect(() => ingressDataConverter({ TCR_INGRESS_PAYLOAD_PUBLIC_KEYS_FILE: workersFile })).toThrow(
      /payload key file.*only the public key file/,
    );
  });

  it('refuses a public key file that group or others can read or write', () => {
    const loose = join(dir, 'loose-public-keys.json');
    writePublicKeyFile(loose, PublicKeys.of(workers));
    chmodSync(loose, 0o644);
    expect(() => ingressDataConverter({ TCR_INGRESS_PAYLOAD_PUBLIC_KEYS_FILE: loose })).toThrow(/chmod 600/);
  });
});
