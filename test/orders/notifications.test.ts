/**
 * The notification order API and the HTTP delivery activity refuse bad input at the edge, naming the
 * field, before anything is sent (issue 38).
 */
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { createNotificationActivities, notificationUrlProblem } from '../../src/activities/notifications.js';
import type { EntityNotification } from '../../src/contracts/notifications.js';
import { checkNotifyOption, subscribeTo, waitForEntityPhase } from '../../src/orders/notifications.js';
import { RequestValidationError } from '../../src/orders/operator-requests.js';

/** A client that fails the test if anything is sent. */
const untouchable = new Proxy({} as Client, {
  get: () => {
    throw new Error('nothing may be sent');
  },
});
const ref = { account: 'acme', reference: 'B-1' };

describe('notification requests are checked at the edge', () => {
  it.each([
    [{ subscriptionId: 'a b', subscriber: { kind: 'workflow', workflowId: 'w' } }, 'subscriptionId'],
    [
      {
        subscriptionId: 's1',
        subscriber: { kind: 'http', url: 'http://orders.example/hook', secretName: 'k' },
      },
      'url',
    ],
    [
      {
        subscriptionId: 's1',
        subscriber: { kind: 'http', url: 'https://orders.example/hook', secretName: 'a b' },
      },
      'secretName',
    ],
    [{ subscriptionId: 's1', subscriber: { kind: 'workflow', workflowId: '' } }, 'workflowId'],
    [
      { subscriptionId: 's1', subscriber: { kind: 'workflow', workflowId: 'w' }, kinds: ['everything'] },
      'kinds',
    ],
  ])('subscribe %#: refused naming %s', async (request, field) => {
    const error = await subscribeTo(untouchable, 'brand', ref, request as never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequestValidationError);
    expect((error as Error).message).toContain(field);
  });

  it('a start’s notify option and a wait’s id are checked before anything is sent', async () => {
    expect(() => checkNotifyOption({ kind: 'http', url: 'ftp://x', secretName: 'k' })).toThrow(/url/);
    const error = await waitForEntityPhase(untouchable, 'brand', ref, ['ready'], 1_000, {
      waitId: 'has space',
    }).catch((e: unknown) => e);
    expect((error as Error).message).toContain('idempotencyKey');
  });
});

describe('the HTTP delivery activity', () => {
  const notification = { notificationId: 'brand/acme/B-1/1' } as EntityNotification;

  it('https, or http to loopback only', () => {
    expect(notificationUrlProblem('https://orders.example/hook')).toBeUndefined();
    expect(notificationUrlProblem('http://127.0.0.1:8080/hook')).toBeUndefined();
    expect(notificationUrlProblem('http://orders.example/hook')).toMatch(/^url: must be https/);
  });

  it('fails closed: no secrets file, a group-readable one, or no secret of that name sends nothing', async () => {
    let sent = 0;
    const fetch = (async () => {
      sent++;
      return new Response(null, { status: 200 });
    }) as typeof globalThis.fetch;
    const input = { url: 'https://orders.example/hook', secretName: 'orders', notification };
    const open = join(tmpdir(), `tcr-notify-${randomUUID()}`);
    writeFileSync(open, `orders ${'s'.repeat(40)}\n`, { mode: 0o644 });
    const other = join(tmpdir(), `tcr-notify-${randomUUID()}`);
    writeFileSync(other, `billing ${'s'.repeat(40)}\n`, { mode: 0o600 });
    const saved = process.env.TCR_NOTIFICATION_SECRETS_FILE;
    delete process.env.TCR_NOTIFICATION_SECRETS_FILE;
    try {
      await expect(createNotificationActivities({ fetch }).deliverNotification(input)).rejects.toThrow(
        /TCR_NOTIFICATION_SECRETS_FILE is not set/,
      );
    } finally {
      if (saved !== undefined) process.env.TCR_NOTIFICATION_SECRETS_FILE = saved;
    }
    await expect(
      createNotificationActivities({ fetch, secretsFile: open }).deliverNotification(input),
    ).rejects.toThrow(/chmod 600/);
    await expect(
      createNotificationActivities({ fetch, secretsFile: other }).deliverNotification(input),
    ).rejects.toThrow(/secretName: no secret named orders/);
    expect(sent).toBe(0);
  });
});
