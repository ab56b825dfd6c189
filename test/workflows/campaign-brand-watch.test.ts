/**
 * The brand-readiness watch (issue 36, item 6): a campaign ordered before its brand workflow exists
 * asks the brand to tell it when it is ready, and re-sends that watch (no registry call) until the
 * signal reaches the brand, so it learns of the brand's readiness within the hour, not at its next
 * 2-day poll. On the time-skipping server with the simulator.
 */
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrandOrder, waitForBrandPhase } from '../../src/orders/brand-client.js';
import { getCampaignStatus, waitForCampaignPhase } from '../../src/orders/campaign-orders.js';
import { WATCH_RESEND } from '../../src/workflows/campaign/steps.js';
import { DAY_MS } from '../../src/workflows/entity/wait.js';
import {
  type CampaignBench,
  orderBenchCampaign,
  privateBrand,
  startCampaignBench,
  uniqueRef,
} from '../fixtures/campaign-env.js';
import { recordHistory } from '../fixtures/workflow-harness.js';
import { timeSkippingEnv } from '../support/temporal-env.js';

let env: TestWorkflowEnvironment;
let bench: CampaignBench;
const handles: { terminate(reason?: string): Promise<unknown> }[] = [];

beforeAll(async () => {
  env = await timeSkippingEnv();
  bench = await startCampaignBench(env);
});
afterAll(async () => {
  // Terminated only at the end (campaign-lifecycle.test.ts: the time-skipping lock of running activities).
  await Promise.allSettled(handles.splice(0).map((h) => h.terminate('test done')));
  await bench?.close();
  await env?.teardown();
});

/** Orders the campaign's brand now, on the bench's workers, and waits (real time) until it is ready. */
async function orderBrandNow(brandReference: string): Promise<void> {
  const brand = await startBrandOrder(
    env.client,
    { reference: brandReference, account: bench.account, brand: privateBrand() },
    { taskQueue: bench.taskQueue },
  );
  handles.push(brand.handle);
  await waitForBrandPhase(env.client, brandReference, 'ready', 20_000);
}

/** Workflow time (ms) until the campaign's next readiness poll. */
async function untilNextPoll(reference: string): Promise<number> {
  const status = await getCampaignStatus(env.client, reference);
  expect(status.phase).toBe('awaiting-brand');
  return Date.parse(status.waitingFor!.nextPollAt!) - (await env.currentTimeMs());
}

describe('brand-readiness watch', () => {
  it('a campaign ordered before its brand workflow exists learns the brand is ready within hours, not at its 2-day poll', async () => {
    const brandReference = uniqueRef('brand');
    const { reference, handle } = await orderBenchCampaign(bench, brandReference, {
      workflowOptions: { brandReadyDeadlineMs: 30 * DAY_MS },
    });
    handles.push(handle);
    await waitForCampaignPhase(env.client, reference, 'awaiting-brand', 20_000);
    // A day and a half on the readiness poll is in its 2-day tail: just past its next poll, the one
    // after is at least 1.6 days away.
    await env.sleep(1.5 * DAY_MS);
    await env.sleep((await untilNextPoll(reference)) + 60_000);
    expect(await untilNextPoll(reference)).toBeGreaterThan(DAY_MS);

    await orderBrandNow(brandReference);
    await env.sleep(WATCH_RESEND.tail!.everyMs + 5 * 60_000);
    const moved = await getCampaignStatus(env.client, reference);
    expect(moved.phase).not.toBe('awaiting-brand');
    expect(moved.brandReadiness?.workflowPhase).toBe('ready');
  });

  it('a brand ordered minutes after its campaign: the campaign moves on (the replay suite records its watch)', async () => {
    const brandReference = uniqueRef('brand');
    const { reference, handle } = await orderBenchCampaign(bench, brandReference);
    handles.push(handle);
    await waitForCampaignPhase(env.client, reference, 'awaiting-brand', 20_000);
    await env.sleep(10 * 60_000);
    await orderBrandNow(brandReference);
    await env.sleep(20 * 60_000);
    const moved = await getCampaignStatus(env.client, reference);
    expect(moved.phase).not.toBe('awaiting-brand');
    await recordHistory(handle, 'campaign-brand-watch-resent');
  });
});
