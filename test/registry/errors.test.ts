/**
 * Every error class of the client, produced from registry answers (MockAgent) or transport failures,
 * with its retryable / mayHaveCommitted verdict; and that credentials never leak into errors or
 * `util.inspect`.
 */
import { inspect } from 'node:util';
import { MockAgent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { RegistryClient, type RegistryClientOptions } from '../../src/registry/client.js';
import {
  NotFoundError,
  RateLimitedError,
  RegistryAbortedError,
  RegistryError,
  RegistryInternalError,
  RegistryNetworkError,
  RegistryRequestInvalidError,
  RegistryResponseInvalidError,
  RegistryServerError,
  RegistryTimeoutError,
  RegistryValidationError,
  UnauthorizedError,
} from '../../src/registry/errors.js';
import { clearRateLimiters } from '../../src/registry/rate-limiter.js';

const ORIGIN = 'https://registry.errors.test';
const KEY = 'errors-key-AKIA123';
const SECRET = 'errors-secret-s3cr3t';

let agent: MockAgent;
afterEach(async () => {
  await agent?.close();
  clearRateLimiters();
});

function client(extra: Partial<RegistryClientOptions> = {}): RegistryClient {
  agent = new MockAgent();
  agent.disableNetConnect();
  return new RegistryClient({
    environment: 'production',
    baseUrl: ORIGIN,
    allowedHosts: ['registry.errors.test'],
    apiKey: KEY,
    apiSecret: SECRET,
    rateLimits: false,
    // Answers are in-process (MockAgent): 1 s is far more than any answer needs on a loaded machine.
    timeoutMs: 1_000,
    dispatcher: agent,
    ...extra,
  });
}

async function failure(promise: Promise<unknown>): Promise<RegistryError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(RegistryError);
    const e = err as RegistryError;
    const text = `${e.message} ${inspect(e)} ${JSON.stringify(e)}`;
    expect(text).not.toContain(KEY);
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain(Buffer.from(`${KEY}:${SECRET}`).toString('base64'));
    return e;
  }
  throw new Error('expected a failure');
}

const pool = () => agent.get(ORIGIN);

describe('errors', () => {
  it('401 → UnauthorizedError, not retryable', async () => {
    const c = client();
    pool().intercept({ path: '/v2/brand/B1', method: 'GET' }).reply(401, '');
    const e = await failure(c.getBrand('B1'));
    expect(e).toBeInstanceOf(UnauthorizedError);
    expect(e).toMatchObject({ status: 401, retryable: false, mayHaveCommitted: false });
  });

  it('429 → RateLimitedError with retryAfterMs once the retries are spent', async () => {
    const c = client({ maxRateLimitRetries: 0 });
    pool()
      .intercept({ path: '/v2/enum/mno', method: 'GET' })
      .reply(429, '[]', { headers: { 'retry-after': '3' } });
    const e = await failure(c.listMnos());
    expect(e).toBeInstanceOf(RateLimitedError);
    expect((e as RateLimitedError).retryAfterMs).toBe(3000);
    expect(e).toMatchObject({ status: 429, retryable: true, mayHaveCommitted: false });
  });

  it('429 is retried by the client after Retry-After (with the limiter paused)', async () => {
    const c = client({
      rateLimits: { getsPerSecond: 20, writesPer10Seconds: 20 },
      baseUrl: `${ORIGIN}/r429`,
    });
    pool()
      .intercept({ path: '/r429/v2/enum/mno', method: 'GET' })
      .reply(429, '[]', { headers: { 'retry-after': '0.2' } });
    pool()
      .intercept({ path: '/r429/v2/enum/mno', method: 'GET' })
      .reply(200, [{ networkId: 1 }]);
    const started = Date.now();
    await expect(c.listMnos()).resolves.toEqual([{ networkId: 1 }]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
  });

  it('400 with an array body → RegistryValidationError listing code, description and fields', async () => {
    const c = client();
    pool()
      .intercept({ path: '/v2/brand/B1', method: 'PUT' })
      .reply(400, [
        { code: 502, description: 'bad email', fields: ['email'] },
        { code: 502, description: 'bad phone', fields: ['phone'] },
      ]);
    const e = await failure(c.updateBrand('B1', { city: 'Austin' }));
    expect(e).toBeInstanceOf(RegistryValidationError);
    expect((e as RegistryValidationError).errors).toEqual([
      { code: 502, description: 'bad email', fields: ['email'] },
      { code: 502, description: 'bad phone', fields: ['phone'] },
    ]);
    expect((e as RegistryValidationError).fields).toEqual(['email', 'phone']);
    expect(e).toMatchObject({ status: 400, code: 502, retryable: false, mayHaveCommitted: false });
    expect(e.message).toContain('bad email');
  });

  it('400 with a single object body is accepted too', async () => {
    const c = client();
    pool()
      .intercept({ path: '/v2/brand/B1/revet', method: 'PUT' })
      .reply(400, { code: '510', description: 'locked', fields: 'ein' });
    const e = await failure(c.revetBrand('B1'));
    expect(e).toBeInstanceOf(RegistryValidationError);
    expect((e as RegistryValidationError).errors).toEqual([
      { code: 510, description: 'locked', fields: ['ein'] },
    ]);
  });

  it('code 590 → RegistryInternalError (retryable; a write may have committed)', async () => {
    const c = client();
    pool()
      .intercept({ path: '/v2/enum/usState', method: 'GET' })
      .reply(400, [{ code: 590, description: 'internal', fields: [] }]);
    const e = await failure(c.listUsStates());
    expect(e).toBeInstanceOf(RegistryInternalError);
    expect(e).toMatchObject({ code: 590, retryable: true, mayHaveCommitted: false });
    pool()
      .intercept({ path: '/v2/brand/B1/appeal', method: 'POST' })
      .reply(400, [{ code: 590, description: 'internal', fields: [] }]);
    const w = await failure(c.appealBrand('B1', { appealCategories: ['X'], explanation: 'y' }));
    expect(w).toBeInstanceOf(RegistryInternalError);
    expect(w.mayHaveCommitted).toBe(true);
  });

  it('404 → NotFoundError', async () => {
    const c = client();
    pool()
      .intercept({ path: '/v2/campaign/C404', method: 'GET' })
      .reply(404, [{ code: 503, description: "campaign 'C404' not found", fields: ['campaignId'] }]);
    const e = await failure(c.getCampaign('C404'));
    expect(e).toBeInstanceOf(NotFoundError);
    expect(e).toMatchObject({ status: 404, retryable: false });
  });

  it('5xx → RegistryServerError: a GET is retryable; a POST may have committed and is not blindly retryable', async () => {
    const c = client();
    pool().intercept({ path: '/v2/brand/B1', method: 'GET' }).reply(503, 'unavailable');
    const g = await failure(c.getBrand('B1'));
    expect(g).toBeInstanceOf(RegistryServerError);
    expect(g).toMatchObject({ status: 503, retryable: true, mayHaveCommitted: false });
    pool().intercept({ path: '/v2/brand/B1/externalVetting', method: 'POST' }).reply(500, '');
    const p = await failure(c.orderExternalVet('B1', { evpId: 'AEGIS', vettingClass: 'STANDARD' }));
    expect(p).toBeInstanceOf(RegistryServerError);
    expect(p).toMatchObject({ status: 500, retryable: false, mayHaveCommitted: true });
    pool().intercept({ path: '/v2/campaign/C1', method: 'PUT' }).reply(502, '');
    const u = await failure(c.updateCampaign('C1', { description: 'd' }));
    expect(u).toMatchObject({ retryable: true, mayHaveCommitted: true });
  });

  it('connection refused → RegistryNetworkError, retryable, not committed', async () => {
    const c = client();
    pool()
      .intercept({ path: '/v2/brand/B1/externalVetting', method: 'POST' })
      .replyWithError(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }));
    const e = await failure(c.orderExternalVet('B1', { evpId: 'AEGIS', vettingClass: 'STANDARD' }));
    expect(e).toBeInstanceOf(RegistryNetworkError);
    expect(e).toMatchObject({ retryable: true, mayHaveCommitted: false });
  });

  it('connection reset after sending a POST → RegistryNetworkError that may have committed', async () => {
    const c = client();
    pool()
      .intercept({ path: '/v2/brand/B1/externalVetting', method: 'POST' })
      .replyWithError(Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }));
    const e = await failure(c.orderExternalVet('B1', { evpId: 'AEGIS', vettingClass: 'STANDARD' }));
    expect(e).toBeInstanceOf(RegistryNetworkError);
    expect(e).toMatchObject({ retryable: false, mayHaveCommitted: true });
  });

  it('no answer within timeoutMs → RegistryTimeoutError', async () => {
    const c = client({ timeoutMs: 100 });
    pool().intercept({ path: '/v2/brand/B1', method: 'GET' }).reply(200, { brandId: 'B1' }).delay(10_000);
    // Order, not a time bound: the error comes before the answer would have (10 s, 100x the timeout).
    const e = await failure(c.getBrand('B1'));
    expect(e).toBeInstanceOf(RegistryTimeoutError);
    expect(e).toMatchObject({ retryable: true, mayHaveCommitted: false, timeoutMs: 100 });
  });

  it("the caller's AbortSignal → RegistryAbortedError", async () => {
    const c = client({ timeoutMs: 5000 });
    pool().intercept({ path: '/v2/brand/B1', method: 'GET' }).reply(200, { brandId: 'B1' }).delay(1000);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const e = await failure(c.getBrand('B1', { signal: controller.signal }));
    expect(e).toBeInstanceOf(RegistryAbortedError);
    expect(e.retryable).toBe(false);
  });

  it('a bad request is refused before sending, listing every bad field by path', async () => {
    const c = client();
    const e = await failure(
      c.registerBrand({
        referenceId: 'bad reference with spaces',
        entityType: 'PUBLIC_PROFIT',
        displayName: 'Acme',
        companyName: 'Acme',
        ein: '1',
        country: 'US',
        email: 'not-an-email',
      }),
    );
    expect(e).toBeInstanceOf(RegistryRequestInvalidError);
    const paths = (e as RegistryRequestInvalidError).issues.map((i) => i.path).sort();
    expect(paths).toEqual(['businessContactEmail', 'email', 'referenceId', 'stockExchange', 'stockSymbol']);
  });

  it('a 2xx body that does not match the record → RegistryResponseInvalidError naming the field', async () => {
    const c = client();
    pool().intercept({ path: '/v2/brand/B1', method: 'GET' }).reply(200, { brandId: 42 });
    const e = await failure(c.getBrand('B1'));
    expect(e).toBeInstanceOf(RegistryResponseInvalidError);
    expect((e as RegistryResponseInvalidError).issues[0]?.path).toBe('brandId');
  });

  it('util.inspect and JSON of the client show no credentials', () => {
    const c = client();
    const text = `${inspect(c, { showHidden: true, depth: 10 })} ${JSON.stringify(c)} ${String(c)}`;
    expect(text).toContain('production');
    expect(text).not.toContain(KEY);
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain(Buffer.from(`${KEY}:${SECRET}`).toString('base64'));
  });
});
