/**
 * Fault drill (d), small: every webhook arrives three times (the simulator's delivery plus two signed
 * copies through the ingress, whose edge dedupe is cut to one id so the workflows' own dedupe is
 * tested); each effect happens once.
 */
import { expect, it } from 'vitest';
import { BULK_EVENT_TYPES, duplicateDrill } from '../../bench/support/drills.js';

it('every webhook three times: one entity, one fee, no phase entered twice', async () => {
  const n = 4;
  const figures = await duplicateDrill({ n, timeoutMs: 60_000 });
  expect(figures.notCompleted).toEqual([]);
  // Every order's waking events were delivered (and copied): at least one of each type per order.
  expect(figures.delivered).toBeGreaterThanOrEqual(BULK_EVENT_TYPES.length * n);
  expect(figures.resent).toBeGreaterThan(0);
  // Each copy was accepted (2xx), and copies got past the edge cache to the workflows, so the
  // workflows' own dedupe is what kept the effects single.
  expect(Object.keys(figures.resendStatuses).filter((s) => !s.startsWith('2'))).toEqual([]);
  expect(figures.copiesPastEdge).toBeGreaterThan(0);
  // ... and the campaign workflows recognised copies by their delivery id (the brand workflow keeps no count).
  expect(figures.campaignDuplicatesIgnored).toBeGreaterThan(0);
  expect(figures.registryAnomalies).toEqual([]);
  expect(figures.repeatedTransitions).toEqual([]);
  expect(figures.brandCreates).toBe(n);
  expect(figures.campaignCreates).toBe(n);
  expect(figures.shares).toBe(n);
  expect(figures.fees).toBe(n);
}, 150_000);
