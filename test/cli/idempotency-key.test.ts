/**
 * Every operator action command sends one idempotency key per invocation (issue 34, item 1):
 * `--idempotency-key K` travels as the Temporal update id, a run without one makes a new key, and a
 * second run with the same key gets the first outcome (here from a client that answers an update id
 * it saw with its first outcome, as the workflows do). An `accepted` outcome (taken; the workflow
 * retries the registry call) prints as such and exits 0.
 */
import type { Client } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import type { OperationOutcome } from '../../src/contracts/operations.js';
import { tcr } from './support.js';

/** A client that runs each update id once: the same id again is answered with the first outcome. */
function onceClient(answer: (n: number) => OperationOutcome) {
  const seen = new Map<string, OperationOutcome>();
  const updateIds: (string | undefined)[] = [];
  let runs = 0;
  const client = {
    workflow: {
      getHandle: () => ({
        async executeUpdate(_definition: unknown, options?: { updateId?: string }) {
          updateIds.push(options?.updateId);
          const id = options?.updateId;
          const first = id === undefined ? undefined : seen.get(id);
          if (first) return first;
          const outcome = answer(++runs);
          if (id !== undefined) seen.set(id, outcome);
          return outcome;
        },
      }),
    },
  } as unknown as Client;
  return { client, updateIds, runs: () => runs };
}

const outcomeNo = (n: number): OperationOutcome => ({
  id: n,
  operation: 'x',
  outcome: 'done',
  phase: 'ready',
  ids: { run: String(n) },
});

const commands: string[][] = [
  ['brand', 'correct', 'acme', '--set', 'email=a@b.co'],
  ['brand', 'revet', 'acme'],
  ['brand', 'appeal', 'acme', '--category', 'VERIFY_TAX_ID', '--explanation', 'wrong'],
  ['brand', 'cancel', 'acme', '--reason', 'gone'],
  ['brand', 'acknowledge', 'acme', '--key', 'appeal-overdue'],
  ['campaign', 'approve-fee', 'c1', '--by', 'alice'],
  ['campaign', 'resubmit', 'c1', '--set', 'description=A description long enough here.'],
  ['campaign', 'share', 'c1', '--partner', 'SFHGR'],
  ['campaign', 'cancel', 'c1', '--reason', 'gone'],
  ['campaign', 'confirm-dca', 'c1', '--by', 'alice'],
  ['campaign', 'acknowledge', 'c1', '--key', 'k1'],
  ['vet', 'order', 'acme', '--evp', 'AEGIS', '--class', 'ENHANCED'],
];
const env = { USER: 'alice', TCR_ACCOUNT: 'local' };

describe('action commands: one idempotency key per invocation', () => {
  for (const argv of commands)
    it(`${argv.slice(0, 2).join(' ')}: the same --idempotency-key twice is answered with the first outcome`, async () => {
      const fake = onceClient(outcomeNo);
      const first = await tcr([...argv, '--idempotency-key', 'op-1'], { client: fake.client, env });
      expect(first.code, first.stderr).toBe(0);
      const again = await tcr([...argv, '--idempotency-key', 'op-1'], { client: fake.client, env });
      expect(again.code, again.stderr).toBe(0);
      expect(again.stdout).toBe(first.stdout);
      expect(again.stdout).toMatch(/run 1/);
      expect(fake.runs()).toBe(1);
      // Without a key, each run is a new request under a new key.
      await tcr(argv, { client: fake.client, env });
      await tcr(argv, { client: fake.client, env });
      const [, , a, b] = fake.updateIds;
      expect(fake.updateIds.slice(0, 2)).toEqual(['op-1', 'op-1']);
      expect(a).toMatch(/^[0-9a-f-]{36}$/);
      expect(b).toMatch(/^[0-9a-f-]{36}$/);
      expect(b).not.toBe(a);
      expect(fake.runs()).toBe(3);
    });

  it('a malformed key is refused naming the flag, nothing sent; --help names the flag', async () => {
    const fake = onceClient(outcomeNo);
    const bad = await tcr(['campaign', 'approve-fee', 'c1', '--idempotency-key', 'a b'], {
      client: fake.client,
      env,
    });
    expect(bad.code).toBe(3);
    expect(bad.stderr).toMatch(/idempotency-key/);
    expect(fake.updateIds).toEqual([]);
    const help = await tcr(['campaign', 'approve-fee', '--help'], { client: fake.client, env });
    expect(help.stdout).toMatch(/--idempotency-key K/);
  });

  it('an accepted outcome prints as taken and retried, exit 0', async () => {
    const fake = onceClient((n) => ({
      id: n,
      operation: 'approveFee',
      outcome: 'accepted',
      phase: 'creating',
      detail: 'the fee approval is recorded; the registry call met a fault',
    }));
    const run = await tcr(['campaign', 'approve-fee', 'c1'], { client: fake.client, env });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe(
      'fee approved: accepted (taken; the workflow retries the registry call), phase creating: the fee approval is recorded; the registry call met a fault',
    );
  });
});
