/**
 * Registry activities heartbeat while they run and stop when they settle (src/activities/heartbeat.ts),
 * and a cancelled attempt stops waiting in the registry client's rate limiter. Activities run in
 * @temporalio/testing's MockActivityEnvironment, which emits 'heartbeat' for every heartbeat.
 */
import { CancelledFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { heartbeating, withHeartbeat } from '../../src/activities/heartbeat.js';
import { createRegistryWriteActivities } from '../../src/activities/registry-activities.js';
import { clearRateLimiters } from '../../src/registry/rate-limiter.js';
import { brandRegistration } from '../fixtures/workflow-harness.js';
import { MockRegistry, mockRegistryClient } from '../registry/support/mock-registry.js';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** A mock activity context; its logger stays quiet about the failures these tests provoke. */
function mockEnv(info: { heartbeatTimeoutMs?: number } = {}): MockActivityEnvironment {
  return new MockActivityEnvironment(info, { logger: new DefaultLogger('ERROR') });
}

function countHeartbeats(env: MockActivityEnvironment): { count: number } {
  const seen = { count: 0 };
  env.on('heartbeat', () => {
    seen.count += 1;
  });
  return seen;
}

// Fake timers: the heartbeat interval and the activities' sleeps run on a clock the test advances, so
// the counts are exact and "nothing more" is checked by advancing the clock, not by waiting.
describe('withHeartbeat', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('heartbeats while a slow activity runs and stops once it has completed', async () => {
    const env = mockEnv();
    const seen = countHeartbeats(env);
    const activities = withHeartbeat(
      {
        slow: async (ms: number) => {
          await sleep(ms);
          return `slept ${ms}`;
        },
      },
      { intervalMs: 40 },
    );
    const done = env.run(activities.slow, 400);
    await vi.advanceTimersByTimeAsync(399);
    expect(seen.count).toBe(9); // at 40, 80, ..., 360 ms
    await vi.advanceTimersByTimeAsync(1);
    await expect(done).resolves.toBe('slept 400');
    const atCompletion = seen.count;
    expect(atCompletion).toBeGreaterThanOrEqual(9);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(seen.count).toBe(atCompletion);
  });

  it('stops heartbeating when the activity fails, and passes the failure on', async () => {
    const env = mockEnv();
    const seen = countHeartbeats(env);
    const failing = heartbeating(
      async () => {
        await sleep(200);
        throw new Error('registry said no');
      },
      { intervalMs: 40 },
    );
    const done = env.run(failing);
    const failed = expect(done).rejects.toThrow('registry said no');
    await vi.advanceTimersByTimeAsync(200);
    await failed;
    const atFailure = seen.count;
    expect(atFailure).toBeGreaterThanOrEqual(4); // at 40, 80, 120, 160 (and 200) ms
    await vi.advanceTimersByTimeAsync(10_000);
    expect(seen.count).toBe(atFailure);
  });

  it('heartbeats well within a short heartbeat timeout even when the configured interval is longer', async () => {
    const env = mockEnv({ heartbeatTimeoutMs: 200 });
    const seen = countHeartbeats(env);
    const slow = heartbeating(() => sleep(500), { intervalMs: 60_000 });
    const done = env.run(slow);
    await vi.advanceTimersByTimeAsync(499);
    expect(seen.count).toBe(9); // every 50 ms (a quarter of the timeout), not every minute
    await vi.advanceTimersByTimeAsync(1);
    await done;
  });

  it('is a no-op outside an activity: unit tests call activities directly', async () => {
    const { twice } = withHeartbeat({ twice: async (n: number) => n * 2 }, { intervalMs: 1 });
    await expect(twice(21)).resolves.toBe(42);
  });
});

describe('cancellation reaches the registry client', () => {
  const registries: MockRegistry[] = [];
  afterEach(async () => {
    await Promise.all(registries.splice(0).map((r) => r.agent.close()));
    clearRateLimiters();
  });

  it('a cancelled write attempt stops waiting in the rate limiter and sends nothing', async () => {
    const registry = new MockRegistry().listen();
    registries.push(registry);
    const client = mockRegistryClient(registry, {
      // One write per 10 s: the second registration waits ~10 s for its POST.
      rateLimits: { getsPerSecond: 20, writesPer10Seconds: 1 },
      timeoutMs: 2_000,
    });
    const writes = withHeartbeat(
      createRegistryWriteActivities(() => client),
      { intervalMs: 50 },
    );
    const registration = (referenceId: string) => ({ ...brandRegistration(), referenceId });
    await mockEnv().run(writes.registerBrand, {
      account: 'acme',
      registration: registration('first'),
    });

    const env = mockEnv();
    const seen = countHeartbeats(env);
    const second = env.run(writes.registerBrand, { account: 'acme', registration: registration('second') });
    // Heartbeating while it waits in the limiter (the window frees up only ~10 s after the first POST).
    while (seen.count < 2) await sleep(20);
    env.cancel();
    await expect(second).rejects.toBeInstanceOf(CancelledFailure);
    // Had the cancel not reached the limiter, the run would have ended only after sending its POST.
    const posts = registry.requests.filter((r) => r.method === 'POST');
    expect(posts.map((r) => (r.body as { referenceId: string }).referenceId)).toEqual(['first']);
  });
});
