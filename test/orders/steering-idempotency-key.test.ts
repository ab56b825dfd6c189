/**
 * (Replaces test/orders/vet-idempotency-key.test.ts: the vet requests are two of these calls.)
 * Every steering call of the order API takes the caller's idempotency key (issue 34, item 1) and sends
 * it as the Temporal update id, so the same key twice is answered with the first outcome (here by a
 * client that answers an update id it saw with its first outcome, as the workflows do); a malformed key
 * is refused at the edge naming idempotencyKey, with nothing sent.
 */
import type { Client } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import type { OperationOutcome } from '../../src/contracts/operations.js';
import {
  acknowledgeCampaignAction,
  approveCampaignFee,
  cancelCampaign,
  confirmCampaignDca,
  resubmitCampaign,
  shareCampaignWith,
} from '../../src/orders/campaign-orders.js';
import {
  acknowledgeBrandAction,
  appealBrand,
  cancelBrand,
  correctBrand,
  importVet,
  orderVet,
  RequestValidationError,
  revetBrand,
  type SteeringOptions,
} from '../../src/orders/index.js';
import { setOrderAccounts } from '../../src/orders/order-client.js';

function onceClient() {
  const seen = new Map<string, OperationOutcome>();
  const sent: { update: string; updateId?: string }[] = [];
  let runs = 0;
  const client = {
    workflow: {
      getHandle: () => ({
        async executeUpdate(definition: { name: string }, options?: { updateId?: string }) {
          sent.push({
            update: definition.name,
            ...(options?.updateId ? { updateId: options.updateId } : {}),
          });
          const id = options?.updateId;
          const first = id === undefined ? undefined : seen.get(id);
          if (first) return first;
          const outcome: OperationOutcome = {
            id: ++runs,
            operation: definition.name,
            outcome: 'done',
            phase: 'x',
          };
          if (id !== undefined) seen.set(id, outcome);
          return outcome;
        },
      }),
    },
  } as unknown as Client;
  setOrderAccounts(client, ['local']);
  return { client, sent, runs: () => runs };
}

type Call = (client: Client, opts: SteeringOptions) => Promise<OperationOutcome>;
const calls: [string, Call][] = [
  ['correctBrand', (c, o) => correctBrand(c, 'acme', { patch: { email: 'a@b.co' } }, o)],
  ['revet', (c, o) => revetBrand(c, 'acme', o)],
  [
    'appeal',
    (c, o) => appealBrand(c, 'acme', { appealCategories: ['VERIFY_TAX_ID'], explanation: 'wrong' }, o),
  ],
  ['cancel', (c, o) => cancelBrand(c, 'acme', 'gone', o)],
  ['acknowledge', (c, o) => acknowledgeBrandAction(c, 'acme', 'appeal-overdue', o)],
  ['orderVet', (c, o) => orderVet(c, 'acme', { evpId: 'AEGIS', vettingClass: 'ENHANCED' }, o)],
  ['importVet', (c, o) => importVet(c, 'acme', { evpId: 'AEGIS', vettingId: 'v1' }, o)],
  ['approveFee', (c, o) => approveCampaignFee(c, 'c1', { approvedBy: 'ops' }, o)],
  [
    'resubmit',
    (c, o) => resubmitCampaign(c, 'c1', { changes: { description: 'A description long enough.' } }, o),
  ],
  ['shareWith', (c, o) => shareCampaignWith(c, 'c1', 'SFHGR', o)],
  ['cancel', (c, o) => cancelCampaign(c, 'c1', 'gone', o)],
  ['acknowledge', (c, o) => acknowledgeCampaignAction(c, 'c1', 'k1', o)],
  ['confirmDcaComplete', (c, o) => confirmCampaignDca(c, 'c1', { confirmedBy: 'ops' }, o)],
];

describe('order API steering calls: the idempotency key', () => {
  for (const [update, call] of calls)
    it(`${update}: the key is the update id; the same key twice gets the first outcome`, async () => {
      const fake = onceClient();
      const first = await call(fake.client, { idempotencyKey: 'order-system-1' });
      const again = await call(fake.client, { idempotencyKey: 'order-system-1' });
      expect(again).toEqual(first);
      expect(fake.runs()).toBe(1);
      expect(fake.sent).toEqual([
        { update, updateId: 'order-system-1' },
        { update, updateId: 'order-system-1' },
      ]);
    });

  it('without a key, the client makes its own (no update id sent by the order API)', async () => {
    const fake = onceClient();
    await orderVet(fake.client, 'acme', { evpId: 'AEGIS', vettingClass: 'ENHANCED' });
    await approveCampaignFee(fake.client, 'c1', { approvedBy: 'ops' });
    expect(fake.sent).toEqual([{ update: 'orderVet' }, { update: 'approveFee' }]);
  });

  for (const [update, call] of calls)
    it(`${update}: a malformed key is refused naming idempotencyKey, nothing sent`, async () => {
      const fake = onceClient();
      for (const idempotencyKey of ['', 'a b', 'k'.repeat(201)]) {
        const error = await call(fake.client, { idempotencyKey }).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(RequestValidationError);
        expect(String(error)).toMatch(/idempotencyKey/);
      }
      expect(fake.sent).toEqual([]);
    });
});
