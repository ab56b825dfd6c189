/**
 * The listener (issue 35, item 4): peers outside the allow-list are closed on accept, before a byte is
 * read (trusted proxies aside); IPv6 peers share a per-source cap per /64; a per-source token bucket
 * answers 429 to a source that sends faster than it (verified deliveries give their token back); and
 * an ingress beyond loopback without an allow-list does not start unless told to. The drill: 200
 * slow-header connections from addresses outside the allow-list leave the registry's deliveries on time.
 */
import { EventEmitter } from 'node:events';
import net from 'node:net';
import { Client } from '@temporalio/client';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { buildIngressApp } from '../../src/ingress/app.js';
import { type IngressConfig, parseIngressConfig } from '../../src/ingress/config.js';
import { guardConnections } from '../../src/ingress/connection-guard.js';
import { IngressMetrics } from '../../src/ingress/metrics.js';
import { type RunningIngress, startIngress } from '../../src/ingress/server.js';
import { signEvent } from '../../src/ingress/signature.js';
import { SourceAddressPolicy, sourceKey } from '../../src/ingress/source-addresses.js';
import { createIngressClient } from '../../src/ingress/temporal.js';
import { ingressConfigProblem } from './ingress-test-config.js';

const WEBHOOK_URL = 'https://csp.example/webhooks/registry';
const SECRET = 'listener-secret-0123456789abcdefghijklm';
const base = {
  TCR_WEBHOOK_URL: WEBHOOK_URL,
  TCR_WEBHOOK_SECRETS: SECRET,
  TCR_INGRESS_ACCOUNTS: 'acme',
  TCR_INGRESS_PORT: '0',
  TCR_INGRESS_INTERNAL_LISTEN: 'off',
};

const running: RunningIngress[] = [];
const sockets: net.Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await Promise.all(running.splice(0).map((ingress) => ingress.close()));
});

async function start(env: Record<string, string>): Promise<RunningIngress> {
  const ingress = await startIngress({
    config: parseIngressConfig({ ...base, ...env }),
    client: createIngressClient({ temporalAddress: '127.0.0.1:1', temporalNamespace: 'default' }),
    logger: pino({ level: 'silent' }),
  });
  running.push(ingress);
  return ingress;
}

/** A slow-header client from `localAddress`: connects, sends a request line and one header, stays. */
function slowHeaders(ingress: RunningIngress, localAddress: string): Promise<void> {
  const { hostname, port } = new URL(ingress.url);
  return new Promise((resolve) => {
    const socket = net.connect({ host: hostname, port: Number(port), localAddress }, () => {
      socket.write('POST /webhooks/registry HTTP/1.1\r\nHost: x\r\n');
      resolve();
    });
    socket.on('error', () => resolve());
    sockets.push(socket);
  });
}

/** A signed delivery with nothing to route by (Temporal is never called): its status and time. */
async function deliver(ingress: RunningIngress, n: number): Promise<{ status: number; ms: number }> {
  const event = { eventType: 'LISTENER_PROBE', n };
  const started = performance.now();
  const response = await fetch(ingress.endpoint, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-registry-signature-256': signEvent(SECRET, WEBHOOK_URL, event),
      connection: 'close',
    },
    body: JSON.stringify(event),
    signal: AbortSignal.timeout(5_000),
  });
  await response.text();
  return { status: response.status, ms: performance.now() - started };
}

describe('the listener', () => {
  it('drill: 200 slow-header connections from outside the allow-list leave deliveries on time', async () => {
    // 150 slots in all: before the accept-time check, the flood held them and the registry's
    // connections were closed on accept.
    const ingress = await start({
      TCR_INGRESS_ALLOW: '127.0.0.1',
      TCR_INGRESS_MAX_CONNECTIONS: '150',
      TCR_INGRESS_REQUEST_TIMEOUT_MS: '10000',
    });
    const flood = Array.from({ length: 200 }, (_, i) => slowHeaders(ingress, `127.0.0.${2 + (i % 4)}`));
    await Promise.all(flood);
    for (let n = 0; n < 10; n++) {
      const { status, ms } = await deliver(ingress, n).catch(() => ({ status: 0, ms: 0 }));
      expect(status, `delivery ${n}`).toBe(200);
      expect(ms, `delivery ${n} answered within 2 s`).toBeLessThan(2_000);
    }
    const snapshot = ingress.metrics.snapshot();
    expect(snapshot.connectionsDropped.forbidden_source).toBe(200);
    expect(snapshot.rejected.forbidden_source).toBeUndefined(); // none reached a request
  });

  it('leaves the allow-list to the request when the peer is a trusted proxy', async () => {
    const ingress = await start({
      TCR_INGRESS_ALLOW: '192.0.2.0/24',
      TCR_INGRESS_TRUSTED_PROXIES: '127.0.0.1',
    });
    const event = { eventType: 'LISTENER_PROBE' };
    const post = (forwardedFor: string) =>
      fetch(ingress.endpoint, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-registry-signature-256': signEvent(SECRET, WEBHOOK_URL, event),
          'x-forwarded-for': forwardedFor,
        },
        body: JSON.stringify(event),
      }).then(async (r) => {
        await r.text();
        return r.status;
      });
    expect(await post('192.0.2.7')).toBe(200);
    expect(await post('198.51.100.1')).toBe(403);
    expect(ingress.metrics.snapshot().connectionsDropped.forbidden_source).toBeUndefined();
  });
});

describe('IPv6 sources', () => {
  it('are one source per /64', () => {
    expect(sourceKey('2001:db8:1:2:aaaa::1')).toBe(sourceKey('2001:db8:1:2:bbbb:cccc:dddd:eeee'));
    expect(sourceKey('2001:db8:1:2::')).toBe(sourceKey('2001:0db8:0001:0002:ffff:ffff:ffff:ffff'));
    expect(sourceKey('2001:db8:1:3::1')).not.toBe(sourceKey('2001:db8:1:2::1'));
    expect(sourceKey('::ffff:192.0.2.1')).toBe('192.0.2.1');
    expect(sourceKey('192.0.2.1')).not.toBe(sourceKey('192.0.2.2'));
    expect(sourceKey('::1')).toBe(sourceKey('::2'));
  });

  it('share the per-source connection cap across a /64', () => {
    const server = new net.Server();
    const metrics = new IngressMetrics();
    guardConnections(server, {
      maxConnections: 100,
      maxPerAddress: 3,
      policy: new SourceAddressPolicy([], []),
      metrics,
    });
    const destroyed: string[] = [];
    const connect = (remoteAddress: string) => {
      const socket = Object.assign(new EventEmitter(), {
        remoteAddress,
        destroy: () => destroyed.push(remoteAddress),
      });
      server.emit('connection', socket);
    };
    for (let i = 1; i <= 4; i++) connect(`2001:db8:0:1::${i}`);
    connect('2001:db8:0:2::1');
    expect(destroyed).toEqual(['2001:db8:0:1::4']);
    expect(metrics.snapshot().connectionsDropped.max_per_address).toBe(1);
  });
});

describe('the per-source rate limit', () => {
  function injected(overrides: Record<string, string>) {
    const metrics = new IngressMetrics();
    const config: IngressConfig = parseIngressConfig({ ...base, ...overrides });
    const { app } = buildIngressApp({
      config,
      client: new Client(),
      logger: pino({ level: 'silent' }),
      metrics,
      handOff: async () => ({ action: 'ignored' }),
    });
    const post = async (signed: boolean, n: number) => {
      const event = { eventType: 'RATE_PROBE', n };
      const response = await app.inject({
        method: 'POST',
        url: config.path,
        headers: {
          'content-type': 'application/json',
          'x-registry-signature-256': signed ? signEvent(SECRET, WEBHOOK_URL, event) : 'A'.repeat(64),
        },
        payload: JSON.stringify(event),
      });
      return response.statusCode;
    };
    return { metrics, post };
  }

  it('answers 429 past the burst to a source whose requests do not verify, and counts it', async () => {
    const { metrics, post } = injected({ TCR_INGRESS_RATE_LIMIT: '1', TCR_INGRESS_RATE_BURST: '5' });
    const statuses: number[] = [];
    for (let n = 0; n < 8; n++) statuses.push(await post(false, n));
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(statuses.slice(5)).toEqual([429, 429, 429]);
    expect(metrics.snapshot().rateLimited).toBe(3);
    expect(metrics.render()).toContain('tcr_ingress_rate_limited_total 3');
  });

  it('never limits verified deliveries: each gives its token back', async () => {
    const { metrics, post } = injected({ TCR_INGRESS_RATE_LIMIT: '1', TCR_INGRESS_RATE_BURST: '2' });
    for (let n = 0; n < 20; n++) expect(await post(true, n)).toBe(200);
    expect(metrics.snapshot().rateLimited).toBe(0);
  });

  it('refuses a zero or malformed rate naming the variable', () => {
    expect(ingressConfigProblem({ ...base, TCR_INGRESS_RATE_LIMIT: '0' })).toMatch(/TCR_INGRESS_RATE_LIMIT/);
    expect(ingressConfigProblem({ ...base, TCR_INGRESS_RATE_BURST: 'x' })).toMatch(/TCR_INGRESS_RATE_BURST/);
  });
});

describe('starting beyond loopback', () => {
  it('is refused without an allow-list, naming TCR_INGRESS_ALLOW and TCR_INGRESS_ALLOW_ANY', () => {
    for (const host of ['0.0.0.0', '::', '10.0.0.7']) {
      const problem = ingressConfigProblem({ ...base, TCR_INGRESS_HOST: host });
      expect(problem).toMatch(/TCR_INGRESS_ALLOW\b/);
      expect(problem).toMatch(/TCR_INGRESS_ALLOW_ANY=1/);
    }
  });

  it('is allowed with an allow-list, or with TCR_INGRESS_ALLOW_ANY=1; loopback needs neither', () => {
    expect(
      parseIngressConfig({ ...base, TCR_INGRESS_HOST: '0.0.0.0', TCR_INGRESS_ALLOW: '192.0.2.0/24' }).host,
    ).toBe('0.0.0.0');
    expect(
      parseIngressConfig({ ...base, TCR_INGRESS_HOST: '0.0.0.0', TCR_INGRESS_ALLOW_ANY: '1' }).host,
    ).toBe('0.0.0.0');
    expect(parseIngressConfig({ ...base, TCR_INGRESS_HOST: '127.0.0.1' }).host).toBe('127.0.0.1');
    expect(ingressConfigProblem({ ...base, TCR_INGRESS_ALLOW_ANY: 'yes' })).toMatch(/TCR_INGRESS_ALLOW_ANY/);
  });
});
