/**
 * The client's limiter against the simulator's own enforcement of the spec's limits, in real time:
 * 30 concurrent writes (more than one 10-second window's worth) with the client's 429 retries switched
 * off, so any 429 from the simulator would reach the caller. Takes about 10 s. The 100-write burst runs
 * against the MockAgent double with a scaled window (limiter-idempotency.test.ts).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { RegistryClient } from '../../src/registry/client.js';
import { clearRateLimiters } from '../../src/registry/rate-limiter.js';
import { DEFAULT_ACCOUNT, type RunningSimulator, startSimulator } from '../../src/simulator/index.js';

let sim: RunningSimulator;
beforeAll(async () => {
  sim = await startSimulator({ port: 0, rateLimits: { getsPerSecond: 20, writesPer10Seconds: 20 } });
});
afterAll(async () => {
  await sim?.close();
  clearRateLimiters();
});

it('30 concurrent writes stay under 20 per 10 s: none is answered 429', async () => {
  const client = new RegistryClient({
    environment: 'local',
    baseUrl: sim.url,
    apiKey: DEFAULT_ACCOUNT.apiKey,
    apiSecret: DEFAULT_ACCOUNT.apiSecret,
    maxRateLimitRetries: 0,
  });
  const started = Date.now();
  let writesDone = 0;
  const writes = Promise.allSettled(
    Array.from({ length: 30 }, (_, i) =>
      client
        .putWebhookSubscription({
          eventCategory: 'BRAND',
          webhookEndpoint: `http://127.0.0.1:9/hooks/${i}`,
        })
        .finally(() => writesDone++),
    ),
  );
  // GETs have their own bucket: 25 reads started while the last 10 writes wait for the next window
  // all finish before those writes do (an order check, not a time bound).
  while (writesDone < 20) await new Promise((r) => setTimeout(r, 20));
  await Promise.all(Array.from({ length: 25 }, () => client.listWebhookSubscriptions()));
  expect(writesDone).toBe(20);
  const results = await writes;
  const elapsed = Date.now() - started;
  const failures = results
    .filter((r) => r.status === 'rejected')
    .map((r) => String((r as PromiseRejectedResult).reason));
  expect(failures).toEqual([]);
  expect(elapsed).toBeGreaterThanOrEqual(10_000);
  await client.close();
}, 60_000);
