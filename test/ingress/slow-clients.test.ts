import net from 'node:net';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { type IngressConfig, parseIngressConfig } from '../../src/ingress/config.js';
import { type RunningIngress, startIngress } from '../../src/ingress/server.js';
import { signEvent } from '../../src/ingress/signature.js';
import { createIngressClient } from '../../src/ingress/temporal.js';
import { postSignedEvent } from './ingress-test-config.js';

// Slow and greedy clients: requests that trickle in are cut at the request timeout, and the
// connection caps (per source address and in all) close extra connections on accept, while other
// clients are still served. Events here have nothing to route by: Temporal is never called.
const WEBHOOK_URL = 'https://csp.example/webhooks/registry';
const SECRET = 'slow-clients-secret-0123456789abcdefgh';

const running: RunningIngress[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((ingress) => ingress.close()));
});

async function start(env: Record<string, string>): Promise<RunningIngress> {
  const config: IngressConfig = parseIngressConfig({
    TCR_WEBHOOK_URL: WEBHOOK_URL,
    TCR_WEBHOOK_SECRETS: SECRET,
    TCR_INGRESS_ACCOUNTS: 'acme',
    TCR_INGRESS_PORT: '0',
    TCR_INGRESS_INTERNAL_LISTEN: 'off',
    ...env,
  });
  const ingress = await startIngress({
    config,
    client: createIngressClient({ temporalAddress: '127.0.0.1:1', temporalNamespace: 'default' }),
    logger: pino({ level: 'silent' }),
  });
  running.push(ingress);
  return ingress;
}

/** A raw connection from `localAddress`; resolves once connected. */
function connect(ingress: RunningIngress, localAddress = '127.0.0.1'): Promise<net.Socket> {
  const { hostname, port } = new URL(ingress.url);
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: hostname, port: Number(port), localAddress }, () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Everything the server sends until it closes the connection. */
function untilClosed(socket: net.Socket): Promise<string> {
  let received = '';
  socket.on('data', (chunk: Buffer) => {
    received += chunk.toString();
  });
  socket.on('error', () => {});
  return new Promise((resolve) => socket.once('close', () => resolve(received)));
}

async function signedPost(ingress: RunningIngress, n: number): Promise<number> {
  const event = { eventType: 'SLOW_CLIENT_PROBE', n };
  const response = await postSignedEvent(ingress.endpoint, SECRET, WEBHOOK_URL, event);
  await response.text();
  return response.status;
}

describe('slow clients', () => {
  it('cuts a request whose body trickles in past the request timeout, with 408', async () => {
    const ingress = await start({ TCR_INGRESS_REQUEST_TIMEOUT_MS: '300' });
    const socket = await connect(ingress);
    const closed = untilClosed(socket);
    socket.write(
      'POST /webhooks/registry HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
        `X-Registry-Signature-256: ${'A'.repeat(43)}\r\nContent-Length: 1000\r\n\r\n{`,
    );
    const trickle = setInterval(() => socket.writable && socket.write(' '), 50);
    try {
      expect(await closed).toMatch(/^HTTP\/1\.1 408/);
    } finally {
      clearInterval(trickle);
    }
    expect(ingress.metrics.snapshot().requestTimeouts).toBeGreaterThanOrEqual(1);
  });

  it('cuts a connection that holds its headers open', async () => {
    const ingress = await start({ TCR_INGRESS_REQUEST_TIMEOUT_MS: '300' });
    const socket = await connect(ingress);
    const closed = untilClosed(socket);
    socket.write('POST /webhooks/registry HTTP/1.1\r\nHost: x\r\n');
    const trickle = setInterval(() => socket.writable && socket.write('X-A: b\r\n'), 50);
    try {
      expect(await closed).toMatch(/^HTTP\/1\.1 408|^$/);
    } finally {
      clearInterval(trickle);
    }
  });

  it('closes connections above the per-address cap on accept, and still serves other addresses', async () => {
    const ingress = await start({ TCR_INGRESS_MAX_CONNECTIONS_PER_ADDRESS: '3' });
    const held = await Promise.all([1, 2, 3].map(() => connect(ingress, '127.0.0.2')));
    const extra = await connect(ingress, '127.0.0.2');
    expect(await untilClosed(extra)).toBe('');
    expect(ingress.metrics.snapshot().connectionsDropped.max_per_address).toBe(1);
    expect(await signedPost(ingress, 1)).toBe(200); // from 127.0.0.1
    for (const socket of held) socket.destroy();
  });

  it('drops connections above the total cap', async () => {
    const ingress = await start({ TCR_INGRESS_MAX_CONNECTIONS: '4' });
    const held = await Promise.all([2, 3, 4, 5].map((n) => connect(ingress, `127.0.0.${n}`)));
    const extra = await connect(ingress, '127.0.0.6');
    expect(await untilClosed(extra)).toBe('');
    expect(ingress.metrics.snapshot().connectionsDropped.max_connections).toBe(1);
    expect(ingress.metrics.snapshot().connectionsOpen).toBe(4);
    for (const socket of held) socket.destroy();
    // Slots free again once the holders leave.
    let status = 0;
    for (let i = 0; i < 50 && status !== 200; i++) status = await signedPost(ingress, i).catch(() => 0);
    expect(status).toBe(200);
  });

  it('closes an idle kept-alive connection after the keep-alive timeout', async () => {
    const ingress = await start({ TCR_INGRESS_KEEP_ALIVE_TIMEOUT_MS: '200' });
    const socket = await connect(ingress);
    const closed = untilClosed(socket);
    const event = { eventType: 'KEEP_ALIVE_PROBE' };
    const body = JSON.stringify(event);
    socket.write(
      'POST /webhooks/registry HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\nContent-Type: application/json\r\n' +
        `X-Registry-Signature-256: ${signEvent(SECRET, WEBHOOK_URL, event)}\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    );
    expect(await closed).toMatch(/^HTTP\/1\.1 200/);
  });
});
