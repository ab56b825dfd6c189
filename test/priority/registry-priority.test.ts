/**
 * Registry calls carry a task-queue priority (issue 18, item 1), and the account's rate-limited queue
 * dispatches by it: against the dev server (priority-enabled matcher, src/toolchain/dev-server.ts),
 * the product's workers and the simulator with the spec's rate limits, an operator's update on one
 * brand is served ahead of a backlog of brand orders queued on the same account: on the account's
 * interactive writes queue, with slots of its own, and with an instant from the write budget's
 * headroom, so its write reaches the registry ahead of registrations already waiting for theirs.
 *
 * The order is read from the workflows' histories (ActivityTaskScheduled carries the priority, and
 * ActivityTaskStarted the time each task left the queue, ActivityTaskCompleted when its call was
 * answered), all timestamps from the one server clock.
 */
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { tsToMs } from '@temporalio/common/lib/time.js';
import type { temporal } from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registryEventSignal } from '../../src/contracts/signals.js';
import {
  registryInteractiveWritesTaskQueue,
  registryWritesTaskQueue,
} from '../../src/contracts/task-queues.js';
import {
  brandHandle,
  correctBrand,
  startBrandOrder,
  waitForBrandPhase,
} from '../../src/orders/brand-client.js';
import { WRITE_ACTIVITIES_PER_ACCOUNT } from '../../src/workers/create-workers.js';
import { registryPriorityKeys } from '../../src/workflows/entity/stubs.js';
import { brandOrder } from '../cli/support.js';
import { startTestStack, type TestStack } from '../fixtures/test-stack.js';
import { testNote } from '../support/quiet-log.js';

const ACCOUNT = 'local';
/**
 * Brand orders queued on the account's writes queue (a window's burst, then 2 writes/s: about 20 s of backlog).
 * PRIORITY_BACKLOG sets another size for a one-off measurement (the figure is printed).
 */
const BACKLOG = Number(process.env.PRIORITY_BACKLOG ?? 60);

let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack({ account: ACCOUNT }); // the spec's rate limits: 20 reads/s, 20 writes per 10 s
}, 120_000);

afterAll(() => stack?.close());

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

interface ActivityCall {
  activityType: string;
  taskQueue: string | undefined;
  priorityKey: number | undefined;
  scheduledAt: number;
  startedAt: number | undefined;
  completedAt: number | undefined;
}

const millis = (event: HistoryEvent): number => tsToMs(event.eventTime);

/** Every activity the workflow scheduled, with its priority and when it was started. */
async function activityCalls(client: Client, reference: string): Promise<ActivityCall[]> {
  const history = await brandHandle(client, reference).fetchHistory();
  const calls = new Map<number, ActivityCall>();
  for (const event of history.events ?? []) {
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (scheduled)
      calls.set(Number(event.eventId), {
        activityType: scheduled.activityType?.name ?? '',
        taskQueue: scheduled.taskQueue?.name ?? undefined,
        priorityKey: scheduled.priority?.priorityKey ?? undefined,
        scheduledAt: millis(event),
        startedAt: undefined,
        completedAt: undefined,
      });
    const started = event.activityTaskStartedEventAttributes;
    if (started) {
      const call = calls.get(Number(started.scheduledEventId));
      if (call) call.startedAt = millis(event);
    }
    const completed = event.activityTaskCompletedEventAttributes;
    if (completed) {
      const call = calls.get(Number(completed.scheduledEventId));
      if (call) call.completedAt = millis(event);
    }
  }
  return [...calls.values()];
}

/** Repeats `read` until `done` holds (an event observed through Temporal, not a sleep). */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  for (let attempt = 0; attempt < 600; attempt++) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`never happened: ${what}`);
}

describe('registry call priorities on one account', () => {
  it("serves an operator's write ahead of a backlog of brand orders, and records each call's priority (operator, webhook, order, poll) in its history", async () => {
    const run = randomUUID().slice(0, 8);
    const operated = `op-${run}`;
    await startBrandOrder(stack.client, brandOrder(operated, ACCOUNT));
    // A ready brand polled every second: its polls carry the poll priority.
    const polled = `poll-${run}`;
    await startBrandOrder(stack.client, brandOrder(polled, ACCOUNT), {
      workflowOptions: { steadyPollMs: 1000 },
    });
    await waitForBrandPhase(stack.client, operated, 'ready', 60_000);
    // An operator's first correction, before any backlog: from here on the write budget keeps a
    // headroom in every window for interactive writes (the hold lasts minutes).
    await correctBrand(stack.client, operated, { patch: { email: 'first@acme.example' } });
    await waitForBrandPhase(stack.client, operated, 'ready', 60_000);

    // The backlog: BACKLOG registrations, every one scheduled on the writes queue before the operator acts.
    const bulk = Array.from({ length: BACKLOG }, (_, i) => `bulk-${run}-${i}`);
    await Promise.all(bulk.map((reference) => startBrandOrder(stack.client, brandOrder(reference, ACCOUNT))));
    await Promise.all(
      bulk.map((reference) =>
        until(
          () => activityCalls(stack.client, reference),
          (calls) => calls.some((c) => c.activityType === 'registerBrand'),
          `${reference} scheduled its registration`,
        ),
      ),
    );

    const outcome = await correctBrand(stack.client, operated, { patch: { email: 'ops@acme.example' } });
    expect(outcome).toMatchObject({ operation: 'correctBrand', outcome: 'done' });

    // A webhook for the operated brand: the read it wakes carries the webhook priority.
    const status = await waitForBrandPhase(stack.client, operated, 'ready', 60_000);
    const readsBefore = (await activityCalls(stack.client, operated)).filter(
      (c) => c.activityType === 'getBrand',
    );
    await brandHandle(stack.client, operated).signal(registryEventSignal, {
      event: {
        eventType: 'BRAND_IDENTITY_STATUS_UPDATE',
        brandId: status.brandId!,
        brandIdentityStatus: 'VERIFIED',
      },
      receivedAt: new Date().toISOString(),
      deliveryId: `delivery-${run}`,
    });
    const opCalls = await until(
      () => activityCalls(stack.client, operated),
      (calls) =>
        calls.filter((c) => c.activityType === 'getBrand' && c.startedAt !== undefined).length >
        readsBefore.length,
      'the webhook-driven read started',
    );
    const webhookRead = opCalls.filter((c) => c.activityType === 'getBrand')[readsBefore.length]!;

    for (const reference of bulk) await waitForBrandPhase(stack.client, reference, 'ready', 120_000);
    const bulkRegistrations = await Promise.all(
      bulk.map(async (reference) => {
        const calls = await activityCalls(stack.client, reference);
        return calls.find((c) => c.activityType === 'registerBrand')!;
      }),
    );

    // The order: of the registrations still waiting when the operator's write was queued, none left the
    // queue after it was queued and before it.
    const update = opCalls.filter((c) => c.activityType === 'updateBrand').at(-1)!;
    const waiting = bulkRegistrations.filter((c) => c.startedAt! > update.scheduledAt);
    const ahead = waiting.filter((c) => c.startedAt! < update.startedAt!);
    testNote(
      `priority: ${waiting.length} of ${BACKLOG} registrations waiting when the update was queued; ` +
        `${ahead.length} started before it; update waited ${update.startedAt! - update.scheduledAt} ms, ` +
        `webhook read ${webhookRead.startedAt! - webhookRead.scheduledAt} ms`,
    );
    // One FIFO queue for all writes would start every waiting order first (ahead = waiting). The
    // operator's write has its own queue and slots: it starts at once, but for the registrations the
    // backlog's slots took while it reached the server's matcher (0 seen; a few allowed). A backlog
    // still waited in the queue.
    expect(waiting.length).toBeGreaterThanOrEqual(10);
    expect(ahead.length).toBeLessThanOrEqual(5);

    // Interactive writes have their own queue and slots, and the budget's headroom: the operator's
    // write also reached the registry ahead of registrations whose slots had asked for their instants
    // before it (first come, first served, none would: it would wait for the backlog's next window).
    expect(update.taskQueue).toBe(registryInteractiveWritesTaskQueue(ACCOUNT));
    expect(new Set(bulkRegistrations.map((c) => c.taskQueue))).toEqual(
      new Set([registryWritesTaskQueue(ACCOUNT)]),
    );
    const overtaken = bulkRegistrations.filter(
      (c) => c.startedAt! < update.startedAt! && c.completedAt! > update.completedAt!,
    );
    testNote(`priority: the operator's write overtook ${overtaken.length} registrations holding a slot`);
    expect(overtaken.length).toBeGreaterThanOrEqual(2);
    expect(overtaken.length).toBeLessThanOrEqual(WRITE_ACTIVITIES_PER_ACCOUNT);

    // Priorities as recorded: orders 3, the operator's write 1, the webhook's read 2.
    expect(new Set(bulkRegistrations.map((c) => c.priorityKey))).toEqual(
      new Set([registryPriorityKeys.order]),
    );
    expect(update.priorityKey).toBe(registryPriorityKeys.operator);
    expect(opCalls.find((c) => c.activityType === 'registerBrand')?.priorityKey).toBe(
      registryPriorityKeys.order,
    );
    expect(webhookRead.priorityKey).toBe(registryPriorityKeys.webhook);
    const pollCalls = await until(
      () => activityCalls(stack.client, polled),
      (calls) => calls.filter((c) => c.activityType === 'getBrand').length >= 3,
      'the polled brand read the registry on its steady poll',
    );
    // Registration and the first read are the order's (cause start), the later reads are polls.
    expect(pollCalls.find((c) => c.activityType === 'registerBrand')?.priorityKey).toBe(
      registryPriorityKeys.order,
    );
    expect(pollCalls.at(-1)).toMatchObject({
      activityType: 'getBrand',
      priorityKey: registryPriorityKeys.poll,
    });
    await brandHandle(stack.client, polled).terminate('test over');
  }, 1_800_000);
});
