/**
 * The brand-readiness watch (issue 36, item 6): a campaign ordered before its brand workflow exists
 * asks the brand to tell it when it is ready, and re-sends that watch (no registry call) until the
 * signal reaches the brand, so it learns of the brand's readiness within the hour, not at its next
 * 2-day poll. On the time-skipping server with the simulator.
 */
import { describe, expect, it } from 'vitest';
import { startBrandOrder, waitForBrandPhase } from '../../src/orders/brand-client.js';
import { getCampaignStatus, waitForCampaignPhase } from '../../src/orders/campaign-orders.js';
import { WATCH_RESEND } from '../../src/workflows/campaign/steps.js';
import { DAY_MS } from '../../src/workflows/entity/wait.js';
import { campaignBenchForFile } from '../fixtures/campaign-bench-file.js';
import { orderBenchCampaign, privateBrand, uniqueRef } from '../fixtures/campaign-env.js';
import { recordHistory } from '../fixtures/workflow-harness.js';

const file = campaignBenchForFile();
const { handles } = file;

/** Orders the campaign's brand now, on the bench's workers, and waits (real time) until it is ready. */
async function orderBrandNow(brandReference: string): Promise<void> {
  const brand = await startBrandOrder(
    file.env.client,
    { reference: brandReference, account: file.bench.account, brand: privateBrand() },
    { taskQueue: file.bench.taskQueue },
  );
  handles.push(brand.handle);
  await waitForBrandPhase(file.env.client, brandReference, 'ready', 20_000);
}

/** Workflow time (ms) until the campaign's next readiness poll. */
async function untilNextPoll(reference: string): Promise<number> {
  const status = await getCampaignStatus(file.env.client, reference);
  expect(status.phase).toBe('awaiting-brand');
  return Date.parse(status.waitingFor!.nextPollAt!) - (await file.env.currentTimeMs());
}

describe('brand-readiness watch', () => {
  it('a campaign ordered before its brand workflow exists learns the brand is ready within hours, not at its 2-day poll', async () => {
    const brandReference = uniqueRef('brand');
    const { reference, handle } = await orderBenchCampaign(file.bench, brandReference, {
      workflowOptions: { brandReadyDeadlineMs: 30 * DAY_MS },
    });
    handles.push(handle);
    await waitForCampaignPhase(file.env.client, reference, 'awaiting-brand', 20_000);
    // A day and a half on the readiness poll is in its 2-day tail: just past its next poll, the one
    // after is at least 1.6 days away.
    await file.env.sleep(1.5 * DAY_MS);
    await file.env.sleep((await untilNextPoll(reference)) + 60_000);
    expect(await untilNextPoll(reference)).toBeGreaterThan(DAY_MS);

    await orderBrandNow(brandReference);
    await file.env.sleep(WATCH_RESEND.tail!.everyMs + 5 * 60_000);
    const moved = await getCampaignStatus(file.env.client, reference);
    expect(moved.phase).not.toBe('awaiting-brand');
    expect(moved.brandReadiness?.workflowPhase).toBe('ready');
  });

  it('a brand ordered minutes after its campaign: the campaign moves on (the replay suite records its watch)', async () => {
    const brandReference = uniqueRef('brand');
    const { reference, handle } = await orderBenchCampaign(file.bench, brandReference);
    handles.push(handle);
    await waitForCampaignPhase(file.env.client, reference, 'awaiting-brand', 20_000);
    await file.env.sleep(10 * 60_000);
    await orderBrandNow(brandReference);
    await file.env.sleep(20 * 60_000);
    const moved = await getCampaignStatus(file.env.client, reference);
    expect(moved.phase).not.toBe('awaiting-brand');
    await recordHistory(handle, 'campaign-brand-watch-resent');
  });
});
