/**
 * A Temporal that accepts TCP but never answers (a hung server, a proxy that swallows the
 * connection): Core's connect then waits its own 30 s. Calls, deliveries, /readyz and shutdown must
 * not wait with it. Each case brings Temporal "up" (the proxy starts forwarding to a dev server) only
 * after UP_AFTER_MS, far behind every deadline involved, and asserts what happened before that.
 */
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IngressConnection } from '../../src/ingress/native-connection.js';
import { startIngress } from '../../src/ingress/server.js';
import { signEvent } from '../../src/ingress/signature.js';
import { createIngressClient } from '../../src/ingress/temporal.js';
import { devServerEnv } from '../support/temporal-env.js';
import { HangingProxy } from './hanging-proxy.js';
import { failFastIngressConfig } from './ingress-test-config.js';

const WEBHOOK_URL = 'https://csp.example/webhooks/registry';
const SECRET = 'hung-temporal-secret-0123456789abcdefgh';
/** When the proxy starts forwarding: 5x the longest deadline below (2 s), a third of Core's 30 s. */
const UP_AFTER_MS = 10_000;

describe('a Temporal that accepts connections and never answers', () => {
  let env: TestWorkflowEnvironment;
  let target: { host: string; port: number };
  const proxies: HangingProxy[] = [];

  beforeAll(async () => {
    env = await devServerEnv();
    const [host, port] = env.address.split(':');
    target = { host: host!, port: Number(port) };
  });
  afterAll(async () => {
    await Promise.all(proxies.map((proxy) => proxy.close()));
    await env?.teardown();
  });

  /** A held proxy, and an `order` log that gets 'up' when it starts forwarding (after UP_AFTER_MS). */
  async function hungTemporal() {
    const proxy = new HangingProxy();
    proxies.push(proxy);
    await proxy.listen();
    const order: string[] = [];
    const timer = setTimeout(() => {
      order.push('up');
      proxy.up(target);
    }, UP_AFTER_MS);
    const firstConnection = new Promise<void>((resolve) => {
      const check = setInterval(() => {
        if (proxy.accepted > 0) {
          clearInterval(check);
          resolve();
        }
      }, 10);
    });
    return { proxy, order, firstConnection, stopTimer: () => clearTimeout(timer) };
  }

  const settled = <T>(order: string[], label: string, promise: Promise<T>) =>
    promise.then(
      (value) => {
        order.push(`${label} ok`);
        return { value, error: undefined };
      },
      (error: unknown) => {
        order.push(`${label} failed`);
        return { value: undefined, error: error as { code?: number; message?: string } };
      },
    );

  it('a call fails at its deadline while connecting, and close() ends the wait of one without', async () => {
    const { proxy, order, firstConnection, stopTimer } = await hungTemporal();
    const connection = new IngressConnection({ address: `127.0.0.1:${proxy.port}` });
    try {
      const withDeadline = settled(
        order,
        'deadline call',
        connection.withDeadline(Date.now() + 500, () => connection.workflowService.getSystemInfo({})),
      );
      const withoutDeadline = settled(order, 'open call', connection.workflowService.getSystemInfo({}));
      await firstConnection; // the connect is under way, held by the proxy
      const timedOut = await withDeadline;
      expect(timedOut.error?.code).toBe(4); // DEADLINE_EXCEEDED
      await settled(order, 'close', connection.close());
      const open = await withoutDeadline;
      expect(open.error?.message).toMatch(/closed/);
      // All of it happened while Temporal was still unreachable.
      expect([...order].sort()).toEqual(['close ok', 'deadline call failed', 'open call failed']);
    } finally {
      stopTimer();
      await connection.close();
    }
  });

  it('a connect that outlives the deadline of the call that started it serves the next call', async () => {
    const { proxy, order, firstConnection, stopTimer } = await hungTemporal();
    stopTimer(); // brought up by hand below
    const connection = new IngressConnection({ address: `127.0.0.1:${proxy.port}` });
    try {
      await firstConnectionOf(connection, firstConnection);
      proxy.up(target);
      const info = await connection.withDeadline(Date.now() + 5_000, () =>
        connection.workflowService.getSystemInfo({}),
      );
      expect(info.capabilities).toBeTruthy();
      expect(proxy.accepted).toBe(1); // the held attempt, not a new one
      expect(order).toEqual([]);
    } finally {
      await connection.close();
    }
  });

  async function firstConnectionOf(connection: IngressConnection, firstConnection: Promise<void>) {
    const call = connection.withDeadline(Date.now() + 300, () =>
      connection.workflowService.getSystemInfo({}),
    );
    await firstConnection;
    await expect(call).rejects.toMatchObject({ code: 4 });
  }

  it('the ingress answers an in-flight delivery and /readyz, and shuts down, while Temporal hangs', async () => {
    const { proxy, order, firstConnection, stopTimer } = await hungTemporal();
    const client = createIngressClient({
      temporalAddress: `127.0.0.1:${proxy.port}`,
      temporalNamespace: env.namespace ?? 'default',
    });
    const ingress = await startIngress({
      config: failFastIngressConfig({ url: WEBHOOK_URL, secret: SECRET }),
      client,
      logger: pino({ level: 'silent' }),
    });
    try {
      const ready = settled(
        order,
        'readyz',
        fetch(`${ingress.internalUrl}/readyz`).then((response) => response.status),
      );
      await firstConnection; // /readyz is waiting for the connection
      const event = { eventType: 'BRAND_IDENTITY_STATUS_UPDATE', brandId: 'BHUNG01', cspId: 'CSPLOCAL' };
      const delivery = settled(
        order,
        'delivery',
        fetch(`${ingress.endpoint}`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'x-registry-signature-256': signEvent(SECRET, WEBHOOK_URL, event),
          },
          body: JSON.stringify(event),
        }).then((response) => response.status),
      );
      while (ingress.metrics.snapshot().verified < 1) await new Promise((resolve) => setTimeout(resolve, 10));
      // Both are in flight: stop as `tcr ingress` does on SIGTERM.
      const shutdown = settled(
        order,
        'shutdown',
        ingress.close().then(() => client.connection.close()),
      );
      expect((await delivery).value).toBe(503); // a failed hand-off, TCR_INGRESS_HANDOFF_FAILURE=503
      expect((await ready).value).toBe(503);
      await shutdown;
      // All three before Temporal came up (the shutdown may finish before the client has read the
      // answer the server sent).
      expect([...order].sort()).toEqual(['delivery ok', 'readyz ok', 'shutdown ok']);
    } finally {
      stopTimer();
      await ingress.close().catch(() => {});
      await client.connection.close();
    }
  });
});
