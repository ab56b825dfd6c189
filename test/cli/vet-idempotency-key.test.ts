/**
 * `tcr vet order|import --idempotency-key`: the key is sent as the Temporal update id (the brand answers
 * the same key with the first outcome); without one, each run makes a new key; a malformed key is
 * refused at the edge naming the flag, with nothing sent; an error that is not a refusal names the key
 * to run again with.
 */
import type { Client } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { tcr } from './support.js';

function recordingClient(fail?: Error): { client: Client; updateIds: (string | undefined)[] } {
  const updateIds: (string | undefined)[] = [];
  const client = {
    workflow: {
      getHandle: () => ({
        async executeUpdate(_definition: unknown, options?: { updateId?: string }) {
          updateIds.push(options?.updateId);
          if (fail) throw fail;
          return { id: 1, operation: 'orderVet', outcome: 'done', phase: 'ready' };
        },
      }),
    },
  } as unknown as Client;
  return { client, updateIds };
}

const order = ['vet', 'order', 'acme', '--evp', 'AEGIS', '--class', 'ENHANCED'];
/** The account a bare REF is of. */
const env = { TCR_ACCOUNT: 'local' };

describe('tcr vet: idempotency key', () => {
  it('sends the given key as the update id, and a new key per run without one', async () => {
    const keyed = recordingClient();
    const run = await tcr([...order, '--idempotency-key', 'order-42'], { client: keyed.client, env });
    expect(run.code, run.stderr).toBe(0);
    const imported = await tcr(
      ['vet', 'import', 'acme', '--evp', 'CV', '--vetting-id', 'cv-1', '--idempotency-key', 'import-7'],
      { client: keyed.client, env },
    );
    expect(imported.code, imported.stderr).toBe(0);
    expect(keyed.updateIds).toEqual(['order-42', 'import-7']);

    const fresh = recordingClient();
    expect((await tcr(order, { client: fresh.client, env })).code).toBe(0);
    expect((await tcr(order, { client: fresh.client, env })).code).toBe(0);
    expect(fresh.updateIds).toHaveLength(2);
    expect(fresh.updateIds[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(fresh.updateIds[1]).not.toBe(fresh.updateIds[0]);
  });

  it('refuses a malformed key naming the flag; a failed call names the key to ask again with', async () => {
    const sent = recordingClient();
    const bad = await tcr([...order, '--idempotency-key', 'has space'], { client: sent.client, env });
    expect(bad.code).toBe(3);
    expect(bad.stderr).toMatch(/idempotency-key|idempotencyKey/);
    expect(sent.updateIds).toEqual([]);

    const lost = recordingClient(new Error('deadline exceeded'));
    const run = await tcr([...order, '--idempotency-key', 'order-43'], { client: lost.client, env });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(
      /deadline exceeded \(idempotency key order-43: run it again with --idempotency-key order-43/,
    );
  });
});
