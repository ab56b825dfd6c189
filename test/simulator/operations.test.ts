import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { SimulatorControl } from '../../src/simulator/control-client.js';
import { DEFAULT_ACCOUNT, startSimulator } from '../../src/simulator/index.js';
import { RateLimiter } from '../../src/simulator/rate-limit.js';
import { tempDir } from '../support/temp-dir.js';
import {
  type Api,
  campaignBody,
  privateBrand,
  publicBrand,
  startApi,
  startReceiver,
  until,
} from './helpers.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});
async function setup(options: Parameters<typeof startApi>[0] = {}): Promise<Api> {
  const api = await startApi(options);
  cleanups.push(() => api.close());
  return api;
}

describe('rate limits', () => {
  // Exact counts per window are checked on the limiter with a clock the test moves (below). Over HTTP
  // the windows are real time, so the counts are bounded by the time the calls took: on a loaded
  // machine a burst may straddle a window.
  test('GETs per second and writes per 10 s per account, answered with 429 and Retry-After', async () => {
    const B = { cspId: 'B', apiKey: 'kb', apiSecret: 'sb' };
    const api = await setup({
      rateLimits: { getsPerSecond: 5, writesPer10Seconds: 3 },
      accounts: [DEFAULT_ACCOUNT, B],
    });
    let started = performance.now();
    const gets = await Promise.all(Array.from({ length: 30 }, () => api.call('GET', '/enum/mno')));
    const getWindows = Math.floor((performance.now() - started) / 1000) + 1;
    const ok = gets.filter((r) => r.status === 200);
    const limited = gets.filter((r) => r.status === 429);
    expect(ok.length + limited.length).toBe(30);
    expect(ok.length).toBeGreaterThanOrEqual(5); // the first window's five
    expect(ok.length).toBeLessThanOrEqual(5 * getWindows);
    expect(Number(limited[0]!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(limited[0]!.body[0].code).toBe(522);
    expect((await api.call('GET', '/enum/mno', undefined, B)).status).toBe(200); // per account
    started = performance.now();
    const writes = [];
    for (let i = 0; i < 4; i++) writes.push(await api.call('POST', '/brand/nonBlocking', privateBrand()));
    const writeSeconds = Math.ceil((performance.now() - started) / 1000);
    expect(writes.map((w) => w.status)).toEqual([200, 200, 200, 429]); // 4 writes well within 10 s
    const retryAfter = Number(writes[3]!.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(10 - writeSeconds);
    expect(retryAfter).toBeLessThanOrEqual(10);
  });

  test('a request held by a latency fault is counted when it arrives, not when it is answered', async () => {
    const api = await setup({ rateLimits: { getsPerSecond: 20, writesPer10Seconds: 2 } });
    await api.control.addFault({
      kind: 'latency',
      method: 'POST',
      pathPattern: '^/v2/brand/nonBlocking$',
      latencyMs: 1_500,
      count: 1,
    });
    const held = api.call('POST', '/brand/nonBlocking', privateBrand()); // arrives first, answered last
    await new Promise((r) => setTimeout(r, 200));
    const second = await api.call('POST', '/brand/nonBlocking', privateBrand());
    const third = await api.call('POST', '/brand/nonBlocking', privateBrand());
    expect([(await held).status, second.status, third.status]).toEqual([200, 200, 429]);
  });

  test('the limiter on a clock the test moves: 5 GETs a second, 3 writes per 10 s, Retry-After to the window end', () => {
    let now = 0;
    const limiter = new RateLimiter({ getsPerSecond: 5, writesPer10Seconds: 3 }, () => now);
    expect(Array.from({ length: 6 }, () => limiter.check('A', 'GET'))).toEqual([0, 0, 0, 0, 0, 1]);
    expect(limiter.check('B', 'GET')).toBe(0); // another account
    now = 999;
    expect(limiter.check('A', 'GET')).toBe(1);
    now = 1000; // the first five left the window
    expect(limiter.check('A', 'GET')).toBe(0);
    expect(Array.from({ length: 4 }, () => limiter.check('A', 'POST'))).toEqual([0, 0, 0, 10]);
    now = 2500;
    expect(limiter.check('A', 'PUT')).toBe(9); // 8.5 s left: rounded up
    now = 11_000;
    expect(limiter.check('A', 'DELETE')).toBe(0);
  });

  test('the spec defaults apply when not configured', async () => {
    const sim = await startSimulator();
    cleanups.push(() => sim.close());
    const auth = {
      authorization: `Basic ${Buffer.from('local-api-key:local-api-secret').toString('base64')}`,
    };
    const started = performance.now();
    const statuses = await Promise.all(
      Array.from({ length: 100 }, () =>
        fetch(`${sim.apiBaseUrl}/enum/mno`, { headers: auth }).then((r) => r.status),
      ),
    );
    const windows = Math.floor((performance.now() - started) / 1000) + 1;
    const ok = statuses.filter((s) => s === 200).length;
    expect(ok + statuses.filter((s) => s === 429).length).toBe(100);
    // 20 GETs a second (the spec's): the first 20 pass, and no more than 20 per second the burst took.
    expect(ok).toBeGreaterThanOrEqual(20);
    expect(ok).toBeLessThanOrEqual(20 * windows);
    expect(ok).toBeLessThan(100); // 100 in one burst: never all within the limit
  });
});

describe('faults', () => {
  test('latency delays the matching request only', async () => {
    const api = await setup();
    await api.control.addFault({
      kind: 'latency',
      method: 'GET',
      pathPattern: '^/v2/enum/mno$',
      latencyMs: 3_000,
    });
    // Order, not a time bound: the delayed call starts first and the other one still answers first.
    const finished: string[] = [];
    const t = performance.now();
    const delayed = api.call('GET', '/enum/mno').then(() => {
      finished.push('mno');
      return performance.now() - t;
    });
    await api.call('GET', '/enum/dca');
    finished.push('dca');
    expect(await delayed).toBeGreaterThanOrEqual(2_995);
    expect(finished).toEqual(['dca', 'mno']);
  });

  test('5xx before commit: nothing is created', async () => {
    const api = await setup();
    await api.control.addFault({
      kind: 'error-before-commit',
      method: 'POST',
      pathPattern: '^/v2/brand/nonBlocking$',
      status: 503,
    });
    const res = await api.call('POST', '/brand/nonBlocking', privateBrand({ referenceId: 'x' }));
    expect(res.status).toBe(503);
    expect(res.body).toEqual([{ code: 590, description: expect.any(String), fields: [] }]);
    expect((await api.call('GET', '/brand?referenceId=x')).body.totalRecords).toBe(0);
    expect((await api.call('POST', '/brand/nonBlocking', privateBrand({ referenceId: 'x' }))).status).toBe(
      200,
    );
  });

  test('5xx after commit: the write happened and is found by referenceId; the fee was charged once', async () => {
    const api = await setup();
    const brandId = (await api.call('POST', '/brand/nonBlocking', privateBrand())).body.brandId;
    await api.control.addFault({
      kind: 'error-after-commit',
      method: 'POST',
      pathPattern: '^/v2/campaignBuilder$',
    });
    const res = await api.call('POST', '/campaignBuilder', campaignBody(brandId, { referenceId: 'camp-x' }));
    expect(res.status).toBe(500);
    expect(res.body[0].code).toBe(590);
    expect((await api.call('GET', '/campaign?referenceId=camp-x')).body.totalRecords).toBe(1);
    expect(await api.control.ledger()).toHaveLength(1);
    expect(
      (await api.call('POST', '/campaignBuilder', campaignBody(brandId, { referenceId: 'camp-x' }))).body[0]
        .code,
    ).toBe(509);
  });

  test('timeout after commit: the connection is destroyed without a response, the write happened', async () => {
    const api = await setup();
    await api.control.addFault({
      kind: 'timeout-after-commit',
      method: 'POST',
      pathPattern: '^/v2/brand/nonBlocking$',
      delayMs: 100,
    });
    const t = performance.now();
    await expect(
      api.call('POST', '/brand/nonBlocking', privateBrand({ referenceId: 'lost' })),
    ).rejects.toThrow();
    expect(performance.now() - t).toBeGreaterThanOrEqual(95);
    expect((await api.call('GET', '/brand?referenceId=lost')).body.totalRecords).toBe(1);
  });

  test('a burst of 429s, counted, then normal service; faults are listed and cleared', async () => {
    const api = await setup();
    await api.control.addFault({ kind: 'rate-limit', count: 2, retryAfterSeconds: 3 });
    const a = await api.call('GET', '/enum/mno');
    expect(a.status).toBe(429);
    expect(a.headers.get('retry-after')).toBe('3');
    expect(
      (
        await api.call('PUT', '/webhook/subscription', {
          eventCategory: 'BRAND',
          webhookEndpoint: 'http://127.0.0.1:9/',
        })
      ).status,
    ).toBe(429);
    expect((await api.call('GET', '/enum/mno')).status).toBe(200);
    await api.control.addFault({ kind: 'error-before-commit', count: 5 });
    expect((await api.control.faults())[0]).toMatchObject({ kind: 'error-before-commit', remaining: 5 });
    await api.control.clearFaults();
    expect(await api.control.faults()).toEqual([]);
    expect((await api.call('GET', '/enum/mno')).status).toBe(200);
    await expect(api.control.addFault({ kind: 'latency', pathPattern: '(', latencyMs: 1 })).rejects.toThrow(
      /400/,
    );
  });
});

describe('control API', () => {
  test('clock moves forward and to a set instant; reset forgets everything', async () => {
    const api = await setup({ now: () => new Date('2026-01-01T00:00:00.000Z') });
    expect((await api.control.advanceClock(3600)).toISOString()).toBe('2026-01-01T01:00:00.000Z');
    expect((await api.control.setClock('2027-05-05T00:00:00.000Z')).toISOString()).toBe(
      '2027-05-05T00:00:00.000Z',
    );
    await api.call('POST', '/brand/nonBlocking', privateBrand());
    await api.control.reset();
    expect((await api.control.now()).toISOString()).toBe('2026-01-01T00:00:00.000Z');
    expect((await api.call('GET', '/brand')).body.totalRecords).toBe(0);
    await expect(api.control.verifyContact('BNOPE')).rejects.toThrow(/404/);
  });
});

describe('state file', () => {
  test('state survives a restart: entities, clock, subscriptions, pending jobs and queued webhooks', async () => {
    const dir = tempDir('sim-state-');
    const stateFile = join(dir, 'state.json');
    const now = () => new Date('2026-03-01T00:00:00.000Z');
    const first = await startApi({ stateFile, now });
    await first.call('PUT', '/webhook/subscription', {
      eventCategory: 'BRAND',
      webhookEndpoint: 'http://127.0.0.1:9/dead',
    });
    const brand = (await first.call('POST', '/brand/nonBlocking', publicBrand({ referenceId: 'keep' }))).body;
    await first.control.advanceClock(60);
    await first.close();
    expect(readdirSync(dir)).toEqual(['state.json']); // temp file renamed away
    expect(JSON.parse(readFileSync(stateFile, 'utf8')).version).toBe(1);

    // Start-up time is a benchmark figure (docs/simulator.md), not asserted here.
    const second = await startApi({ stateFile, now });
    cleanups.push(() => second.close());
    expect((await second.call('GET', '/brand?referenceId=keep')).body.records[0].brandId).toBe(brand.brandId);
    expect((await second.control.now()).toISOString()).toBe('2026-03-01T00:01:00.000Z');
    const other = (await second.call('POST', '/brand/nonBlocking', privateBrand())).body.brandId;
    expect(other).not.toBe(brand.brandId);
    // The contact verification scheduled before the restart still happens.
    await second.control.advanceClock(300);
    expect(
      (await second.call('GET', `/brand/${brand.brandId}`)).body.businessContactEmailVerifiedDate,
    ).not.toBeNull();
    // Events queued for the dead endpoint are delivered once it points somewhere alive.
    const r = await startReceiver();
    cleanups.push(() => r.close());
    await second.call('PUT', '/webhook/subscription', { eventCategory: 'BRAND', webhookEndpoint: r.url });
    await second.control.advanceClock(120);
    await until(() => r.received.length >= 2 || undefined);
    expect(r.received[0]!.body).toMatchObject({ eventType: 'BRAND_ADD', brandId: brand.brandId });
  });

  test('the control client accepts the API base URL too', async () => {
    const api = await setup();
    expect((await new SimulatorControl(api.sim.apiBaseUrl).health()).ok).toBe(true);
  });
});
