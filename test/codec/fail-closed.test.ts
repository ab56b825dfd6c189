/**
 * Encryption that fails closed (issue 35, item 1): a process configured from its environment (the
 * worker, the ingress, an order system's client) refuses to start without keys unless
 * TCR_PAYLOAD_ENCRYPTION=off, and with keys refuses plaintext input unless TCR_ALLOW_PLAINTEXT_INPUT
 * opens a migration window; every plaintext decode is counted (tcr_plaintext_payload_decodes_total).
 */
import { defaultPayloadConverter, type MetricMeter } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import {
  plaintextDecodeCount,
  requiredDataConverter,
  requiredKeyringFromEnv,
} from '../../src/codec/data-converter.js';
import { EncryptionCodec, Keyring, PayloadDecryptionError } from '../../src/codec/index.js';
import { observePlaintextDecodes } from '../../src/observability/metrics.js';

const inline = JSON.stringify(Keyring.generate('kfc').toFile());
const plain = defaultPayloadConverter.toPayload({ ein: '12-3456789' });

function codecOf(env: Record<string, string>): EncryptionCodec {
  const codec = requiredDataConverter(env).payloadCodecs?.[0];
  expect(codec).toBeInstanceOf(EncryptionCodec);
  return codec as EncryptionCodec;
}

describe('fail closed', () => {
  it('no keys: refused naming the variables, unless TCR_PAYLOAD_ENCRYPTION=off', () => {
    expect(() => requiredKeyringFromEnv({})).toThrow(
      /TCR_PAYLOAD_KEYS_FILE: not set.*TCR_PAYLOAD_ENCRYPTION=off/,
    );
    expect(() => requiredDataConverter({ TCR_PAYLOAD_ENCRYPTION: 'required' })).toThrow(
      /TCR_PAYLOAD_KEYS_FILE/,
    );
    expect(() => requiredDataConverter({ TCR_PAYLOAD_ENCRYPTION: 'yes' })).toThrow(
      /TCR_PAYLOAD_ENCRYPTION: expected/,
    );
    expect(requiredDataConverter({ TCR_PAYLOAD_ENCRYPTION: 'off' }).payloadCodecs ?? []).toEqual([]);
  });

  it('with keys, plaintext input is refused (and counted) unless TCR_ALLOW_PLAINTEXT_INPUT=true', async () => {
    const before = plaintextDecodeCount();
    const codec = codecOf({ TCR_PAYLOAD_KEYS: inline });
    await expect(codec.decode([plain])).rejects.toThrow(PayloadDecryptionError);
    await expect(codec.decode([plain])).rejects.toThrow(/not encrypted.*TCR_ALLOW_PLAINTEXT_INPUT/);
    expect(plaintextDecodeCount()).toBe(before + 2);
    const open = codecOf({ TCR_PAYLOAD_KEYS: inline, TCR_ALLOW_PLAINTEXT_INPUT: 'true' });
    expect(await open.decode([plain])).toEqual([plain]);
    expect(plaintextDecodeCount()).toBe(before + 3);
    // What the codec wrote still decodes.
    const [encrypted] = await codec.encode([plain]);
    const [back] = await codec.decode([encrypted!]);
    expect(defaultPayloadConverter.fromPayload(back!)).toEqual({ ein: '12-3456789' });
    expect(() =>
      requiredDataConverter({ TCR_PAYLOAD_KEYS: inline, TCR_ALLOW_PLAINTEXT_INPUT: 'maybe' }),
    ).toThrow(/TCR_ALLOW_PLAINTEXT_INPUT: expected true or false/);
  });
});

describe('the plaintext metric', () => {
  it('counts each plaintext payload on the meter', async () => {
    const added: number[] = [];
    const meter = {
      createCounter: () => ({ add: (n: number) => added.push(n), withTags: () => undefined }),
    } as unknown as MetricMeter;
    const stop = observePlaintextDecodes(meter);
    const codec = codecOf({ TCR_PAYLOAD_KEYS: inline, TCR_ALLOW_PLAINTEXT_INPUT: 'true' });
    await codec.decode([plain, plain]);
    stop();
    await codec.decode([plain]);
    expect(added).toEqual([1, 1]);
  });
});
