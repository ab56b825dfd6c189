/**
 * Fault drill (c), small: every webhook is dropped (bench/drills drops 20 % at bench size); every order
 * still completes, with no webhook, and is registered and billed once.
 *
 * Open question (issue 23): which wake finishes the campaigns here. The audit records cause `poll` for
 * some of them, yet the run passes with every reconciliation poll switched off (phasePollDelay returning
 * undefined), so this drill does not show that polls recover lost webhooks; and with 20 % dropped, how
 * many orders finished on a poll was timing (0 in one full run), so that count is not asserted.
 */
import { expect, it } from 'vitest';
import { webhookDropDrill } from '../../bench/support/drills.js';

it('every webhook dropped: every order still completes, registered and billed once', async () => {
  const n = 5;
  const poll = { initialMs: 3_000, maxMs: 3_000 };
  const figures = await webhookDropDrill({
    n,
    share: 1,
    timeoutMs: 60_000,
    bulk: {
      brandWorkflowOptions: { workflowOptions: { pendingPoll: poll } },
      campaignWorkflowOptions: { pendingPoll: poll },
    },
  });
  expect(figures.dropped).toBeGreaterThan(0);
  expect(figures.droppedShare).toBe(1);
  expect(figures.completedByWebhook.count).toBe(0);
  expect(figures.notCompleted).toEqual([]);
  expect(figures.registryAnomalies).toEqual([]);
  expect(figures.fees).toBe(n);
}, 150_000);
