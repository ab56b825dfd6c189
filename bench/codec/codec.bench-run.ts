/**
 * Payload encryption cost: what `dataConverter()` adds per payload, for the payloads the product
 * writes most: a brand order (a workflow's first input), a registry event delivery (the signal the
 * ingress sends per webhook), and a workflow's carried state at continue-as-new (8 KB and 64 KB).
 * Each is converted to a payload (JSON, what every payload costs without encryption), then
 * encrypted and decrypted (AES-256-GCM, src/codec/encryption-codec.ts). Rounds are interleaved and
 * the median round is reported, as the machine is small and shared.
 *
 *   npx vitest run --config bench/codec/vitest.config.ts    # ~1 min on the loaded 2-core VM; writes bench/codec/results.<time>.json
 *
 * BENCH_ROUNDS (default 15) and BENCH_ITERATIONS (default 2000 per round and payload) set the size.
 */
import { loadavg } from 'node:os';
import { defaultPayloadConverter } from '@temporalio/common';
import { expect, it } from 'vitest';
import { EncryptionCodec, Keyring } from '../../src/codec/index.js';
import { writeResults } from '../support/results.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);
const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 2000);

const registration = {
  referenceId: 'acme-widgets',
  entityType: 'PRIVATE_PROFIT',
  displayName: 'Acme Widgets',
  companyName: 'Acme Widgets LLC',
  ein: '123456789',
  einIssuingCountry: 'US',
  phone: '+12025550123',
  street: '1 Main St',
  city: 'Springfield',
  state: 'IL',
  postalCode: '62701',
  country: 'US',
  email: 'ops@acme.example',
  website: 'https://acme.example',
  brandRelationship: 'BASIC_ACCOUNT',
  vertical: 'RETAIL',
};

/** A JSON object of about `bytes` bytes shaped like carried state (an audit trail of entries). */
function carriedState(bytes: number): unknown {
  const audit: unknown[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const entry = {
      at: new Date(Date.UTC(2026, 10, 25, 8, 0, i)).toISOString(),
      from: 'verifying',
      to: 'ready',
      cause: 'webhook',
      detail: `BRAND_IDENTITY_STATUS_UPDATE B00000${i} VERIFIED`,
    };
    size += JSON.stringify(entry).length + 1;
    audit.push(entry);
  }
  return { phase: 'ready', brandId: 'B000004', registration, audit };
}

const subjects: [string, unknown][] = [
  ['brand order (workflow input)', { reference: 'acme-widgets', account: 'local', registration }],
  [
    'registry event delivery (ingress signal)',
    {
      event: {
        eventType: 'BRAND_IDENTITY_STATUS_UPDATE',
        cspId: 'CSPLOCAL',
        brandId: 'B000004',
        brandReferenceId: 'acme-widgets',
        brandIdentityStatus: 'VERIFIED',
        description: 'Brand identity verified',
      },
      receivedAt: '2026-11-25T08:00:00.000Z',
      deliveryId: 'sha256:0f3a9c1e5b7d2a4c6e8f0a1b3c5d7e9f1a2b4c6d8e0f1a3b5c7d9e1f3a5b7c9d',
    },
  ],
  ['carried state, 8 KB (continue-as-new)', carriedState(8 * 1024)],
  ['carried state, 64 KB (continue-as-new)', carriedState(64 * 1024)],
];

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? Number.NaN;
};

it('measures what payload encryption adds per payload', async () => {
  const codec = new EncryptionCodec(Keyring.generate('bench'));
  const perRound = subjects.map(() => ({
    json: [] as number[],
    encrypt: [] as number[],
    decrypt: [] as number[],
  }));
  const sizes = subjects.map(([, value]) => {
    const plain = defaultPayloadConverter.toPayload(value);
    const encrypted = codec.encrypt(plain);
    return { plain: plain.data?.length ?? 0, encrypted: encrypted.data?.length ?? 0 };
  });
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, [, value]] of subjects.entries()) {
      // JSON only: what every payload costs with or without encryption.
      let t = process.hrtime.bigint();
      let payload = defaultPayloadConverter.toPayload(value);
      for (let n = 1; n < ITERATIONS; n++) payload = defaultPayloadConverter.toPayload(value);
      perRound[i]!.json.push(Number(process.hrtime.bigint() - t) / ITERATIONS / 1000);
      t = process.hrtime.bigint();
      let sealed = codec.encrypt(payload);
      for (let n = 1; n < ITERATIONS; n++) sealed = codec.encrypt(payload);
      perRound[i]!.encrypt.push(Number(process.hrtime.bigint() - t) / ITERATIONS / 1000);
      t = process.hrtime.bigint();
      let opened = codec.decrypt(sealed);
      for (let n = 1; n < ITERATIONS; n++) opened = codec.decrypt(sealed);
      perRound[i]!.decrypt.push(Number(process.hrtime.bigint() - t) / ITERATIONS / 1000);
      expect(Buffer.from(opened.data ?? []).equals(Buffer.from(payload.data ?? []))).toBe(true);
    }
  }
  const rows = subjects.map(([name], i) => {
    const r = perRound[i]!;
    const json = median(r.json);
    const encrypt = median(r.encrypt);
    const decrypt = median(r.decrypt);
    return {
      payload: name,
      plainBytes: sizes[i]!.plain,
      encryptedBytes: sizes[i]!.encrypted,
      jsonMicros: Number(json.toFixed(2)),
      encryptMicros: Number(encrypt.toFixed(2)),
      decryptMicros: Number(decrypt.toFixed(2)),
      // Encrypt + decrypt against JSON encode: what a write and a later read cost on top.
      overheadOfJson: Number(((encrypt + decrypt) / json).toFixed(2)),
    };
  });
  console.table(rows);
  writeResults(new URL('./results.json', import.meta.url), {
    benchmark: 'payload encryption per payload',
    at: new Date().toISOString(),
    rounds: ROUNDS,
    iterations: ITERATIONS,
    loadAverage1m: Number(loadavg()[0]!.toFixed(2)),
    node: process.version,
    rows,
  });
}, 600_000);
