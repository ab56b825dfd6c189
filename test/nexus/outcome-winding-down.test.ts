/**
 * An order system waiting on a campaign (the Nexus `orderCampaign` operation's outcome workflow,
 * src/workflows/nexus/order-outcome.ts) hears `cancelled`, with the operator's reason, as soon as the
 * operator cancels the created campaign: the campaign winds down (renewal off, watched until the
 * registry expires it, possibly a year later), but the order is over. On the time-skipping server
 * with the simulator: the campaign shared via a CSP waits in awaiting-dca, the outcome workflow
 * subscribes, the operator cancels.
 */
import { randomUUID } from 'node:crypto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ORDER_OUTCOME_WORKFLOW_TYPE, type OrderResult } from '../../src/contracts/nexus-service.js';
import { createOrderOutcomeActivities } from '../../src/nexus/outcome-activities.js';
import { cancelCampaign, getCampaignStatus, waitForCampaignPhase } from '../../src/orders/campaign-orders.js';
import {
  type CampaignBench,
  closeCampaignBench,
  deliver,
  orderBenchCampaign,
  startSpecCampaignBench,
} from '../fixtures/campaign-env.js';
import { recordHistory, workflowsPath } from '../fixtures/workflow-harness.js';
import { timeSkippingEnv, workflowBundle } from '../support/temporal-env.js';

const handles: { terminate(reason?: string): Promise<unknown> }[] = [];
let setup: { env: TestWorkflowEnvironment; bench: CampaignBench; brandReference: string };

beforeAll(async () => {
  const env = await timeSkippingEnv();
  setup = { env, ...(await startSpecCampaignBench(env, handles)) };
});
afterAll(() => closeCampaignBench(handles, setup?.bench, setup?.env));

/** Real time, up to 15 s: the campaign's audit trail has an entry `matches`. */
async function audited(reference: string, matches: (e: { event: string; detail?: string }) => boolean) {
  const { env } = setup;
  for (const end = Date.now() + 15_000; Date.now() < end; await new Promise((r) => setTimeout(r, 50))) {
    const status = await getCampaignStatus(env.client, reference).catch(() => undefined);
    if (status?.audit.entries.some(matches)) return;
  }
  throw new Error(`campaign ${reference}: no such audit entry`);
}

it('a created campaign the operator cancels (winding-down) completes the order: cancelled, with the reason', async () => {
  const { env, bench, brandReference } = setup;
  const { reference, handle } = await orderBenchCampaign(bench, brandReference, {
    upstreamCnpId: 'CSPUPSTREAM',
  });
  handles.push(handle);
  const pending = await waitForCampaignPhase(env.client, reference, 'share-pending', 15_000);
  await bench.control.acceptShare(pending.campaignId!);
  await deliver(handle, {
    eventType: 'CAMPAIGN_SHARE_ACCEPT',
    campaignId: pending.campaignId!,
    campaignReferenceId: reference,
  });
  await waitForCampaignPhase(env.client, reference, 'awaiting-dca', 15_000);

  // The outcome workflow on a queue of its own, with its activities: the bench's workflow worker
  // already runs activities on its queue (a fee approval's check), and a second worker may not.
  const outcomeQueue = `${bench.taskQueue}-outcomes`;
  const activities = await Worker.create({
    connection: env.nativeConnection,
    taskQueue: outcomeQueue,
    workflowBundle: await workflowBundle(workflowsPath),
    activities: createOrderOutcomeActivities(env.client),
  });
  const running = activities.run();
  try {
    const outcome = await env.client.workflow.start(ORDER_OUTCOME_WORKFLOW_TYPE, {
      workflowId: `nexus-order/campaign/${randomUUID()}`,
      taskQueue: outcomeQueue,
      args: [{ kind: 'campaign', account: bench.account, reference }],
    });
    handles.push(outcome);
    await audited(reference, (e) => e.event === 'subscribed' && !!e.detail?.startsWith(outcome.workflowId));
    const cancelled = await cancelCampaign(env.client, reference, 'customer left');
    expect(cancelled).toMatchObject({ phase: 'winding-down' });
    // Bounded in real time: an order left waiting for the registry's expiry would not end here.
    const result = await Promise.race([
      outcome.result() as Promise<OrderResult>,
      new Promise<string>((r) => setTimeout(() => r('still waiting after 20 s'), 20_000)),
    ]);
    expect(result).toMatchObject({
      entity: 'campaign',
      reference,
      outcome: 'cancelled',
      phase: 'winding-down',
      reason: 'customer left',
    });
    await recordHistory(outcome, 'order-outcome-campaign-cancelled');
  } finally {
    activities.shutdown();
    await running;
  }
}, 60_000);
