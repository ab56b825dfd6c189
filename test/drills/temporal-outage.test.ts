/**
 * Fault drill (b), small: the Temporal server is down for 10 s while the simulator delivers
 * BRAND_CONTACT_VERIFIED webhooks. The ingress answers 5xx, the simulator retries on its schedule
 * (60x), and after the restart every brand is woken by its webhook (its poll is an hour away).
 * Larger (30 s): bench/drills.
 */
import { expect, it } from 'vitest';
import { temporalOutageDrill } from '../../bench/support/drills.js';

it('Temporal down while webhooks arrive: 5xx, retried, every workflow gets its event', async () => {
  const n = 3;
  const figures = await temporalOutageDrill({ n, outageSeconds: 10, timeScale: 60, timeoutMs: 60_000 });
  expect(figures.ready).toBe(n);
  expect(figures.readyCauses).toEqual(Array(n).fill('webhook'));
  expect(figures.retriedAttempts).toBeGreaterThan(0);
  expect(Object.keys(figures.retryStatuses).every((s) => Number(s) >= 500)).toBe(true);
  expect(figures.discarded).toBe(0);
  expect(figures.delivered).toBe(n);
}, 150_000);
