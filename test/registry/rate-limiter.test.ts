/** The sliding-window bucket on its own: FIFO, slots held while in flight, pause after a 429, abort. */
import { describe, expect, it } from 'vitest';
import { rateLimiterFor, rateLimiterKey, SlidingWindowLimiter } from '../../src/registry/rate-limiter.js';

describe('SlidingWindowLimiter', () => {
  it('holds a slot while its request is in flight and for the window after it completes', async () => {
    const limiter = new SlidingWindowLimiter(1, 100, 0);
    const t0 = Date.now();
    const release = await limiter.acquire();
    setTimeout(release, 200); // a slow request
    await limiter.acquire();
    expect(Date.now() - t0).toBeGreaterThanOrEqual(295);
  });

  it('a pause (429) delays every waiter', async () => {
    const limiter = new SlidingWindowLimiter(10, 1000, 0);
    limiter.pause(150);
    const t0 = Date.now();
    (await limiter.acquire())();
    expect(Date.now() - t0).toBeGreaterThanOrEqual(145);
  });

  it('an aborted waiter leaves the queue without blocking the next one', async () => {
    const limiter = new SlidingWindowLimiter(1, 100, 0);
    const first = await limiter.acquire();
    const controller = new AbortController();
    const aborted = limiter.acquire(controller.signal);
    controller.abort(new Error('stop'));
    await expect(aborted).rejects.toThrow('stop');
    first();
    // Not held behind the aborted waiter: the acquire resolves (a waiter that never releases would
    // hold it for good, so this races a timer 50x the 100 ms window).
    const got = await Promise.race([
      limiter.acquire().then(() => 'acquired'),
      new Promise((r) => setTimeout(() => r('still waiting'), 5_000)),
    ]);
    expect(got).toBe('acquired');
  });

  it('grants in FIFO order', async () => {
    const limiter = new SlidingWindowLimiter(2, 50, 0);
    const order: number[] = [];
    await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        limiter.acquire().then((release) => {
          order.push(i);
          release();
        }),
      ),
    );
    expect(order).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('one limiter per account key; the key holds no clear API key', () => {
    const key = rateLimiterKey('qa', 'https://x.example', 'secret-api-key');
    expect(key).not.toContain('secret-api-key');
    const config = { getsPerSecond: 20, writesPer10Seconds: 20 };
    expect(rateLimiterFor(key, config)).toBe(rateLimiterFor(key, config));
  });
});
