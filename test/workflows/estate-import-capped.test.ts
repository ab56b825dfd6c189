/**
 * The import against a registry that caps its pages (issue 33): the spec shows no maximum
 * `recordsPerPage`, so the simulator here serves at most 40 records a page (`maxRecordsPerPage`, page p
 * counting pages of the capped size) while the import asks its default 500. 130 seeded brands must
 * all be adopted, each with its workflow. The real import workflow and estate activities run on the
 * production worker wiring (`createWorkers`) against the in-process simulator, on the dev server: the
 * activities find owners by visibility, which the time-skipping server has not.
 * Seen failing first with the page-size rule (a page shorter than asked ended the list): 40 adopted.
 */
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  adoptedReference,
  ESTATE_IMPORT_WORKFLOW_TYPE,
  type EstateImportInput,
  type ImportStatus,
  importWorkflowId,
} from '../../src/contracts/estate.js';
import { brandWorkflowId } from '../../src/contracts/ids.js';
import {
  type SimulatorHarness,
  startTestSimulator,
  withSimulatorWorkers,
} from '../fixtures/workflow-simulator.js';
import { devServerEnv } from '../support/temporal-env.js';

const CAP = 40;
const BRANDS = 130;

let env: TestWorkflowEnvironment;
let sim: SimulatorHarness;
beforeAll(async () => {
  [env, sim] = await Promise.all([devServerEnv(), startTestSimulator({ maxRecordsPerPage: CAP })]);
  await sim.control.seed({ brands: BRANDS, campaigns: 0 });
}, 120_000);
afterAll(async () => {
  await sim?.sim.close();
  await env?.teardown();
});

/** Every seeded brand, read straight from the simulator's API (pages of the cap). */
async function seededBrands(): Promise<{ brandId: string; referenceId?: string | null }[]> {
  const all: { brandId: string; referenceId?: string | null }[] = [];
  for (let page = 1; all.length < BRANDS && page <= 10; page++) {
    const { status, body } = await sim.api('GET', `/brand?page=${page}&recordsPerPage=${CAP}`);
    expect(status).toBe(200);
    all.push(...(body as { records: { brandId: string; referenceId?: string | null }[] }).records);
  }
  return all;
}

describe('import behind a page cap of 40', () => {
  it('asks 500 a page and adopts all 130 seeded brands, each with its workflow', async () => {
    const brands = await seededBrands();
    expect(brands).toHaveLength(BRANDS);
    await withSimulatorWorkers(env, sim.sim, async (w) => {
      const input: EstateImportInput = { account: w.account };
      const handle = await env.client.workflow.start(ESTATE_IMPORT_WORKFLOW_TYPE, {
        workflowId: importWorkflowId(w.account),
        taskQueue: w.taskQueue,
        args: [input],
      });
      const status = (await handle.result()) as ImportStatus;
      expect(status.state).toBe('done');
      expect(status.totals.brand).toBe(BRANDS);
      expect(status.counts.brand).toMatchObject({ records: BRANDS, adopted: BRANDS, owned: 0, pages: 4 });
      expect(status.cut).toBeUndefined();
      const missing: string[] = [];
      for (const brand of brands) {
        const id = brandWorkflowId(w.account, adoptedReference({ ...brand, registryId: brand.brandId }));
        await env.client.workflow
          .getHandle(id)
          .describe()
          .catch(() => missing.push(id));
      }
      expect(missing).toEqual([]);
    });
  }, 90_000);
});
