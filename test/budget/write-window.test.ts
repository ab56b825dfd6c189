/**
 * The account's write budget (issue 18, items 2 and 3) against the dev server, the product's workers
 * and the simulator enforcing the spec's limits (20 writes in any 10 s per account, 429 above).
 * Every registry call goes through a counting proxy per account (arrival time, status), so the shape
 * of the writes is read on the wire as the registry sees it.
 *
 * - The whole window: after an idle window, a backlog of brand registrations sends its first 20
 *   writes together, the 21st only once the first has left the window, and the simulator answers no
 *   429.
 * - Fair across accounts: two accounts in one worker process, each with a backlog at the same time,
 *   each spend their own first window at once: neither waits for the other's.
 *
 * "Together" is asserted on the budget's answers, read from its workflow's history: each of the
 * window's first 20 grants is the earliest instant its request could get (its `now` plus its lead),
 * where a budget that paced the window (2 writes/s) or shared one window between accounts would place
 * them later. Arrival times are not held to it: on a loaded machine a reservation's round trip can
 * pass its lead, and a write that would leave late reserves again (src/activities/write-budget.ts),
 * so the burst can spread on the wire (a full-suite run saw 19 of 20 in the first half window, the
 * 20th at 9.3 s).
 * The wire is held to the registry's rule (no 429, at most 20 accepted in any 10 s) and the 21st
 * accepted write arrives a whole window after the first.
 *
 * The workers run as their own process (`node dist/cli/main.js worker`): run `npm run build` before
 * running this file alone (`npm test` builds first).
 */
import { randomUUID } from 'node:crypto';
import { defaultPayloadConverter } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isWrite, type ProxiedCall } from '../../bench/support/counting-proxy.js';
import { writeBudgetWorkflowId } from '../../src/contracts/ids.js';
import type { GrantedInstants, WriteBudgetRequest } from '../../src/contracts/write-budget.js';
import { startBrandOrder } from '../../src/orders/brand-client.js';
import type { SimulatorAccount } from '../../src/simulator/index.js';
import { brandOrder } from '../cli/support.js';
import { startTestStack, type TestStack } from '../fixtures/test-stack.js';
import { testNote } from '../support/quiet-log.js';
import { maxInAnyWindow, WINDOW_MS } from './support.js';

const LIMIT = 20;

const simAccounts: Record<string, SimulatorAccount> = {
  solo: { cspId: 'CSPSOLO', apiKey: 'solo-key', apiSecret: 'solo-secret' },
  left: { cspId: 'CSPLEFT', apiKey: 'left-key', apiSecret: 'left-secret' },
  right: { cspId: 'CSPRIGHT', apiKey: 'right-key', apiSecret: 'right-secret' },
};

let stack: TestStack;

beforeAll(async () => {
  // The spec's rate limits; a counting proxy in front of each account. The workers run as one process
  // of their own, as in production: the simulator and the proxies stamp each call when their handler
  // runs on this process's event loop, and the workers starting a burst's 40 writes on the same loop
  // stamped its first writes late (twice, in full-suite runs, the 21st write then arrived 10.12 s
  // after the first by the stamps, though sent at least 10.3 s after it: a 429 the product did not
  // cause).
  stack = await startTestStack({ accounts: simAccounts, countCalls: true, workers: 'process' });
}, 120_000);

afterAll(() => stack?.close());

/** Brand registrations (POST /brand/nonBlocking) that reached the registry, in order of arrival. */
function registrations(account: string): ProxiedCall[] {
  return stack
    .proxy(account)
    .calls.filter((c) => c.method === 'POST' && c.path.endsWith('/brand/nonBlocking'))
    .sort((a, b) => a.startMs - b.startMs);
}

function writes(account: string): ProxiedCall[] {
  return stack
    .proxy(account)
    .calls.filter(isWrite)
    .sort((a, b) => a.startMs - b.startMs);
}

/** Repeats `read` until `done` holds (an event observed on the wire, not a sleep). */
async function until<T>(read: () => T, done: (value: T) => boolean, what: string, tries = 1200): Promise<T> {
  for (let attempt = 0; attempt < tries; attempt++) {
    const value = read();
    if (done(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`never happened: ${what}`);
}

/** For each reference, how many brands the registry holds under it (read as the solo account). */
async function brandsPerReference(references: string[]): Promise<number[]> {
  for (;;) {
    const answer = await stack.simulator.api('GET', '/brand?page=1&recordsPerPage=500');
    if (answer.status === 429) {
      await new Promise((r) => setTimeout(r, 1_000));
      continue;
    }
    expect(answer.status).toBe(200);
    const records = (answer.body as { records: { referenceId?: string | null }[] }).records;
    return references.map((reference) => records.filter((b) => b.referenceId === reference).length);
  }
}

async function orderBrands(account: string, n: number): Promise<string[]> {
  const run = randomUUID().slice(0, 8);
  const references = Array.from({ length: n }, (_, i) => `${account}-${run}-${i}`);
  await Promise.all(
    references.map((reference) => startBrandOrder(stack.client, brandOrder(reference, account))),
  );
  return references;
}

/**
 * The instants the account's budget granted, in the order it granted them, each with the earliest its
 * request could get (`now + leadMs`): from the accepted updates' requests and the completed ones'
 * answers in the budget workflow's history (one run: far fewer grants here than a run holds). An
 * update id is answered once (a repeated id gets its first answer, nothing granted again).
 */
async function budgetGrants(account: string): Promise<{ at: number; earliest: number }[]> {
  const { events } = await stack.client.workflow.getHandle(writeBudgetWorkflowId(account)).fetchHistory();
  const requests = new Map<string, WriteBudgetRequest>();
  const grants: { at: number; earliest: number }[] = [];
  for (const event of events ?? []) {
    const accepted = event.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest;
    const acceptedId = accepted?.meta?.updateId;
    if (acceptedId && !requests.has(acceptedId))
      requests.set(
        acceptedId,
        defaultPayloadConverter.fromPayload(accepted.input!.args!.payloads![0]!) as WriteBudgetRequest,
      );
    const completed = event.workflowExecutionUpdateCompletedEventAttributes;
    const request = completed?.meta?.updateId ? requests.get(completed.meta.updateId) : undefined;
    const success = completed?.outcome?.success?.payloads?.[0];
    if (!request || !success) continue;
    requests.delete(completed!.meta!.updateId!);
    const answer = defaultPayloadConverter.fromPayload(success) as GrantedInstants & { at: number };
    for (const at of answer.instants ?? [answer.at])
      grants.push({ at, earliest: request.now + request.leadMs });
  }
  return grants;
}

/** What the window test asserts of one account's registrations, once `n` were accepted. */
async function windowShape(account: string, n: number) {
  const calls = await until(
    () => registrations(account),
    (c) => c.filter((x) => x.status >= 200 && x.status < 300).length >= n,
    `${n} registrations accepted on ${account}`,
  );
  const accepted = calls.filter((c) => c.status >= 200 && c.status < 300);
  const first = accepted[0]!.startMs;
  const grants = await budgetGrants(account);
  return {
    /** How far past the earliest it could get each of the first window's grants lies (ms). */
    firstWindowWaits: grants.slice(0, LIMIT).map((g) => g.at - g.earliest),
    rateLimited: writes(account).filter((c) => c.status === 429).length,
    accepted: accepted.length,
    /** Accepted registrations that arrived in the first half of the first window (noted, not asserted). */
    inFirstHalfWindow: accepted.filter((c) => c.startMs - first < WINDOW_MS / 2).length,
    /** The first LIMIT + 1 arrivals: the 21st must be a whole window after the first. */
    twentyFirstAfterWindow: accepted[LIMIT]!.startMs - first >= WINDOW_MS,
    maxInAnyWindow: maxInAnyWindow(writes(account)),
    first,
    offsets: accepted.map((c) => c.startMs - first),
    /** Every call of the account on the wire (offset from the first registration, method, path, status). */
    wire: stack
      .proxy(account)
      .calls.slice()
      .sort((a, b) => a.startMs - b.startMs)
      .map(
        (c) =>
          `${c.startMs - first}/${c.endMs - c.startMs} ${c.method} ${c.path}${c.query ? `?${c.query}` : ''} ${c.status}`,
      ),
  };
}

describe('the write budget of an account', () => {
  it('spends a whole window at once after an idle one, then waits for the window: 20 together, the 21st a window later, no 429', async () => {
    const references = await orderBrands('solo', 26);
    const shape = await windowShape('solo', 26);
    testNote(`solo window ${JSON.stringify(shape)}`);
    expect(shape.rateLimited).toBe(0);
    expect(shape.firstWindowWaits).toEqual(Array(LIMIT).fill(0));
    expect(shape.twentyFirstAfterWindow).toBe(true);
    expect(shape.maxInAnyWindow).toBeLessThanOrEqual(LIMIT);
    // Every order registered exactly once, as the registry holds them (a duplicate POST is a second
    // brand there): one brand per reference, and every reference registered.
    expect(await brandsPerReference(references)).toEqual(references.map(() => 1));
  }, 180_000);

  it('gives two accounts in one worker process each their own window at the same time', async () => {
    await Promise.all([orderBrands('left', 24), orderBrands('right', 24)]);
    const [left, right] = await Promise.all([windowShape('left', 24), windowShape('right', 24)]);
    testNote(`left window ${JSON.stringify(left)} right window ${JSON.stringify(right)}`);
    for (const shape of [left, right]) {
      expect(shape.rateLimited).toBe(0);
      expect(shape.firstWindowWaits).toEqual(Array(LIMIT).fill(0));
      expect(shape.twentyFirstAfterWindow).toBe(true);
      expect(shape.maxInAnyWindow).toBeLessThanOrEqual(LIMIT);
    }
    // At the same time: each account's burst began within the other's first half window.
    expect(Math.abs(left.first - right.first)).toBeLessThan(WINDOW_MS / 2);
  }, 180_000);
});
