/**
 * The order API's vet requests take the caller's idempotency key (orderVet / importVet, `idempotencyKey`)
 * and send it as the Temporal update id; a malformed key is refused at the edge, naming the field, with
 * nothing sent.
 */
import type { Client } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { importVet, orderVet } from '../../src/orders/index.js';
import { RequestValidationError } from '../../src/orders/operator-requests.js';
import { setOrderAccounts } from '../../src/orders/order-client.js';

function recordingClient(): { client: Client; sent: { update: string; updateId?: string }[] } {
  const sent: { update: string; updateId?: string }[] = [];
  const client = {
    workflow: {
      getHandle: () => ({
        async executeUpdate(definition: { name: string }, options?: { updateId?: string }) {
          sent.push({
            update: definition.name,
            ...(options?.updateId ? { updateId: options.updateId } : {}),
          });
          return { id: 1, operation: definition.name, outcome: 'done', phase: 'ready' };
        },
      }),
    },
  } as unknown as Client;
  // One account: a bare reference is its.
  setOrderAccounts(client, ['local']);
  return { client, sent };
}

describe('vet requests: the idempotency key', () => {
  it('is sent as the update id; without one the client makes its own', async () => {
    const { client, sent } = recordingClient();
    await orderVet(client, 'acme', { evpId: 'AEGIS', vettingClass: 'ENHANCED' }, { idempotencyKey: 'o-1' });
    await importVet(client, 'acme', { evpId: 'AEGIS', vettingId: 'v1' }, { idempotencyKey: 'i-1' });
    await orderVet(client, 'acme', { evpId: 'AEGIS', vettingClass: 'ENHANCED' });
    expect(sent).toEqual([
      { update: 'orderVet', updateId: 'o-1' },
      { update: 'importVet', updateId: 'i-1' },
      { update: 'orderVet' },
    ]);
  });

  it('refuses an empty, spaced or overlong key naming it; nothing is sent', async () => {
    const { client, sent } = recordingClient();
    for (const idempotencyKey of ['', 'a b', 'k'.repeat(201)]) {
      const error = await orderVet(
        client,
        'acme',
        { evpId: 'AEGIS', vettingClass: 'ENHANCED' },
        { idempotencyKey },
      ).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RequestValidationError);
      expect(String(error)).toMatch(/idempotencyKey/);
    }
    expect(sent).toEqual([]);
  });
});
