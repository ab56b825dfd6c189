/**
 * The registry client's spans when the registry does not simply answer 200: one span per HTTP request,
 * so a 429 and its retry are two spans (the retry numbered), a 500 is a span with the error status and
 * class, a refused connection a span with no status code and the transport's failure class. No span
 * names an id, a query, a header or a body. The registry is an undici MockAgent; the spans go to an
 * in-memory exporter through the product's `startTracing`.
 */
import { SpanStatusCode } from '@opentelemetry/api';
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { MockAgent } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTracing, type Tracing } from '../../src/observability/tracing.js';
import { RegistryClient } from '../../src/registry/client.js';

const ORIGIN = 'https://registry.spans.test';
const KEY = 'spans-key-0123456789';
const SECRET = 'spans-secret-0123456789';
const BRAND_ID = 'BSPANS1';

const exporter = new InMemorySpanExporter();
let tracing: Tracing;
let agent: MockAgent;

beforeAll(() => {
  tracing = startTracing({ serviceName: 'tcr-spans-test', spanProcessor: new SimpleSpanProcessor(exporter) });
});
afterAll(async () => {
  await agent?.close();
  await tracing?.shutdown();
});
beforeEach(async () => {
  exporter.reset();
  await agent?.close();
  agent = new MockAgent();
  agent.disableNetConnect();
});

function client(): RegistryClient {
  return new RegistryClient({
    account: 'acme-spans',
    environment: 'staging',
    baseUrl: ORIGIN,
    allowedHosts: ['registry.spans.test'],
    apiKey: KEY,
    apiSecret: SECRET,
    rateLimits: false,
    dispatcher: agent,
  });
}

const brandRecord = {
  brandId: BRAND_ID,
  entityType: 'PRIVATE_PROFIT',
  status: 'ACTIVE',
  identityStatus: 'VERIFIED',
  displayName: 'Acme',
  country: 'US',
  email: 'ops@acme.example',
};

async function spans(): Promise<ReadableSpan[]> {
  await tracing.flush();
  return exporter.getFinishedSpans().filter((s) => s.name.startsWith('registry '));
}

/** Nothing in any span's name or attributes that identifies a record, a query or a credential. */
function expectNothingIdentifying(all: ReadableSpan[]): void {
  const text = JSON.stringify(all.map((s) => ({ name: s.name, attributes: s.attributes, status: s.status })));
  for (const secret of [BRAND_ID, KEY, SECRET, 'ops@acme.example', 'referenceId', 'Basic '])
    expect(text, secret).not.toContain(secret);
}

describe('registry call spans', () => {
  it('a 429 and its retry are two spans of the same endpoint, the retry numbered; then 200', async () => {
    const pool = agent.get(ORIGIN);
    pool
      .intercept({ path: `/v2/brand/${BRAND_ID}`, method: 'GET' })
      .reply(429, { message: 'slow down' }, { headers: { 'retry-after': '0' } });
    pool.intercept({ path: `/v2/brand/${BRAND_ID}`, method: 'GET' }).reply(200, brandRecord);

    const brand = await client().getBrand(BRAND_ID);
    expect(brand.brandId).toBe(BRAND_ID);

    const all = await spans();
    expect(all.map((s) => s.name)).toEqual(['registry GET /brand/{id}', 'registry GET /brand/{id}']);
    const [limited, retried] = all;
    expect(limited!.attributes).toMatchObject({
      'tcr.account': 'acme-spans',
      'http.request.method': 'GET',
      'tcr.registry.endpoint': '/brand/{id}',
      'http.response.status_code': 429,
      'error.type': 'http 429',
    });
    expect(limited!.attributes['tcr.registry.rate_limit_retry']).toBeUndefined();
    expect(limited!.status.code).toBe(SpanStatusCode.ERROR);
    expect(retried!.attributes).toMatchObject({
      'http.response.status_code': 200,
      'tcr.registry.rate_limit_retry': 1,
    });
    expect(retried!.attributes['error.type']).toBeUndefined();
    expect(retried!.status.code).not.toBe(SpanStatusCode.ERROR);
    expectNothingIdentifying(all);
  });

  it('a 500 is one span with the error status and class; the call fails as the registry answered', async () => {
    agent
      .get(ORIGIN)
      .intercept({ path: `/v2/brand/${BRAND_ID}`, method: 'GET' })
      .reply(500, [{ code: 999, description: `internal error for ${BRAND_ID}` }]);

    const error = await client()
      .getBrand(BRAND_ID)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);

    const all = await spans();
    expect(all).toHaveLength(1);
    expect(all[0]!.attributes).toMatchObject({
      'tcr.registry.endpoint': '/brand/{id}',
      'http.response.status_code': 500,
      'error.type': 'http 500',
    });
    // The class is in error.type; a status message never leaves the process (it can carry error text).
    expect(all[0]!.status).toEqual({ code: SpanStatusCode.ERROR });
    expectNothingIdentifying(all);
  });

  it('a connection that fails is a span with no status code and the failure class, and a query is not in it', async () => {
    agent
      .get(ORIGIN)
      .intercept({ path: '/v2/brand', method: 'GET', query: { referenceId: 'ref-spans-1' } })
      .replyWithError(new Error('connect ECONNREFUSED'));

    const error = await client()
      .findBrandByReference('ref-spans-1')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);

    const all = await spans();
    expect(all).toHaveLength(1);
    expect(all[0]!.name).toBe('registry GET /brand');
    expect(all[0]!.attributes['http.response.status_code']).toBeUndefined();
    expect(all[0]!.attributes['error.type']).toEqual(expect.stringMatching(/Error$/));
    expect(all[0]!.status.code).toBe(SpanStatusCode.ERROR);
    expect(JSON.stringify(all[0]!.attributes)).not.toContain('ref-spans-1');
    expectNothingIdentifying(all);
  });
});
