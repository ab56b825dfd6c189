/**
 * A write budget terminated mid-burst (issue 36, item 4), against the dev server, the product's
 * workers and the simulator enforcing the spec's limits (20 writes in any 10 s per account, 429
 * above), every registry call counted on the wire by a proxy.
 *
 * A backlog of brand registrations starts; once its first window is under way, the account's budget
 * workflow is terminated (an operator's mistake, or a reset). The writes go on: the next reservation
 * starts a new run, which knows nothing of the grants still in flight. Asserted: no 429, at most 20
 * accepted writes in any 10 s, every order registered exactly once. Before the restart rule the new
 * run granted a whole window at once, beside the old one's (twice the limit: 429s).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { isWrite, type ProxiedCall } from '../../bench/support/counting-proxy.js';
import { writeBudgetWorkflowId } from '../../src/contracts/ids.js';
import { startBrandOrder } from '../../src/orders/brand-client.js';
import type { SimulatorAccount } from '../../src/simulator/index.js';
import { brandOrder } from '../cli/support.js';
import { startTestStack, type TestStack } from '../fixtures/test-stack.js';
import { maxInAnyWindow } from './support.js';

const ACCOUNT = 'restart';
const N = 45;

let stack: TestStack;

beforeAll(async () => {
  const accounts: Record<string, SimulatorAccount> = {
    [ACCOUNT]: { cspId: 'CSPRESTART', apiKey: 'restart-key', apiSecret: 'restart-secret' },
  };
  stack = await startTestStack({ accounts, countCalls: true });
}, 120_000);

afterAll(() => stack?.close());

const writes = (): ProxiedCall[] =>
  stack
    .proxy(ACCOUNT)
    .calls.filter(isWrite)
    .sort((a, b) => a.startMs - b.startMs);

const accepted = () =>
  writes().filter((c) => c.path.endsWith('/brand/nonBlocking') && c.status >= 200 && c.status < 300);

async function until(done: () => boolean, what: string, tries = 1800): Promise<void> {
  for (let attempt = 0; attempt < tries; attempt++) {
    if (done()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`never happened: ${what}`);
}

it('a budget terminated mid-burst: the writes go on with no 429 and at most 20 in any 10 s', async () => {
  const run = randomUUID().slice(0, 8);
  const references = Array.from({ length: N }, (_, i) => `${ACCOUNT}-${run}-${i}`);
  await Promise.all(
    references.map((reference) => startBrandOrder(stack.client, brandOrder(reference, ACCOUNT))),
  );
  await until(() => accepted().length >= 8, 'the burst began');
  await stack.client.workflow.getHandle(writeBudgetWorkflowId(ACCOUNT)).terminate('terminated mid-burst');
  await until(() => accepted().length >= N, `${N} registrations accepted`);
  const calls = writes();
  expect(calls.filter((c) => c.status === 429).map((c) => `${c.method} ${c.path}`)).toEqual([]);
  expect(maxInAnyWindow(calls)).toBeLessThanOrEqual(20);
  expect(new Set(accepted().map((c) => c.seq)).size).toBe(N);
}, 300_000);
