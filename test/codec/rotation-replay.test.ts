import { Client, WorkflowFailedError } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataConverter, EncryptionCodec, Keyring, payloadKeyId } from '../../src/codec/index.js';
import { devServerEnv } from '../support/temporal-env.js';
import { codecActivities, codecWorkflowsBundle } from './codec-bundle.js';
import type { HeldData, holdsData } from './codec-workflows.js';
import { historyLeaks, historyPayloads, payloadEncoding } from './history-leaks.js';

// One workflow started under key k1, rotated to k2 while it waits, continued as new under k2: every
// history stays readable with the rotated ring, none holds the data in clear, and both replay.
const EventType = temporal.api.enums.v1.EventType;
const data: HeldData = {
  reference: 'rotation-ref',
  ein: '912345678',
  phone: '+14155550177',
  email: 'rotation.contact@example.org',
  firstName: 'Wilhelmina',
  generation: 0,
};
const token = 'vet-token-5f3c9a1e77';
const secrets = [data.ein, data.phone, data.email, data.firstName, token];
const taskQueue = 'codec-rotation';

let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleWithSourceMap;
const ring1 = Keyring.generate('k1');
const ring2 = ring1.withNewKey('k2', true);

async function worker(ring: Keyring): Promise<Worker> {
  return Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowBundle: bundle,
    activities: codecActivities,
    dataConverter: dataConverter({ keyring: ring }),
  });
}

beforeAll(async () => {
  [env, bundle] = await Promise.all([devServerEnv(), codecWorkflowsBundle()]);
}, 180_000);
afterAll(() => env?.teardown(), 60_000);

describe('payload encryption across a key rotation', () => {
  const histories: { workflowId: string; history: temporal.api.history.v1.IHistory }[] = [];

  it('keeps decoding what the old key wrote and writes the next run under the new key', async () => {
    const client1 = new Client({
      connection: env.connection,
      dataConverter: dataConverter({ keyring: ring1 }),
    });
    const workflowId = `codec-rotation-${Date.now()}`;
    const w1 = await worker(ring1);
    const handle = await w1.runUntil(async () => {
      const h = await client1.workflow.start<typeof holdsData>('holdsData', {
        taskQueue,
        workflowId,
        args: [data],
      });
      while ((await h.query<string>('stage')) !== 'waiting-for-token')
        await new Promise((r) => setTimeout(r, 100));
      return h;
    });
    const firstRunId = handle.firstExecutionRunId;

    // Rotation: the workers and clients restart with k2 current and k1 kept for decryption.
    const client2 = new Client({
      connection: env.connection,
      dataConverter: dataConverter({ keyring: ring2 }),
    });
    const w2 = await worker(ring2);
    const failure = await w2.runUntil(async () => {
      const h2 = client2.workflow.getHandle<typeof holdsData>(workflowId);
      await h2.signal('token', token);
      // The second run (continued as new under k2) waits for its own token.
      for (;;) {
        const d = await h2.describe();
        if (d.runId !== firstRunId && (await h2.query<string>('stage')) === 'waiting-for-token') break;
        await new Promise((r) => setTimeout(r, 100));
      }
      await h2.signal('token', token);
      return h2.result().then(
        () => undefined,
        (e: unknown) => e,
      );
    });
    // The failure message (it repeats the EIN and the token) was encrypted and decodes with the ring.
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    expect((failure as WorkflowFailedError).cause?.message).toBe(
      `the registry refused EIN ${data.ein} with token ${token}`,
    );

    const first = await client2.workflow.getHandle(workflowId, firstRunId).fetchHistory();
    const secondRunId = (await client2.workflow.getHandle(workflowId).describe()).runId;
    const second = await client2.workflow.getHandle(workflowId, secondRunId).fetchHistory();
    histories.push({ workflowId, history: first }, { workflowId, history: second });

    const started = (h: typeof first) =>
      h.events?.find((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED)
        ?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
    const continued = first.events?.find(
      (e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW,
    )?.workflowExecutionContinuedAsNewEventAttributes?.input?.payloads?.[0];
    expect(payloadKeyId(started(first)!)).toBe('k1');
    expect(payloadKeyId(continued!)).toBe('k2');
    expect(payloadKeyId(started(second)!)).toBe('k2');

    // Every payload of both runs is encrypted, none holds the data, and all decode with the rotated ring.
    const codec = new EncryptionCodec(ring2);
    for (const { history } of histories) {
      const payloads = historyPayloads(history);
      expect(payloads.length).toBeGreaterThan(3);
      expect(payloads.map(payloadEncoding).filter((e) => e !== 'binary/encrypted')).toEqual([]);
      expect(historyLeaks(history, secrets)).toEqual([]);
      const decoded = await codec.decode(payloads);
      const text = decoded.map((p) => JSON.stringify(defaultPayloadConverter.fromPayload(p))).join('\n');
      for (const secret of [data.ein, data.phone, data.email, data.firstName]) expect(text).toContain(secret);
    }
    // The failure's message in the raw history says only that it is encoded.
    const failed = second.events?.find((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED)
      ?.workflowExecutionFailedEventAttributes?.failure;
    expect(failed?.message).toBe('Encoded failure');
    expect(failed?.stackTrace ?? '').toBe('');
    // The second run's input is the first's, one generation on: the same object.
    const [input] = await codec.decode([started(second)!]);
    expect(defaultPayloadConverter.fromPayload(input!)).toEqual({ ...data, generation: 1 });
    // Without the old key, the first run's input cannot be read: the rotation keeps old keys for that.
    await expect(
      new EncryptionCodec(new Keyring('k2', new Map([['k2', ring2.key('k2')!]]))).decode([started(first)!]),
    ).rejects.toThrow(/key 'k1', which is not in the keyring/);
  }, 120_000);

  it('replays both encrypted histories with the same data converter, and not without the keys', async () => {
    expect(histories).toHaveLength(2);
    // With the workflow's id: its payloads are bound to it (a replay under another id is refused).
    for (const { workflowId, history } of histories)
      await Worker.runReplayHistory(
        { workflowBundle: bundle, dataConverter: dataConverter({ keyring: ring2 }) },
        history,
        workflowId,
      );
    await expect(
      Worker.runReplayHistory(
        { workflowBundle: bundle, dataConverter: dataConverter({ env: {} }) },
        histories[0]!.history,
      ),
    ).rejects.toThrow();
  }, 120_000);
});
