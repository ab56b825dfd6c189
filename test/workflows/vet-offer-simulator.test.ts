/**
 * The vet checks with the REAL activities (createWorkers: the worker's reference-list cache reading
 * `/enum/extVettingProvider` through the account's client) against the registry simulator, whose
 * providers are AEGIS (STANDARD, ENHANCED, POLITICAL), WMC (STANDARD, ENHANCED) and CV (POLITICAL,
 * import only). Refused orders leave nothing at the registry; an import CV takes and a POLITICAL order
 * with its payload go through.
 */
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importVet, orderVet } from '../../src/orders/index.js';
import { orderVetAndWait, waitForStatus } from '../fixtures/workflow-harness.js';
import {
  type SimulatorHarness,
  startTestSimulator,
  withSimulatorWorkers,
} from '../fixtures/workflow-simulator.js';
import { timeSkippingEnv } from '../support/temporal-env.js';

let env: TestWorkflowEnvironment;
let harness: SimulatorHarness;
beforeAll(async () => {
  [env, harness] = await Promise.all([timeSkippingEnv(), startTestSimulator()]);
});
afterAll(async () => {
  await harness?.sim.close();
  await env?.teardown();
});

describe('vet checks against the simulator', () => {
  it('refuses WMC POLITICAL and a CV order before the registry; imports from CV and orders a POLITICAL vet with its payload', async () => {
    await withSimulatorWorkers(env, harness.sim, async ({ orderBrand }) => {
      const { reference, handle, status: ready } = await orderBrand({ until: (s) => s.phase === 'ready' });
      const brandId = ready.brandId!;

      const wmc = await orderVet(env.client, reference, { evpId: 'WMC', vettingClass: 'POLITICAL' });
      expect(wmc).toMatchObject({ outcome: 'refused' });
      expect(wmc.detail).toMatch(/WMC does not offer POLITICAL vets/);
      const cv = await orderVet(env.client, reference, { evpId: 'CV', vettingClass: 'POLITICAL' });
      expect(cv).toMatchObject({ outcome: 'refused' });
      expect(cv.detail).toMatch(/CV does not take new vet orders/);
      const nothing = await harness.api('GET', `/brand/${brandId}/externalVetting`);
      expect(nothing.body).toEqual([]);

      expect(await importVet(env.client, reference, { evpId: 'CV', vettingId: 'cv-token-1' })).toMatchObject({
        outcome: 'done',
      });
      await waitForStatus(handle, (s) => s.vets[0]?.state === 'active');

      const status = await orderVetAndWait(env.client, handle, reference, {
        evpId: 'AEGIS',
        vettingClass: 'POLITICAL',
        politicalPayload: { additionalVettingPayload: { committeeId: 'C00123456' } },
      });
      expect(status.vets[1]).toMatchObject({ evpId: 'AEGIS', vettingClass: 'POLITICAL', state: 'pending' });
      const vets = (await harness.api('GET', `/brand/${brandId}/externalVetting`)).body as {
        evpId: string;
        vettingClass: string;
      }[];
      expect(vets.map((v) => `${v.evpId} ${v.vettingClass}`).sort()).toEqual([
        'AEGIS POLITICAL',
        'CV POLITICAL',
      ]);
    });
  });
});
