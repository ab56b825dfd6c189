/**
 * estateSweepWorkflow: one pass over an account's registry lists (`GET /brand`, then `GET /campaign`),
 * started by the account's Schedule (hourly by default; src/contracts/estate.ts names both).
 *
 * Each page is one read at the bulk priority, within a share of the account's read budget (10 % by
 * default). For each record the page's activity compares the fingerprint of what the registry shows
 * with the TcrFingerprint its workflow upserted (a visibility query: no workflow is woken for it) and
 * signals only the workflows whose registry state differs. Records no workflow owns are counted and
 * listed by id for `tcr import`. Progress is in the `status` query and in the Web UI's current
 * details; the sweep continues as new between batches of pages and never fails on a registry answer.
 */
import { continueAsNew, proxyActivities, setCurrentDetails, setHandler } from '@temporalio/workflow';
import {
  type EstateActivities,
  type EstateSweepInput,
  pageIntervalMs,
  type SweepCounts,
  type SweepProgress,
  type SweepStatus,
  sweepLine,
  sweepStatusQuery,
  UNOWNED_SAMPLE_LIMIT,
} from '../../contracts/estate.js';
import { registryReadOptions } from '../entity/stubs.js';
import { cutInto, estateKinds, estatePaging, movedInto, walkPages } from './paging.js';

function emptyCounts(): SweepCounts {
  return { pages: 0, records: 0, unchanged: 0, changed: 0, closed: 0, unowned: 0 };
}

function describe(status: SweepStatus): string {
  return `sweep of ${status.account}: ${sweepLine(status)}`;
}

export async function estateSweepWorkflow(input: EstateSweepInput): Promise<SweepStatus> {
  const paging = estatePaging(input.paging);
  const kinds = estateKinds(input.kinds);
  const { sweepPage } = proxyActivities<EstateActivities>(
    registryReadOptions(input.account, 'bulk', '2 minutes'),
  );
  const progress: SweepProgress = input.carried
    ? { ...input.carried, runs: input.carried.runs + 1 }
    : {
        cursor: { kind: kinds[0]!, page: 1 },
        startedAt: new Date(Date.now()).toISOString(),
        counts: emptyCounts(),
        totals: {},
        unownedSample: [],
        runs: 1,
      };
  const status: SweepStatus = {
    ...progress,
    workflowType: 'estate-sweep',
    account: input.account,
    state: 'sweeping',
    pageIntervalMs: pageIntervalMs(paging),
  };
  setHandler(sweepStatusQuery, () => status);
  setCurrentDetails(describe(status));

  await walkPages({
    paging,
    kinds,
    cursor: progress.cursor,
    read: (request) => sweepPage({ account: input.account, ...request }),
    record: (cursor, page) => {
      const c = status.counts;
      c.pages++;
      c.records += page.records;
      c.unchanged += page.unchanged;
      c.changed += page.changed;
      c.closed += page.closed;
      c.unowned += page.unowned.length;
      status.totals[cursor.kind] = page.totalRecords;
      for (const entity of page.unowned)
        if (status.unownedSample.length < UNOWNED_SAMPLE_LIMIT) status.unownedSample.push(entity);
    },
    moved: movedInto(status, () => setCurrentDetails(describe(status))),
    cut: cutInto(status, () => describe(status)),
    continueAsNew: (cursor) => {
      const {
        workflowType: _t,
        account: _a,
        state: _s,
        pageIntervalMs: _p,
        lastError: _e,
        ...carried
      } = status;
      return continueAsNew<typeof estateSweepWorkflow>({ ...input, carried: { ...carried, cursor } });
    },
  });
  status.state = 'done';
  status.finishedAt = new Date(Date.now()).toISOString();
  setCurrentDetails(describe(status));
  return status;
}
