/**
 * The per-account limiter under a burst, and create-once by referenceId, against the MockAgent
 * registry double (test/registry/support/mock-registry.ts). Windows are scaled down (the write window
 * is 400 ms instead of 10 s) so the burst takes seconds; the server double enforces the same limit
 * and answers 429 when it is exceeded.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { RegistryClient, RegistryClientOptions } from '../../src/registry/client.js';
import { RegistryTimeoutError } from '../../src/registry/errors.js';
import { clearRateLimiters } from '../../src/registry/rate-limiter.js';
import { brandRegistrationFor } from '../support/brand-fixtures.js';
import { MOCK_ORIGIN, MockRegistry, mockRegistryClient } from './support/mock-registry.js';

const registries: MockRegistry[] = [];
afterEach(async () => {
  await Promise.all(registries.splice(0).map((r) => r.agent.close()));
  clearRateLimiters();
});

function clientFor(registry: MockRegistry, extra: Partial<RegistryClientOptions> = {}): RegistryClient {
  registries.push(registry);
  return mockRegistryClient(registry, extra);
}

const brandOrder = brandRegistrationFor;

const campaignOrder = (referenceId: string) => ({
  referenceId,
  brandId: 'B000001',
  usecase: 'MARKETING',
  description: 'Weekly offers',
});

describe('rate limiter', () => {
  it('holds 20 writes per window under a burst of 100 concurrent writes; no 429 reaches the caller', async () => {
    const windowMs = 400;
    const registry = new MockRegistry({ writeLimit: { limit: 20, windowMs } }).listen();
    const scaled = { getsPerSecond: 20, writesPer10Seconds: 20, writeWindowMs: windowMs, getWindowMs: 100 };
    // Two clients of the same account share one limiter (module-level registry).
    const a = clientFor(registry, { rateLimits: scaled });
    const b = clientFor(registry, { rateLimits: scaled });
    const started = Date.now();
    const results = await Promise.allSettled(
      Array.from({ length: 100 }, (_, i) =>
        (i % 2 ? a : b).putWebhookSubscription({
          eventCategory: `CAT${i}`,
          webhookEndpoint: 'https://hooks.example/registry',
        }),
      ),
    );
    const elapsed = Date.now() - started;
    // The double has no route for webhook subscriptions (404), but it counts the writes it received first.
    expect(
      results.map((r) => (r.status === 'rejected' ? (r.reason as { status?: number }).status : r.status)),
    ).toEqual(Array(results.length).fill(404));
    expect(registry.rateLimited).toBe(0);
    const times = registry.requests.filter((r) => r.method === 'PUT').map((r) => r.at);
    expect(times).toHaveLength(100);
    for (let i = 20; i < times.length; i++)
      expect(times[i]! - times[i - 20]!).toBeGreaterThanOrEqual(windowMs);
    // 100 writes at 20 per window need at least 4 further windows.
    expect(elapsed).toBeGreaterThanOrEqual(4 * windowMs);
  }, 20_000);

  it('without the client limiter the same burst is answered 429 by the server, and the client retries it through', async () => {
    // 40 concurrent writes must put more than 20 inside one server window: 1.5 s (5x the old 300 ms).
    const windowMs = 1_500;
    const registry = new MockRegistry({ writeLimit: { limit: 20, windowMs } }).listen();
    const client = clientFor(registry, {
      rateLimits: { getsPerSecond: 1000, writesPer10Seconds: 1000 },
      maxRateLimitRetries: 20,
    });
    const results = await Promise.allSettled(
      Array.from({ length: 40 }, (_, i) => client.revetBrand(`missing-${i}`)),
    );
    expect(registry.rateLimited).toBeGreaterThan(0);
    // Every call ended with the server's real answer (404), none with a 429.
    expect(
      results.map((r) => (r.status === 'rejected' ? (r.reason as { status?: number }).status : r.status)),
    ).toEqual(Array(results.length).fill(404));
  }, 20_000);
});

describe('create once by referenceId', () => {
  it('registerBrand returns the existing brand instead of registering a second one', async () => {
    const registry = new MockRegistry().listen();
    const client = clientFor(registry);
    const first = await client.registerBrand(brandOrder('ref-A'));
    const second = await client.registerBrand(brandOrder('ref-A'));
    expect(first.alreadyExisted).toBe(false);
    expect(second).toMatchObject({ brandId: first.brandId, alreadyExisted: true });
    expect(registry.brands).toHaveLength(1);
    expect(first).toMatchObject({ futureField: { kept: true } });
  });

  it('a brand create retried after a timeout-after-commit leaves exactly one brand', async () => {
    const registry = new MockRegistry();
    registry.timeoutAfterCommit('/v2/brand/nonBlocking', 10_000);
    registry.listen();
    const client = clientFor(registry, { timeoutMs: 1_000 });
    const result = await client.registerBrand(brandOrder('ref-T'));
    expect(result.alreadyExisted).toBe(true);
    expect(registry.brands).toHaveLength(1);
    expect(result.brandId).toBe(registry.brands[0]?.brandId);
    const posts = registry.requests.filter((r) => r.method === 'POST');
    expect(posts).toHaveLength(0); // the only POST was swallowed by the fault; no second create was sent
  });

  it('a campaign create retried after a timeout-after-commit leaves exactly one campaign', async () => {
    const registry = new MockRegistry();
    registry.timeoutAfterCommit('/v2/campaignBuilder', 10_000);
    registry.listen();
    const client = clientFor(registry, { timeoutMs: 1_000 });
    const result = await client.createCampaign(campaignOrder('camp-T'));
    expect(result).toEqual({
      campaignId: registry.campaigns[0]?.campaignId,
      mnoMetadata: {},
      alreadyExisted: true,
    });
    expect(registry.campaigns).toHaveLength(1);
  });

  it('when the lookup after a timeout finds nothing, the create is retried (once) and succeeds', async () => {
    const registry = new MockRegistry();
    // A timeout where the server did not commit: a reply delayed beyond the timeout, not matching the body.
    registry.agent
      .get(MOCK_ORIGIN)
      .intercept({ path: '/v2/campaignBuilder', method: 'POST' })
      .reply(200, { campaignId: 'LATE', mnoMetadata: {} })
      .delay(10_000);
    registry.listen();
    const client = clientFor(registry, { timeoutMs: 1_000 });
    const result = await client.createCampaign(campaignOrder('camp-R'));
    expect(result.alreadyExisted).toBe(false);
    expect(registry.campaigns).toHaveLength(1);
  });

  it('after the create attempts are spent the timeout surfaces, marked retryable (the next call looks up first)', async () => {
    const registry = new MockRegistry();
    for (let i = 0; i < 2; i++)
      registry.agent
        .get(MOCK_ORIGIN)
        .intercept({ path: '/v2/brand/nonBlocking', method: 'POST' })
        .reply(200, {})
        .delay(10_000);
    registry.listen();
    const client = clientFor(registry, { timeoutMs: 750, createAttempts: 2 });
    const error = await client.registerBrand(brandOrder('ref-X')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RegistryTimeoutError);
    expect(error).toMatchObject({ retryable: true, mayHaveCommitted: true });
  });

  it('falls back to client-side matching when the server ignores the referenceId filter', async () => {
    const registry = new MockRegistry({ ignoreReferenceFilter: true }).listen();
    const client = clientFor(registry, { pageSize: 2 });
    for (const ref of ['r1', 'r2', 'r3', 'r4', 'r5']) await client.registerBrand(brandOrder(ref));
    expect(registry.brands).toHaveLength(5);
    const found = await client.findBrandByReference('r5');
    expect(found?.referenceId).toBe('r5');
    expect(await client.findBrandByReference('nope')).toBeUndefined();
    const again = await client.registerBrand(brandOrder('r4'));
    expect(again.alreadyExisted).toBe(true);
    expect(registry.brands).toHaveLength(5);
  });

  it('a campaign create refused as a duplicate referenceId returns the existing campaign', async () => {
    const registry = new MockRegistry();
    registry.campaigns.push({ campaignId: 'C-EXISTING', referenceId: 'camp-D', brandId: 'B000001' });
    // The first lookup misses (a list lagging behind, or another creator racing us) ...
    registry.cannedReply(
      'GET',
      '/v2/campaign?referenceId=camp-D&recordsPerPage=100&page=1&brandId=B000001',
      200,
      JSON.stringify({ records: [], page: 1, totalRecords: 0 }),
    );
    registry.listen();
    const client = clientFor(registry);
    // ... so the create is sent, refused with 400 naming referenceId, and the client looks up again.
    const result = await client.createCampaign(campaignOrder('camp-D'));
    expect(result).toMatchObject({ campaignId: 'C-EXISTING', alreadyExisted: true });
    expect(registry.campaigns).toHaveLength(1);
    expect(registry.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
  });
});
