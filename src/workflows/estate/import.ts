/**
 * estateImportWorkflow: adopts what an account's registry lists and no workflow owns (`tcr import`),
 * brands first, then campaigns (a campaign's workflow names its brand's). Id `import/{account}`: one
 * at a time, and `tcr import` again attaches to the running one.
 *
 * Each page is one read at the bulk priority within the read share; its activity starts one workflow
 * per unowned record, keyed by the record's referenceId (its registry id when it has none), with the
 * record's statuses as `adopt`: the workflow enters the phase that record puts it in, writes nothing
 * and charges nothing, and claims the events the ingress parked for it. Starting is idempotent (an
 * existing workflow, open or closed, is left as it is), so a page read again after a crash or a
 * continue-as-new starts nothing twice. A dry run only lists. Never fails on a registry answer.
 */
import { continueAsNew, proxyActivities, setCurrentDetails, setHandler } from '@temporalio/workflow';
import {
  type EstateActivities,
  type EstateImportInput,
  type ImportCounts,
  type ImportProgress,
  type ImportStatus,
  importLine,
  importStatusQuery,
  UNOWNED_SAMPLE_LIMIT,
} from '../../contracts/estate.js';
import { registryReadOptions } from '../entity/stubs.js';
import { cutInto, estateKinds, estatePaging, movedInto, walkPages } from './paging.js';

function emptyCounts(): ImportCounts {
  return { pages: 0, records: 0, adopted: 0, owned: 0, wouldAdopt: 0 };
}

function describe(status: ImportStatus): string {
  return `import of ${status.account}: ${importLine(status)}`;
}

export async function estateImportWorkflow(input: EstateImportInput): Promise<ImportStatus> {
  const paging = estatePaging(input.paging);
  const kinds = estateKinds(input.kinds);
  const dryRun = input.dryRun ?? false;
  const { importPage } = proxyActivities<EstateActivities>(
    // A page starts up to recordsPerPage workflows: more time than a read.
    registryReadOptions(input.account, 'bulk', '5 minutes'),
  );
  const progress: ImportProgress = input.carried
    ? { ...input.carried, runs: input.carried.runs + 1 }
    : {
        cursor: { kind: kinds[0]!, page: 1 },
        startedAt: new Date(Date.now()).toISOString(),
        counts: { brand: emptyCounts(), campaign: emptyCounts() },
        totals: {},
        sample: [],
        runs: 1,
      };
  const status: ImportStatus = {
    ...progress,
    workflowType: 'estate-import',
    account: input.account,
    dryRun,
    state: 'importing',
  };
  setHandler(importStatusQuery, () => status);
  setCurrentDetails(describe(status));

  await walkPages({
    paging,
    kinds,
    cursor: progress.cursor,
    read: (request) => importPage({ account: input.account, ...request, dryRun }),
    record: (cursor, page) => {
      const c = status.counts[cursor.kind];
      c.pages++;
      c.records += page.records;
      c.adopted += page.adopted;
      c.owned += page.owned;
      c.wouldAdopt += page.wouldAdopt.length;
      status.totals[cursor.kind] = page.totalRecords;
      for (const entity of page.wouldAdopt)
        if (status.sample.length < UNOWNED_SAMPLE_LIMIT) status.sample.push(entity);
    },
    moved: movedInto(status, () => setCurrentDetails(describe(status))),
    cut: cutInto(status, () => describe(status)),
    continueAsNew: (cursor) => {
      const { workflowType: _t, account: _a, dryRun: _d, state: _s, lastError: _e, ...carried } = status;
      return continueAsNew<typeof estateImportWorkflow>({ ...input, carried: { ...carried, cursor } });
    },
  });
  status.state = 'done';
  status.finishedAt = new Date(Date.now()).toISOString();
  setCurrentDetails(describe(status));
  return status;
}
