/**
 * Fault drill (c), small: every webhook is dropped (bench/drills drops 20 % at bench size); every order
 * still completes, with no webhook, on its reconciliation polls, and is registered and billed once.
 *
 * The partner's share decision is slowed to 4 s of real time (4 simulated hours at 3600×), so each
 * campaign's start run ends in share-pending and only a poll (every 3 s here) can find the acceptance.
 * At the simulator's default delays the decision landed within the start run, and the drill passed with
 * every reconciliation poll switched off; with this delay it fails that way (seen: no campaign running
 * within the timeout with `phasePollDelay` returning undefined).
 */
import { expect, it } from 'vitest';
import { webhookDropDrill } from '../../bench/support/drills.js';

it('every webhook dropped: every order still completes on its polls, registered and billed once', async () => {
  const n = 5;
  const poll = { initialMs: 3_000, maxMs: 3_000 };
  const figures = await webhookDropDrill({
    n,
    share: 1,
    timeoutMs: 90_000,
    delays: { shareDecisionSeconds: 4 * 3600 },
    bulk: {
      brandWorkflowOptions: { workflowOptions: { pendingPoll: poll } },
      campaignWorkflowOptions: { pendingPoll: poll },
    },
  });
  expect(figures.dropped).toBeGreaterThan(0);
  expect(figures.droppedShare).toBe(1);
  expect(figures.completedByWebhook.count).toBe(0);
  expect(figures.notCompleted).toEqual([]);
  // Every campaign reached running on a poll: its start run had left it waiting for the partner.
  expect(figures.completedByPoll.count).toBe(n);
  expect(figures.registryAnomalies).toEqual([]);
  expect(figures.fees).toBe(n);
}, 180_000);
