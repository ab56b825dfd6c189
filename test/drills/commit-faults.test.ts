/**
 * Fault drill (e), small: every billable call (POST /brand/nonBlocking, POST /campaignBuilder)
 * commits and then fails (500, or no answer and a dropped connection); still one entity and one fee.
 */
import { describe, expect, it } from 'vitest';
import { commitFaultDrill } from '../../bench/support/drills.js';

describe.each(['error-after-commit', 'timeout-after-commit'] as const)(
  '%s on every billable call',
  (kind) => {
    it('one brand, one campaign and one fee per order', async () => {
      const n = 3;
      const figures = await commitFaultDrill({ n, kind, timeoutMs: 60_000 });
      expect(figures.notCompleted).toEqual([]);
      expect(figures.faultedCalls).toBeGreaterThanOrEqual(2 * n);
      expect(figures.registryAnomalies).toEqual([]);
      expect(figures.fees).toBe(n);
    }, 150_000);
  },
);
