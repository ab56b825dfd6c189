/**
 * Fault drill (b), small: the Temporal server is down for 10 s while the simulator delivers
 * BRAND_CONTACT_VERIFIED webhooks. The ingress cannot hand them off and answers as configured
 * (TCR_INGRESS_HANDOFF_FAILURE): by closing the connection (the default; the simulator retries a
 * network error linearly without expiry) or with 503 (retried on the 13-step schedule). Time runs 60x.
 * After the restart every brand is woken by its webhook (its poll is an hour away).
 * Larger (30 s): bench/drills.
 */
import { describe, expect, it } from 'vitest';
import { temporalOutageDrill } from '../../bench/support/drills.js';

describe.each(['close', '503'] as const)('failed hand-off answered with %s', (handoffFailure) => {
  it('Temporal down while webhooks arrive: retried, every workflow gets its event', async () => {
    const n = 3;
    const figures = await temporalOutageDrill({
      n,
      outageSeconds: 10,
      timeScale: 60,
      timeoutMs: 60_000,
      handoffFailure,
    });
    expect(figures.ready).toBe(n);
    expect(figures.readyCauses).toEqual(Array(n).fill('webhook'));
    expect(figures.ingressHandoffFailures).toBeGreaterThan(0);
    if (handoffFailure === 'close') {
      // No answer at all: only network retries, no HTTP status to retry on.
      expect(figures.networkRetries).toBeGreaterThan(0);
      expect(figures.retryStatuses).toEqual({});
    } else {
      // Answered 503: HTTP retries, and every status retried on is a 5xx.
      const statuses = Object.keys(figures.retryStatuses);
      expect(statuses.length).toBeGreaterThan(0);
      expect(statuses.filter((s) => !(Number(s) >= 500 && Number(s) < 600))).toEqual([]);
    }
    expect(figures.retriedAttempts).toBeGreaterThan(0);
    expect(figures.discarded).toBe(0);
    expect(figures.delivered).toBe(n);
  }, 150_000);
});
