/**
 * Ciphertexts bound to their workflow (issue 35, item 1): envelopes 4 (symmetric) and 5 (sealed by the
 * ingress) add the namespace and workflow id of the encode's serialization context to the AES-GCM
 * associated data and carry them in the metadata. Decoded with another workflow's context, a payload
 * is refused; its bound id edited, it does not authenticate; without a context it opens. Unbound
 * envelopes (1, 2, 3) still open, and are counted. A schedule's action is bound to the schedule's
 * workflow id and opens in its runs (`${workflowId}-${RFC 3339 time}`), and only there.
 */
import { createCipheriv, hkdfSync, randomBytes } from 'node:crypto';
import {
  defaultPayloadConverter,
  type MetricMeter,
  type Payload,
  type SerializationContext,
} from '@temporalio/common';
import proto from '@temporalio/proto';
import { describe, expect, it } from 'vitest';
import {
  BOUND_WORKFLOW_METADATA,
  EncryptionCodec,
  forScheduleAction,
  Keyring,
  PayloadDecryptionError,
  PublicKeys,
  SealingCodec,
  unboundDecodeCount,
} from '../../src/codec/index.js';
import { seal } from '../../src/codec/sealed-envelope.js';
import { observePlaintextDecodes } from '../../src/observability/metrics.js';

const plain = defaultPayloadConverter.toPayload({ ein: '12-3456789' });
const value = (p: Payload | undefined) => defaultPayloadConverter.fromPayload(p!);
const meta = (p: Payload, key: string) => Buffer.from(p.metadata![key]!).toString();
const wf = (workflowId: string, namespace = 'default'): SerializationContext => ({
  type: 'workflow',
  namespace,
  workflowId,
});
const ring = Keyring.generate('kb1').withNewSealingKey('sb1');
const codec = new EncryptionCodec(ring);

/** A version 2 payload, as releases before the binding wrote it. */
function v2(payload: Payload): Payload {
  const { id, key } = ring.current;
  const salt = randomBytes(32);
  const info = Buffer.from(`tcr-payload-v2\0${id}`);
  const sub = Buffer.from(hkdfSync('sha256', key, salt, info, 32));
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', sub, iv);
  cipher.setAAD(info);
  const bytes = proto.temporal.api.common.v1.Payload.encode(payload).finish();
  return {
    metadata: {
      encoding: Buffer.from('binary/encrypted'),
      'encryption-key-id': Buffer.from(id),
      'encryption-envelope': Buffer.from('2'),
    },
    data: Buffer.concat([salt, iv, cipher.update(bytes), cipher.final(), cipher.getAuthTag()]),
  };
}

/** A version 3 payload, as the ingress sealed it before the binding. */
function v3(payload: Payload): Payload {
  const { id, key } = PublicKeys.of(ring).current;
  return {
    metadata: {
      encoding: Buffer.from('binary/encrypted'),
      'encryption-key-id': Buffer.from(id),
      'encryption-envelope': Buffer.from('3'),
    },
    data: seal(proto.temporal.api.common.v1.Payload.encode(payload).finish(), id, key),
  };
}

describe('a payload bound to its workflow', () => {
  it('is refused when decoded with another workflow’s context, naming both ids', async () => {
    const [bound] = await codec.encode([plain], wf('brand/acme-a'));
    expect(meta(bound!, 'encryption-envelope')).toBe('4');
    expect(meta(bound!, BOUND_WORKFLOW_METADATA)).toBe('brand/acme-a');
    await expect(codec.decode([bound!], wf('brand/acme-b'))).rejects.toThrow(PayloadDecryptionError);
    await expect(codec.decode([bound!], wf('brand/acme-b'))).rejects.toThrow(
      /bound to workflow 'brand\/acme-a'.*'brand\/acme-b'/,
    );
    // The same workflow id in another namespace is another workflow.
    await expect(codec.decode([bound!], wf('brand/acme-a', 'staging'))).rejects.toThrow(
      /namespace 'default'.*'staging'/,
    );
    expect(value((await codec.decode([bound!], wf('brand/acme-a')))[0])).toEqual(value(plain));
  });

  it('does not authenticate with its bound id (or namespace) edited to the target’s', async () => {
    const [bound] = await codec.encode([plain], wf('brand/acme-a'));
    const moved = {
      ...bound!,
      metadata: { ...bound!.metadata, [BOUND_WORKFLOW_METADATA]: Buffer.from('brand/acme-b') },
    };
    await expect(codec.decode([moved], wf('brand/acme-b'))).rejects.toThrow(/does not authenticate/);
    await expect(codec.decode([moved])).rejects.toThrow(/does not authenticate/);
    const renamed = {
      ...bound!,
      metadata: { ...bound!.metadata, 'encryption-namespace': Buffer.from('staging') },
    };
    await expect(codec.decode([renamed], wf('brand/acme-a', 'staging'))).rejects.toThrow(
      /does not authenticate/,
    );
    // Stripped of its binding (made to look unbound), it does not authenticate either.
    const { [BOUND_WORKFLOW_METADATA]: _id, ...rest } = bound!.metadata!;
    await expect(codec.decode([{ ...bound!, metadata: rest }], wf('brand/acme-b'))).rejects.toThrow(
      /does not authenticate|binding/,
    );
    // Relabelled as the unbound version 2 (binding dropped), it does not authenticate.
    const relabelled = { ...bound!, metadata: { ...rest, 'encryption-envelope': Buffer.from('2') } };
    await expect(codec.decode([relabelled], wf('brand/acme-b'))).rejects.toThrow(/does not authenticate/);
  });

  it('opens without a context (the codec server, tcr reading a history)', async () => {
    const [bound] = await codec.encode([plain], wf('brand/acme-a'));
    expect(value((await codec.decode([bound!]))[0])).toEqual(value(plain));
  });

  it('activity payloads are bound to the scheduling workflow; a context without a workflow id opens them', async () => {
    const activity = (workflowId?: string): SerializationContext => ({
      type: 'activity',
      namespace: 'default',
      activityId: '1',
      isLocal: false,
      ...(workflowId ? { workflowId } : {}),
    });
    const [bound] = await codec.encode([plain], activity('brand/acme-a'));
    expect(meta(bound!, BOUND_WORKFLOW_METADATA)).toBe('brand/acme-a');
    expect(value((await codec.decode([bound!], activity('brand/acme-a')))[0])).toEqual(value(plain));
    expect(value((await codec.decode([bound!], wf('brand/acme-a')))[0])).toEqual(value(plain));
    await expect(codec.decode([bound!], activity('brand/acme-b'))).rejects.toThrow(/bound to workflow/);
    expect(value((await codec.decode([bound!], activity()))[0])).toEqual(value(plain));
  });

  it('sealed by the ingress for a workflow (envelope 5): refused in another, opened in its own', async () => {
    const sealing = new SealingCodec(PublicKeys.of(ring));
    const [sealed] = await sealing.encode([plain], wf('parked/acme'));
    expect(meta(sealed!, 'encryption-envelope')).toBe('5');
    expect(meta(sealed!, BOUND_WORKFLOW_METADATA)).toBe('parked/acme');
    await expect(codec.decode([sealed!], wf('brand/acme-b'))).rejects.toThrow(/bound to workflow/);
    const moved = {
      ...sealed!,
      metadata: { ...sealed!.metadata, [BOUND_WORKFLOW_METADATA]: Buffer.from('brand/acme-b') },
    };
    await expect(codec.decode([moved], wf('brand/acme-b'))).rejects.toThrow(/does not authenticate/);
    const asV3 = { ...sealed!, metadata: { ...sealed!.metadata, 'encryption-envelope': Buffer.from('3') } };
    await expect(codec.decode([asV3], wf('brand/acme-b'))).rejects.toThrow(/does not authenticate/);
    expect(value((await codec.decode([sealed!], wf('parked/acme')))[0])).toEqual(value(plain));
    expect(value((await codec.decode([sealed!]))[0])).toEqual(value(plain));
  });
});

describe('unbound payloads', () => {
  it('versions 2 and 3 (earlier releases) still open in any workflow, and are counted', async () => {
    const before = unboundDecodeCount();
    expect(value((await codec.decode([v2(plain)], wf('brand/acme-b')))[0])).toEqual(value(plain));
    expect(value((await codec.decode([v3(plain)], wf('brand/acme-b')))[0])).toEqual(value(plain));
    expect(unboundDecodeCount()).toBe(before + 2);
    // A bound payload is not counted.
    const [bound] = await codec.encode([plain], wf('brand/acme-a'));
    await codec.decode([bound!], wf('brand/acme-a'));
    expect(unboundDecodeCount()).toBe(before + 2);
  });

  it('are counted on the meter as tcr_unbound_payload_decodes_total, tagged with the envelope', async () => {
    const added: { name: string; n: number; tags: unknown }[] = [];
    const meter = {
      createCounter: (name: string) => ({
        add: (n: number, tags?: unknown) => added.push({ name, n, tags }),
        withTags: () => undefined,
      }),
    } as unknown as MetricMeter;
    const stop = observePlaintextDecodes(meter);
    const [bound] = await codec.encode([plain], wf('brand/acme-a'));
    await codec.decode([v2(plain), v3(plain), bound!], wf('brand/acme-a'));
    stop();
    await codec.decode([v2(plain)]);
    expect(added).toEqual([
      { name: 'tcr_unbound_payload_decodes_total', n: 1, tags: { envelope: '2' } },
      { name: 'tcr_unbound_payload_decodes_total', n: 1, tags: { envelope: '3' } },
    ]);
  });

  it('without a context, the codec writes the unbound envelopes (2, and 3 sealed)', async () => {
    const [written] = await codec.encode([plain]);
    expect(meta(written!, 'encryption-envelope')).toBe('2');
    const [sealed] = await new SealingCodec(PublicKeys.of(ring)).encode([plain]);
    expect(meta(sealed!, 'encryption-envelope')).toBe('3');
  });

  it('the Nexus outcome workflows’ payloads stay unbound: their results reach the caller’s workflow', async () => {
    const [result] = await codec.encode([plain], wf('nexus-order/brand/req-1'));
    expect(meta(result!, 'encryption-envelope')).toBe('2');
    expect(value((await codec.decode([result!], wf('fulfil/order-1', 'orders')))[0])).toEqual(value(plain));
  });
});

describe('a schedule’s action', () => {
  const run = 'sweep/acme-2026-11-27T05:00:00Z';

  it('is bound to the action’s workflow id and opens in the runs the schedule starts', async () => {
    const [action] = await forScheduleAction(() => codec.encode([plain], wf('sweep/acme')));
    expect(meta(action!, BOUND_WORKFLOW_METADATA)).toBe('sweep/acme');
    expect(value((await codec.decode([action!], wf(run)))[0])).toEqual(value(plain));
    // The schedule client reads its action back with the action's id.
    expect(value((await codec.decode([action!], wf('sweep/acme')))[0])).toEqual(value(plain));
  });

  it('opens in no other workflow: not a suffix that is no schedule time, not another prefix', async () => {
    const [action] = await forScheduleAction(() => codec.encode([plain], wf('sweep/acme')));
    for (const other of [
      'sweep/acme-evil',
      'sweep/acme-2026-11-27T05:00:00Z-x',
      'sweep/acme-2026-11-27T05:00:00.5Z',
      'sweep/acm-2026-11-27T05:00:00Z',
      'sweep/acme2026-11-27T05:00:00Z',
    ])
      await expect(codec.decode([action!], wf(other)), other).rejects.toThrow(/bound to workflow/);
  });

  it('a payload not encoded for a schedule does not open in a workflow named like a schedule’s run', async () => {
    const [bound] = await codec.encode([plain], wf('sweep/acme'));
    await expect(codec.decode([bound!], wf(run))).rejects.toThrow(/bound to workflow 'sweep\/acme'/);
    // The schedule marking cannot be added afterwards.
    const marked = {
      ...bound!,
      metadata: { ...bound!.metadata, 'encryption-binding': Buffer.from('schedule') },
    };
    await expect(codec.decode([marked], wf(run))).rejects.toThrow(/does not authenticate/);
  });
});
