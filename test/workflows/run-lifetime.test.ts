/**
 * Lifetimes that let patches retire (issue 36, item 2): an entity's run continues as new once it is
 * older than RUN_AGE_LIMIT_MS (30 days), at its next wake, idle, with its state, audit trail and
 * delivery dedupe carried, and without an extra registry read; a wait with no poll (an operator's
 * answer) ends at the age limit by itself. On the time-skipping server with the simulator, so 30
 * days cost seconds. The server's suggestion: `continueAsNewReason` (unit cases here) and, end to
 * end on the dev server (the test server never suggests), run-lifetime-suggested.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { getBrandStatus, startBrandOrder, waitForBrandPhase } from '../../src/orders/brand-client.js';
import {
  approveCampaignFee,
  getCampaignStatus,
  waitForCampaignPhase,
} from '../../src/orders/campaign-orders.js';
import { continueAsNewReason } from '../../src/workflows/entity/loop.js';
import { DAY_MS, RUN_AGE_LIMIT_MS } from '../../src/workflows/entity/wait.js';
import { campaignBenchForFile } from '../fixtures/campaign-bench-file.js';
import {
  deliver,
  orderBenchBrand,
  orderBenchCampaign,
  privateBrand,
  uniqueRef,
} from '../fixtures/campaign-env.js';
import { recordHistory } from '../fixtures/workflow-harness.js';

const file = campaignBenchForFile();
const { handles } = file;

/**
 * Polls (real time) until `read` satisfies `ok`. Each read is bounded: the test server may never
 * answer a query sent to a run as it continues as new; it is asked again.
 */
async function until<T>(read: () => Promise<T>, ok: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const value = await Promise.race([
      read().catch(() => undefined),
      new Promise<undefined>((r) => setTimeout(() => r(undefined), 2_000)),
    ]);
    if (value !== undefined && ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: ${JSON.stringify(value)}`.slice(0, 2_000));
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('continue-as-new on age', () => {
  it('a settled brand continues as new at its first wake past the age limit (a webhook), state, audit and dedupe carried', async () => {
    const brandReference = uniqueRef('brand');
    // A safety poll past the age limit: nothing wakes the brand before the webhook below.
    const { handle } = await startBrandOrder(
      file.env.client,
      { reference: brandReference, account: file.bench.account, brand: privateBrand() },
      { taskQueue: file.bench.taskQueue, workflowOptions: { steadyPollMs: 40 * DAY_MS } },
    );
    handles.push(handle);
    const ready = await waitForBrandPhase(file.env.client, brandReference, 'ready', 20_000);
    const firstRunId = (await handle.describe()).runId;
    expect(ready.runs).toBe(1);

    await file.env.sleep(RUN_AGE_LIMIT_MS + DAY_MS);
    expect(
      (
        await until(
          () => getBrandStatus(file.env.client, brandReference),
          () => true,
          'status',
        )
      ).runs,
    ).toBe(1);
    const event = { eventType: 'BRAND_IDENTITY_STATUS_UPDATE', brandId: ready.brandId! } as const;
    await deliver(handle, event);
    // Queried only once the next run is there (a query to a run continuing as new may never be answered).
    await until(
      () => handle.describe(),
      (d) => d.runId !== firstRunId,
      'next run',
    );
    const after = await until(
      () => getBrandStatus(file.env.client, brandReference),
      (s) => s.runs >= 2 && s.waitingFor !== undefined,
      'brand continued as new',
    );
    const entry = after.audit.entries.find((e) => e.event === 'continue-as-new');
    expect(entry?.detail).toBe('run age 31.0 days (limit 30.0), run 1');
    expect(after.phase).toBe('ready');
    expect(after.brandId).toBe(ready.brandId);
    expect(after.audit.entries.some((e) => e.event === 'registered')).toBe(true);
    expect(after.audit.entries.filter((e) => e.event === 'event')).toHaveLength(1);
    expect((await handle.describe()).runId).not.toBe(firstRunId);

    // The wake's step runs in the next run: the webhook's read, at a webhook's priority.
    const next = await handle.fetchHistory();
    const started = next.events![0]!.workflowExecutionStartedEventAttributes!;
    const input = (await file.env.client.options.loadedDataConverter.payloadConverter.fromPayload(
      started.input!.payloads![0]!,
    )) as { carried: { loop: { resumeCause?: string } } };
    expect(input.carried.loop.resumeCause).toBe('webhook');

    // The delivery seen by the first run is a duplicate in the next.
    await deliver(handle, event);
    await new Promise((r) => setTimeout(r, 300));
    const final = await until(
      () => getBrandStatus(file.env.client, brandReference),
      () => true,
      'status',
    );
    expect(final.audit.entries.filter((e) => e.event === 'event')).toHaveLength(1);
    // The run that continued (its patch marker and its continue-as-new): the replay suite's history.
    await recordHistory(handle, 'brand-run-age-continue-as-new', firstRunId);
  });

  it('a running campaign continues as new past the age limit with its state intact, billed once', async () => {
    const brand = await orderBenchBrand(file.bench, (h) => handles.push(h), { until: 'ready' });
    const { reference, handle } = await orderBenchCampaign(file.bench, brand.brandReference);
    handles.push(handle);
    const pending = await waitForCampaignPhase(file.env.client, reference, 'share-pending', 20_000);
    const campaignId = pending.campaignId!;
    await file.bench.control.acceptShare(campaignId);
    await deliver(handle, { eventType: 'CAMPAIGN_DCA_COMPLETE', campaignId, campaignReferenceId: reference });
    const running = await waitForCampaignPhase(file.env.client, reference, 'running', 20_000);
    expect(running.runs).toBe(1);
    await file.env.sleep(39 * DAY_MS);
    const after = await until(
      () => getCampaignStatus(file.env.client, reference),
      (s) => s.runs >= 2 && s.waitingFor !== undefined,
      'campaign continued as new',
    );
    expect(after.phase).toBe('running');
    expect(after.campaignId).toBe(campaignId);
    expect(after.audit.entries.find((e) => e.event === 'continue-as-new')?.detail).toMatch(/^run age 3\d/);
    expect(after.deliveries.received).toBe(running.deliveries.received);
    // Continued at its safety poll: the next run's first step is that poll (no extra read at 'start').
    const next = await handle.fetchHistory();
    const input = (await file.env.client.options.loadedDataConverter.payloadConverter.fromPayload(
      next.events![0]!.workflowExecutionStartedEventAttributes!.input!.payloads![0]!,
    )) as { carried: { loop: { resumeCause?: string } } };
    expect(input.carried.loop.resumeCause).toBe('poll');
    const ledger = await file.bench.control.ledger();
    expect(
      ledger.filter((e) => e.kind === 'CAMPAIGN_REGISTRATION' && e.campaignId === campaignId),
    ).toHaveLength(1);
  });

  it('a wait with no poll (fee approval) ends at the age limit and continues as new; the operator is answered after', async () => {
    const brand = await orderBenchBrand(file.bench, (h) => handles.push(h), { until: 'ready' });
    const { reference, handle } = await orderBenchCampaign(file.bench, brand.brandReference, {
      requireFeeApproval: true,
    });
    handles.push(handle);
    const waiting = await waitForCampaignPhase(file.env.client, reference, 'awaiting-fee-approval', 20_000);
    expect(waiting.runs).toBe(1);
    await file.env.sleep(RUN_AGE_LIMIT_MS - DAY_MS);
    expect(
      (
        await until(
          () => getCampaignStatus(file.env.client, reference),
          () => true,
          'status',
        )
      ).runs,
    ).toBe(1);
    await file.env.sleep(2 * DAY_MS);
    const after = await until(
      () => getCampaignStatus(file.env.client, reference),
      (s) => s.runs >= 2 && s.waitingFor !== undefined,
      'campaign continued as new at the age limit',
    );
    expect(after.phase).toBe('awaiting-fee-approval');
    expect(after.audit.entries.find((e) => e.event === 'continue-as-new')?.detail).toMatch(
      /^run age 30\.0 days/,
    );
    expect(after.needsAction.map((a) => a.key)).toContain('fee-approval');
    const approved = await approveCampaignFee(file.env.client, reference, { approvedBy: 'ops@csp' });
    expect(approved).toMatchObject({ outcome: 'done', ids: { campaignId: expect.any(String) } });
  });
});

describe('continueAsNewReason', () => {
  const run = { historyLength: 100, continueAsNewSuggested: false, runStartedAt: 0, now: DAY_MS };
  const limits = { continueAsNewAt: 10_000, maxRunAgeMs: RUN_AGE_LIMIT_MS };

  it('continues on the server suggestion, on history length, and on age (with the patch)', () => {
    expect(continueAsNewReason(run, limits, 1)).toBeUndefined();
    expect(continueAsNewReason({ ...run, continueAsNewSuggested: true }, limits, 2)).toBe(
      'suggested by the server at history length 100, run 2',
    );
    expect(continueAsNewReason({ ...run, historyLength: 10_000 }, limits, 3)).toBe(
      'history length 10000, run 3',
    );
    expect(continueAsNewReason({ ...run, now: RUN_AGE_LIMIT_MS }, limits, 1)).toBe(
      'run age 30.0 days (limit 30.0), run 1',
    );
    expect(continueAsNewReason({ ...run, now: RUN_AGE_LIMIT_MS - 1 }, limits, 1)).toBeUndefined();
  });

  it('without the patch (runs recorded before it): history length or suggestion only, as before', () => {
    const old = { continueAsNewAt: 10_000 };
    expect(continueAsNewReason({ ...run, now: 400 * DAY_MS }, old, 1)).toBeUndefined();
    expect(continueAsNewReason({ ...run, continueAsNewSuggested: true }, old, 1)).toBe(
      'history length 100, run 1',
    );
  });
});
