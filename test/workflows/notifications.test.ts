/**
 * Notifications to order systems and the durable wait (issue 38): a signed HTTP notification survives a
 * receiver that fails its first attempts and carries none of the order's personal data; a subscriber
 * workflow hears the phase changes up to ready; a wait for a phase is an update a restarted client
 * re-attaches to by its id.
 */
import { createHmac, randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { canonicalize } from 'json-canonicalize';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNotificationActivities } from '../../src/activities/notifications.js';
import { type EntityNotification, NOTIFICATIONS_TASK_QUEUE } from '../../src/contracts/notifications.js';
import { subscribeTo, waitForEntityPhase } from '../../src/orders/notifications.js';
import { receivedQuery } from '../fixtures/notification-collector-workflow.js';
import { FakeRegistry } from '../fixtures/workflow-fake-registry.js';
import { brandRegistration, recordHistory, withWorkers } from '../fixtures/workflow-harness.js';
import { timeSkippingEnv, workflowBundle } from '../support/temporal-env.js';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await timeSkippingEnv();
});
afterAll(async () => {
  await env?.teardown();
});

const SECRET = 'n'.repeat(40);
const registration = brandRegistration();

function secretsFile(): string {
  const path = join(tmpdir(), `tcr-notify-${randomUUID()}`);
  writeFileSync(path, `# notification secrets\norders-hook ${SECRET}\n`, { mode: 0o600 });
  return path;
}

interface Received {
  status: number;
  id: string;
  body: string;
  signature: string | undefined;
}

/** An HTTP receiver answering 500 to its first `failFirst` requests. */
async function receiver(failFirst: number) {
  const requests: Received[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      const status = requests.length < failFirst ? 500 : 200;
      requests.push({
        status,
        id: String(req.headers['x-tcr-notification-id']),
        body,
        signature: req.headers['x-tcr-signature-256'] as string | undefined,
      });
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/tcr/notify`;
  return { url, requests, close: () => new Promise((r) => server.close(r)) };
}

const until = async <T>(fn: () => Promise<T | undefined> | T | undefined, ms = 60_000): Promise<T> => {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 100));
  }
};

describe('notifications to order systems', () => {
  it('a signed HTTP notification survives a receiver failing twice, once per id, no personal data', async () => {
    const fake = new FakeRegistry();
    const hook = await receiver(2);
    const notifyWorker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue: NOTIFICATIONS_TASK_QUEUE,
      activities: createNotificationActivities({ secretsFile: secretsFile() }),
    });
    const running = notifyWorker.run();
    try {
      await withWorkers(env, fake.activities(), async ({ orderBrand, account }) => {
        const gate = fake.block('registerBrand');
        const { reference, handle } = await orderBrand({ brand: registration });
        await gate.reached;
        const subscribed = await subscribeTo(
          env.client,
          'brand',
          { account, reference },
          {
            subscriptionId: 'orders-1',
            subscriber: { kind: 'http', url: hook.url, secretName: 'orders-hook' },
          },
        );
        expect(subscribed).toMatchObject({ created: true, current: { phase: 'registering' } });
        // The same id again changes nothing.
        const again = await subscribeTo(
          env.client,
          'brand',
          { account, reference },
          {
            subscriptionId: 'orders-1',
            subscriber: { kind: 'http', url: hook.url, secretName: 'orders-hook' },
          },
        );
        expect(again.created).toBe(false);
        gate.release();
        const ok = await until(() => {
          const done = hook.requests.filter((r) => r.status === 200);
          return done.some((r) => (JSON.parse(r.body) as EntityNotification).phase === 'ready')
            ? done
            : undefined;
        });
        expect(hook.requests.slice(0, 2).map((r) => r.status)).toEqual([500, 500]);
        // The first notification was retried until accepted: every id accepted exactly once.
        const ids = ok.map((r) => r.id);
        expect(new Set(ids).size).toBe(ids.length);
        expect(ids[0]).toBe(hook.requests[0]!.id);
        for (const r of ok) {
          const n = JSON.parse(r.body) as EntityNotification;
          expect(r.body).toBe(canonicalize(n));
          expect(r.id).toBe(n.notificationId);
          expect(n.notificationId).toMatch(new RegExp(`^${handle.workflowId}/\\d+$`));
          const expected = `sha256=${createHmac('sha256', SECRET)
            .update(hook.url + r.body)
            .digest('hex')}`;
          expect(r.signature).toBe(expected);
        }
        const last = JSON.parse(ok.at(-1)!.body) as EntityNotification;
        expect(last).toMatchObject({
          entity: 'brand',
          reference,
          kind: 'phase',
          phase: 'ready',
          outcome: 'ready',
        });
        // Nothing of the order's personal data in any body sent.
        const all = hook.requests.map((r) => r.body).join('\n');
        const personal = [
          registration.ein,
          registration.ein?.replace('-', ''),
          registration.phone,
          registration.email,
          registration.companyName,
        ];
        for (const value of personal.filter((v): v is string => typeof v === 'string' && v.length > 0))
          expect(all).not.toContain(value);
        await recordHistory(handle, 'brand-notify-http');
      });
    } finally {
      notifyWorker.shutdown();
      await running;
      await hook.close();
    }
  });

  it('a subscriber workflow hears the phase changes through ready, and a Temporal cancellation', async () => {
    const fake = new FakeRegistry();
    const collectorQueue = `collector-${randomUUID()}`;
    const collectorWorker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue: collectorQueue,
      workflowBundle: await workflowBundle(
        fileURLToPath(new URL('../fixtures/notification-collector-workflow.ts', import.meta.url)),
      ),
    });
    const running = collectorWorker.run();
    try {
      await withWorkers(env, fake.activities(), async ({ orderBrand, account, track }) => {
        const collector = track(
          await env.client.workflow.start('notificationCollector', {
            taskQueue: collectorQueue,
            workflowId: `collector-${randomUUID()}`,
          }),
        );
        const gate = fake.block('registerBrand');
        const { reference, handle } = await orderBrand({ brand: registration });
        await gate.reached;
        await subscribeTo(
          env.client,
          'brand',
          { account, reference },
          {
            subscriptionId: 'fulfilment',
            subscriber: { kind: 'workflow', workflowId: collector.workflowId },
            kinds: ['phase'],
          },
        );
        gate.release();
        const received = await until(async () => {
          const got = await collector.query(receivedQuery);
          return got.some((n) => n.phase === 'ready') ? got : undefined;
        });
        expect(received[0]).toMatchObject({ kind: 'phase', phase: 'registering', outcome: 'in-progress' });
        expect(received.at(-1)).toMatchObject({ kind: 'phase', phase: 'ready', outcome: 'ready' });
        expect(received.slice(1).every((n) => n.previousPhase !== undefined)).toBe(true);
        expect(new Set(received.map((n) => n.notificationId)).size).toBe(received.length);
        // A Temporal cancellation (Web UI, temporal workflow cancel): the subscriber hears it ended.
        await handle.cancel();
        const ended = await until(async () => {
          const got = await collector.query(receivedQuery);
          return got.find((n) => n.phase === 'cancelled');
        });
        expect(ended).toMatchObject({ kind: 'phase', previousPhase: 'ready', outcome: 'cancelled' });
      });
    } finally {
      collectorWorker.shutdown();
      await running;
    }
  });

  it('the durable wait: a new client re-attaches to the wait by its id and gets the result', async () => {
    const fake = new FakeRegistry();
    await withWorkers(env, fake.activities(), async ({ orderBrand, account }) => {
      const gate = fake.block('registerBrand');
      const { reference, handle } = await orderBrand({ brand: registration });
      await gate.reached;
      const ref = { account, reference };
      const first = await Connection.connect({ address: env.connection.options.address });
      const firstClient = new Client({ connection: first });
      const abandoned = waitForEntityPhase(firstClient, 'brand', ref, ['ready'], 120_000, {
        waitId: 'order-77',
      });
      abandoned.catch(() => undefined);
      // The first client's wait is in the workflow, then that client goes away.
      await until(async () => {
        const history = await handle.fetchHistory();
        return history.events?.some((e) => e.workflowExecutionUpdateAcceptedEventAttributes)
          ? true
          : undefined;
      });
      await first.close();
      const second = await Connection.connect({ address: env.connection.options.address });
      try {
        const secondClient = new Client({ connection: second });
        const waiting = waitForEntityPhase(secondClient, 'brand', ref, ['ready'], 120_000, {
          waitId: 'order-77',
        });
        gate.release();
        const outcome = await waiting;
        expect(outcome).toMatchObject({ result: 'reached', current: { phase: 'ready', outcome: 'ready' } });
        // One wait in the workflow: the second client attached to the first's update.
        const history = await handle.fetchHistory();
        const accepted =
          history.events?.filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes) ?? [];
        expect(accepted).toHaveLength(1);
        expect(
          accepted[0]!.workflowExecutionUpdateAcceptedEventAttributes!.acceptedRequest?.meta?.updateId,
        ).toBe('wait-for-phase/order-77');
      } finally {
        await second.close();
      }
    });
  });
});
