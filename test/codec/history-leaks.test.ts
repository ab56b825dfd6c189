import { defaultPayloadConverter } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { describe, expect, it } from 'vitest';
import { EncryptionCodec, Keyring } from '../../src/codec/index.js';
import { base64Cores, base64Forms, historyLeaks } from './history-leaks.js';

// The leak finder the history tests rely on: it must find a secret wherever an unencrypted history
// would hold it, and find nothing in encrypted payloads.
const EventType = temporal.api.enums.v1.EventType;

function historyWith(
  input: temporal.api.common.v1.IPayload,
  workflowId = 'brand/acme',
): temporal.api.history.v1.IHistory {
  return {
    events: [
      {
        eventType: EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED,
        workflowExecutionStartedEventAttributes: {
          workflowType: { name: 'brandWorkflow' },
          input: { payloads: [input] },
          memo: { fields: { note: defaultPayloadConverter.toPayload(workflowId) } },
        },
      },
    ],
  };
}

describe('historyLeaks', () => {
  it('finds each secret of an unencrypted payload as text in the protobuf', () => {
    const secrets = ['987654321', '+14155550100', 'cfo@globex.example', 'Hank', 'Al'];
    const payload = defaultPayloadConverter.toPayload({
      ein: '987654321',
      phone: '+14155550100',
      email: 'cfo@globex.example',
      firstName: 'Hank',
      lastName: 'Al',
    });
    const found = historyLeaks(historyWith(payload), secrets);
    for (const secret of secrets) expect(found).toContain(`${secret} (plain, protobuf)`);
  });

  it('finds a secret that is only present base64-encoded, at each of the three alignments', () => {
    const token = 'vet-token-5f3c9a1e77';
    for (const prefix of ['', 'x', 'xy']) {
      const hidden = Buffer.from(`${prefix}${token}`).toString('base64');
      const payload = defaultPayloadConverter.toPayload({ blob: hidden });
      const found = historyLeaks(historyWith(payload), [token]);
      expect(found.filter((f) => f.startsWith(`${token} (base64`))).toHaveLength(1);
    }
    expect(base64Cores(token)).toHaveLength(3);
  });

  it('searches a short secret by its JSON string, and no form shorter than 8 characters', () => {
    expect(base64Forms('Hank')).toEqual(base64Cores('"Hank"').filter((c) => c.length >= 8));
    expect(base64Forms('Hank').length).toBeGreaterThan(0);
    for (const secret of ['Al', 'Hank', '987654321', 'cfo@globex.example'])
      for (const form of base64Forms(secret)) expect(form.length).toBeGreaterThanOrEqual(8);
  });

  it("does not take a history's numbers for a secret, but finds one in its text", () => {
    const timed = (message: string): temporal.api.history.v1.IHistory => ({
      events: [
        {
          eventTime: { nanos: 556_677_889 },
          eventType: EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED,
          workflowTaskFailedEventAttributes: { failure: { message } },
        },
      ],
    });
    expect(historyLeaks(timed('a task failed'), ['556677889'])).toEqual([]);
    expect(historyLeaks(timed('bad ein 556677889'), ['556677889'])).toEqual(
      expect.arrayContaining(['556677889 (plain, protobuf)', '556677889 (plain, JSON)']),
    );
  });

  it('finds nothing in encrypted payloads', async () => {
    const secrets = ['987654321', '+14155550100', 'cfo@globex.example', 'Hank', 'Doe'];
    const codec = new EncryptionCodec(Keyring.generate('k1'));
    const payload = defaultPayloadConverter.toPayload({
      ein: '987654321',
      phone: '+14155550100',
      email: 'cfo@globex.example',
      firstName: 'Hank',
    });
    for (let i = 0; i < 50; i++) {
      const [encrypted] = await codec.encode([payload]);
      expect(historyLeaks(historyWith(encrypted!), secrets)).toEqual([]);
    }
  });
});
