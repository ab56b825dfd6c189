/**
 * The estate's sweep and import workflows on the time-skipping server, with page activities that
 * stand in for the registry: every page read once in order, brands before campaigns; a page whose read
 * keeps failing (401, then 500s past their retries) is read again after a backoff, with the error in
 * the status, and the workflow never fails; progress and counts survive continue-as-new.
 */
import { randomUUID } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RegistryFailureTypes } from '../../src/contracts/activity-types.js';
import {
  ESTATE_IMPORT_WORKFLOW_TYPE,
  ESTATE_SWEEP_WORKFLOW_TYPE,
  type EstateActivities,
  type EstateImportInput,
  type EstatePageInput,
  type EstateSweepInput,
  type ImportStatus,
  type SweepStatus,
  sweepStatusQuery,
} from '../../src/contracts/estate.js';
import { FakeRegistry } from '../fixtures/workflow-fake-registry.js';
import { type TestWorkers, withWorkers } from '../fixtures/workflow-harness.js';
import { timeSkippingEnv } from '../support/temporal-env.js';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await timeSkippingEnv();
});
afterAll(async () => {
  await env?.teardown();
});

/** Lists of 7 brands and 3 campaigns, read 2 per page. */
const TOTALS = { brand: 7, campaign: 3 } as const;
const PER_PAGE = 2;

function pageOf(input: EstatePageInput) {
  const from = (input.page - 1) * input.recordsPerPage;
  const ids = Array.from({ length: TOTALS[input.kind] }, (_, i) => `${input.kind[0]!.toUpperCase()}${i + 1}`);
  return { totalRecords: TOTALS[input.kind], ids: ids.slice(from, from + input.recordsPerPage) };
}

/** Page activities that record each read and fail brand page 2 `failures` times with `failure`. */
function estateActivities(failures: number, failure: () => Error) {
  const reads: string[] = [];
  let failed = 0;
  const read = (input: EstatePageInput) => {
    reads.push(`${input.kind}:${input.page}`);
    if (input.kind === 'brand' && input.page === 2 && failed < failures) {
      failed++;
      throw failure();
    }
    return pageOf(input);
  };
  const activities: EstateActivities = {
    async sweepPage(input) {
      const { totalRecords, ids } = read(input);
      // The first record of each page is unowned, the second changed.
      return {
        totalRecords,
        records: ids.length,
        unchanged: 0,
        changed: ids.length > 1 ? 1 : 0,
        closed: 0,
        unowned: ids.slice(0, 1).map((registryId) => ({ kind: input.kind, registryId })),
      };
    },
    async importPage(input) {
      const { totalRecords, ids } = read(input);
      return {
        totalRecords,
        records: ids.length,
        adopted: input.dryRun ? 0 : ids.length,
        owned: 0,
        wouldAdopt: input.dryRun ? ids.map((registryId) => ({ kind: input.kind, registryId })) : [],
      };
    },
  };
  return { activities, reads };
}

const everyPageOnce = ['brand:1', 'brand:2', 'brand:3', 'brand:4', 'campaign:1', 'campaign:2'];
const paging = { recordsPerPage: PER_PAGE, pagesPerRun: 2, readShare: 0.1, readsPerSecond: 20 };

/** Starts a sweep of `w`'s account with `input` over the shared paging, tracked for the harness to end. */
async function startSweep(w: TestWorkers, input: Partial<EstateSweepInput> = {}) {
  const handle = await env.client.workflow.start(ESTATE_SWEEP_WORKFLOW_TYPE, {
    workflowId: `sweep/${w.account}-${randomUUID().slice(0, 6)}`,
    taskQueue: w.taskQueue,
    args: [{ account: w.account, paging, ...input } satisfies EstateSweepInput],
  });
  return w.track(handle);
}

describe('estate sweep and import workflows', () => {
  it('a sweep reads every page once, brands first, rides out a 401 and 500s, and keeps its counts across continue-as-new', async () => {
    const unauthorized = () =>
      ApplicationFailure.create({
        message: 'GET /v2/brand: 401 Unauthorized',
        type: RegistryFailureTypes.unauthorized,
        nonRetryable: true,
      });
    const { activities, reads } = estateActivities(2, unauthorized);
    const fake = new FakeRegistry();
    await withWorkers(
      env,
      { reads: { ...fake.readActivities(), ...activities }, writes: fake.writeActivities() },
      async (w) => {
        const handle = await startSweep(w);
        const result = (await handle.result()) as SweepStatus;
        expect(reads.filter((r) => r !== 'brand:2')).toEqual(everyPageOnce.filter((r) => r !== 'brand:2'));
        expect(reads.filter((r) => r === 'brand:2')).toHaveLength(3); // two 401s, then the page
        expect(result.state).toBe('done');
        expect(result.counts).toEqual({
          pages: 6,
          records: 10,
          unchanged: 0,
          changed: 4,
          closed: 0,
          unowned: 6,
        });
        expect(result.totals).toEqual({ brand: 7, campaign: 3 });
        expect(result.unownedSample.map((e) => e.registryId)).toEqual(['B1', 'B3', 'B5', 'B7', 'C1', 'C3']);
        expect(result.runs).toBe(3); // 6 pages, 2 per run
        expect(result.lastError).toBeUndefined();
        // The 401 was visible while it lasted: the first run's history holds the failed page reads.
        const first = await env.client.workflow
          .getHandle(handle.workflowId, handle.firstExecutionRunId)
          .fetchHistory();
        const failed = first.events?.filter((e) => e.activityTaskFailedEventAttributes) ?? [];
        expect(failed).toHaveLength(2);
      },
    );
  });

  it('a sweep shows the error of a page that keeps failing in its status, and goes on when it heals', async () => {
    const transient = () =>
      ApplicationFailure.create({ message: 'GET /v2/brand: 503', type: RegistryFailureTypes.transient });
    // 3 failed activities: each spends its 6 attempts (the stubs' bounded retry) first.
    const { activities, reads } = estateActivities(18, transient);
    const fake = new FakeRegistry();
    await withWorkers(
      env,
      { reads: { ...fake.readActivities(), ...activities }, writes: fake.writeActivities() },
      async (w) => {
        const handle = await startSweep(w, { paging: { ...paging, pagesPerRun: 25 } });
        let seen: SweepStatus | undefined;
        for (let i = 0; i < 400 && !seen?.lastError; i++) {
          seen = await handle.query(sweepStatusQuery);
          if (!seen.lastError) await env.sleep(5_000);
        }
        expect(seen?.lastError).toContain('GET /v2/brand: 503');
        expect(seen?.cursor).toMatchObject({ kind: 'brand', page: 2, offset: 2 });
        const result = (await handle.result()) as SweepStatus;
        expect(result.state).toBe('done');
        expect(result.lastError).toBeUndefined();
        expect(new Set(reads)).toEqual(new Set(everyPageOnce));
        expect(reads.filter((r) => r === 'brand:2')).toHaveLength(19);
      },
    );
  });

  it('an import counts per list, lists what a dry run would adopt, and keeps its counts across continue-as-new', async () => {
    const { activities, reads } = estateActivities(0, () => new Error('unused'));
    const fake = new FakeRegistry();
    await withWorkers(
      env,
      { reads: { ...fake.readActivities(), ...activities }, writes: fake.writeActivities() },
      async (w) => {
        const run = async (dryRun: boolean) => {
          const handle = await env.client.workflow.start(ESTATE_IMPORT_WORKFLOW_TYPE, {
            workflowId: `import/${w.account}-${randomUUID().slice(0, 6)}`,
            taskQueue: w.taskQueue,
            args: [{ account: w.account, dryRun, paging } satisfies EstateImportInput],
          });
          w.track(handle);
          return (await handle.result()) as ImportStatus;
        };
        const real = await run(false);
        expect(real.counts.brand).toEqual({ pages: 4, records: 7, adopted: 7, owned: 0, wouldAdopt: 0 });
        expect(real.counts.campaign).toEqual({ pages: 2, records: 3, adopted: 3, owned: 0, wouldAdopt: 0 });
        expect(real.runs).toBe(3);
        expect(reads).toEqual(everyPageOnce);
        const dry = await run(true);
        expect(dry.dryRun).toBe(true);
        expect(dry.counts.brand.wouldAdopt + dry.counts.campaign.wouldAdopt).toBe(10);
        expect(dry.sample.map((e) => e.registryId)).toEqual([
          'B1',
          'B2',
          'B3',
          'B4',
          'B5',
          'B6',
          'B7',
          'C1',
          'C2',
          'C3',
        ]);
      },
    );
  });
});
