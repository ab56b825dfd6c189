/**
 * Fault drill (c), small: 20% of each event type's webhooks are dropped; every workflow still
 * completes through its reconciliation polls (shortened to 3 s here; product defaults in bench/drills).
 */
import { expect, it } from 'vitest';
import { webhookDropDrill } from '../../bench/support/drills.js';

it('20% of webhooks dropped: every order completes through polls', async () => {
  const n = 5;
  const poll = { initialMs: 3_000, maxMs: 3_000 };
  const figures = await webhookDropDrill({
    n,
    share: 0.2,
    timeoutMs: 60_000,
    bulk: {
      brandWorkflowOptions: { workflowOptions: { pendingPoll: poll } },
      campaignWorkflowOptions: { pendingPoll: poll },
    },
  });
  expect(figures.dropped).toBeGreaterThan(0);
  // The orders whose waking webhook was dropped finished on a reconciliation poll.
  expect(figures.completedByPoll.count).toBeGreaterThan(0);
  expect(figures.notCompleted).toEqual([]);
  expect(figures.registryAnomalies).toEqual([]);
  expect(figures.fees).toBe(n);
}, 150_000);
