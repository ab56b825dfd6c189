/**
 * Fault drill (d), small: every webhook arrives three times (the simulator's delivery plus two signed
 * copies through the ingress, whose edge dedupe is cut to one id so the workflows' own dedupe is
 * tested); each effect happens once.
 */
import { expect, it } from 'vitest';
import { duplicateDrill } from '../../bench/support/drills.js';

it('every webhook three times: one entity, one fee, no phase entered twice', async () => {
  const n = 4;
  const figures = await duplicateDrill({ n, timeoutMs: 60_000 });
  expect(figures.notCompleted).toEqual([]);
  expect(figures.resent).toBe(2 * figures.delivered);
  expect(figures.delivered).toBeGreaterThan(0);
  expect(Object.keys(figures.resendStatuses).every((s) => s.startsWith('2'))).toBe(true);
  expect(figures.registryAnomalies).toEqual([]);
  expect(figures.repeatedTransitions).toEqual([]);
  expect(figures.brandCreates).toBe(n);
  expect(figures.campaignCreates).toBe(n);
  expect(figures.shares).toBe(n);
  expect(figures.fees).toBe(n);
}, 150_000);
