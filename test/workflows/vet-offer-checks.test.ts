/**
 * Vet orders and imports checked before money (issue 33): the brand workflow asks the provider's
 * `/enum/extVettingProvider` record (the `vettingProviderOffer` read) before it orders or imports,
 * and refuses a provider the registry does not list, a class it does not offer, an order it does not
 * take (`newVet.supported` false) or an import it does not take (`importVet.supported` false), with
 * nothing sent to the registry. A POLITICAL order's payload reaches the registry call; a Political
 * import for a 501(c)(3-6) non-profit is refused like an order. The fake registry sends the
 * simulator's providers: AEGIS (all three classes), WMC (STANDARD, ENHANCED), CV (POLITICAL, import only).
 */
import { WorkflowUpdateFailedError } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registryEventSignal } from '../../src/contracts/signals.js';
import { importVet, orderVet } from '../../src/orders/index.js';
import { FakeRegistry, fakeVettingProviders } from '../fixtures/workflow-fake-registry.js';
import {
  brandRegistration,
  delivery,
  orderVetAndWait,
  type TestWorkers,
  waitForStatus,
  withWorkers,
} from '../fixtures/workflow-harness.js';
import { timeSkippingEnv } from '../support/temporal-env.js';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await timeSkippingEnv();
});
afterAll(async () => {
  await env?.teardown();
});

const causeOf = (error: unknown) => String((error as Error & { cause?: Error }).cause?.message);

/** A NON_PROFIT brand whose verified tax-exempt status the workflow has seen. */
async function exemptNonProfit(fake: FakeRegistry, orderBrand: TestWorkers['orderBrand'], tax: string) {
  const started = await orderBrand({
    brand: brandRegistration({ entityType: 'NON_PROFIT' }),
    until: (s) => s.phase === 'ready',
  });
  fake.setOptionalAttributes(started.status.brandId!, { taxExemptStatus: tax });
  await started.handle.signal(
    registryEventSignal,
    delivery({ eventType: 'BRAND_IDENTITY_STATUS_UPDATE', brandId: started.status.brandId! }),
  );
  await waitForStatus(started.handle, (s) => s.optionalAttributes.taxExemptStatus === tax);
  return started;
}

describe('vet orders and imports checked against the provider list', () => {
  it('refuses a class the provider does not offer, a provider taking no new vets, and an unknown provider: nothing is ordered', async () => {
    const fake = new FakeRegistry();
    await withWorkers(env, fake.activities(), async ({ orderBrand }) => {
      const { reference, handle } = await orderBrand({ until: (s) => s.phase === 'ready' });

      const wmc = await orderVet(env.client, reference, { evpId: 'WMC', vettingClass: 'POLITICAL' });
      expect(wmc.outcome).toBe('refused');
      expect(wmc.detail).toMatch(/WMC does not offer POLITICAL vets \(it lists STANDARD, ENHANCED\)/);

      const cv = await orderVet(env.client, reference, { evpId: 'CV', vettingClass: 'POLITICAL' });
      expect(cv.outcome).toBe('refused');
      expect(cv.detail).toMatch(/CV does not take new vet orders.*import an existing vet instead/);

      const unknown = await orderVet(env.client, reference, { evpId: 'NOPE', vettingClass: 'STANDARD' });
      expect(unknown.outcome).toBe('refused');
      expect(unknown.detail).toMatch(/NOPE is not in the registry's list of vetting providers/);

      await env.sleep('10 minutes');
      const status = await waitForStatus(handle, () => true);
      expect(fake.callCount('orderExternalVet')).toBe(0);
      expect(status.vets).toEqual([]);
      expect(status.phase).toBe('ready');
      const refusals = status.audit.entries.filter((e) => e.event === 'vet-refused');
      expect(refusals.map((e) => e.detail)).toEqual([
        expect.stringMatching(/WMC does not offer POLITICAL/),
        expect.stringMatching(/CV does not take new vet orders/),
        expect.stringMatching(/NOPE is not in/),
      ]);
    });
  });

  it('refuses an import the provider does not take; an unreadable vettingInstruction goes on, noted in the audit', async () => {
    const fake = new FakeRegistry();
    fake.vettingProviders = [
      ...fakeVettingProviders(),
      {
        evpId: 'NOIMPORT',
        vettingClasses: ['STANDARD'],
        vettingInstruction: JSON.stringify({ importVet: { supported: false }, newVet: { supported: true } }),
      },
      { evpId: 'GARBLED', vettingClasses: ['STANDARD'], vettingInstruction: '{"newVet": {"supported": tr' },
    ];
    await withWorkers(env, fake.activities(), async ({ orderBrand }) => {
      const { reference, handle } = await orderBrand({ until: (s) => s.phase === 'ready' });

      const refused = await importVet(env.client, reference, { evpId: 'NOIMPORT', vettingId: 'v-1' });
      expect(refused.outcome).toBe('refused');
      expect(refused.detail).toMatch(/NOIMPORT does not support importing vets/);
      expect(fake.callCount('importExternalVet')).toBe(0);

      // CV takes imports (not orders): imported.
      const imported = await importVet(env.client, reference, { evpId: 'CV', vettingId: 'cv-1' });
      expect(imported.outcome).toBe('done');

      const ordered = await orderVetAndWait(env.client, handle, reference, {
        evpId: 'GARBLED',
        vettingClass: 'STANDARD',
      });
      expect(ordered.vets.find((v) => v.evpId === 'GARBLED')?.state).toBe('pending');
      expect(fake.callCount('orderExternalVet')).toBe(1);
      expect(fake.callCount('importExternalVet')).toBe(1);
      const note = ordered.audit.entries.find((e) => e.event === 'vet-offer-unknown');
      expect(note?.detail).toMatch(/GARBLED's vettingInstruction does not say .* the registry decides/);
    });
  });

  it("a POLITICAL order's payload reaches the registry call, and stays out of the status and search attributes", async () => {
    const fake = new FakeRegistry();
    await withWorkers(env, fake.activities(), async ({ orderBrand }) => {
      const { reference, handle } = await orderBrand({ until: (s) => s.phase === 'ready' });
      const politicalPayload = {
        additionalVettingPayload: { committeeId: 'C00SECRET1', committeeType: 'FEDERAL', cvToken: 'tok|1|2' },
      };
      const status = await orderVetAndWait(env.client, handle, reference, {
        evpId: 'AEGIS',
        vettingClass: 'POLITICAL',
        politicalPayload,
      });
      expect(status.vets[0]).toMatchObject({ evpId: 'AEGIS', vettingClass: 'POLITICAL', state: 'pending' });
      const orders = fake.vetWrites.filter((w) => w.method === 'orderExternalVet');
      expect(orders).toHaveLength(1);
      expect(orders[0]!.input).toMatchObject({ evpId: 'AEGIS', vettingClass: 'POLITICAL', politicalPayload });
      expect(JSON.stringify(status)).not.toContain('C00SECRET1');
      const vetHandle = env.client.workflow.getHandle(status.vets[0]!.workflowId);
      for (const h of [handle, vetHandle]) {
        const description = await h.describe();
        expect(JSON.stringify(description.searchAttributes)).not.toContain('C00SECRET1');
      }

      // The payload belongs to POLITICAL orders only, and is a JSON object: refused at the edge.
      const standard = await orderVet(env.client, reference, {
        evpId: 'AEGIS',
        vettingClass: 'STANDARD',
        politicalPayload,
      }).catch((e: unknown) => e);
      expect(String(standard)).toMatch(/politicalPayload/);
      const notObject = await orderVet(env.client, reference, {
        evpId: 'AEGIS',
        vettingClass: 'POLITICAL',
        politicalPayload: ['x'] as never,
      }).catch((e: unknown) => e);
      expect(String(notObject)).toMatch(/politicalPayload/);
      expect(fake.callCount('orderExternalVet')).toBe(1);
    });
  });

  it('refuses a Political import for a 501(c)(3) non-profit: a declared class in the validator, a POLITICAL-only provider in the operation', async () => {
    const fake = new FakeRegistry();
    await withWorkers(env, fake.activities(), async ({ orderBrand, account }) => {
      const { reference } = await exemptNonProfit(fake, orderBrand, '501(c)(3)');

      const cv = await importVet(env.client, reference, { evpId: 'CV', vettingId: 'cv-token-1' });
      expect(cv.outcome).toBe('refused');
      expect(cv.detail).toMatch(
        /501\(c\)\(3\) already has Political access and may not import a Political vet/,
      );

      const declared = await importVet(env.client, reference, {
        evpId: 'AEGIS',
        vettingId: 'a-1',
        vettingClass: 'POLITICAL',
      }).catch((e: unknown) => e);
      expect(declared).toBeInstanceOf(WorkflowUpdateFailedError);
      expect(causeOf(declared)).toMatch(/already has Political access and may not import a Political vet/);
      expect(fake.callCount('importExternalVet')).toBe(0);

      // A standard import of the same brand goes through, without the class in the registry body.
      const standard = await importVet(env.client, reference, {
        evpId: 'AEGIS',
        vettingId: 'a-2',
        vettingClass: 'STANDARD',
      });
      expect(standard.outcome).toBe('done');
      await waitForStatus(
        env.client.workflow.getHandle(`brand/${account}/${reference}`),
        (s) => s.vets.length === 1 && s.vets[0]!.state !== 'ordering',
      );
      expect(fake.callCount('importExternalVet')).toBe(1);
      expect(fake.vetWrites[0]!.input).not.toHaveProperty('vettingClass');
    });
  });

  it('an automatic ENHANCED follow-up from a provider that does not offer ENHANCED is rejected without an order', async () => {
    const fake = new FakeRegistry();
    await withWorkers(env, fake.activities(), async ({ orderBrand }) => {
      const {
        reference,
        handle,
        status: ready,
      } = await orderBrand({
        workflowOptions: { enhancedVetPolicy: { belowScore: 50, evpId: 'CV' } },
        until: (s) => s.phase === 'ready',
      });
      const standard = { evpId: 'AEGIS', vettingClass: 'STANDARD' } as const;
      const ordered = await orderVetAndWait(env.client, handle, reference, standard);
      const low = { status: 'ACTIVE', score: 20 };
      fake.decideVet(ready.brandId!, ordered.vets[0]!.vettingId!, low);
      await handle.signal(registryEventSignal, delivery({ eventType: 'EVP_REPORT_SCORE', evpId: 'AEGIS' }));
      const status = await waitForStatus(handle, (s) => s.vets[1]?.state === 'rejected');
      expect(status.vets[1]).toMatchObject({ evpId: 'CV', vettingClass: 'ENHANCED', followUpOf: 1 });
      expect(status.vets[1]!.reasons?.join(' ')).toMatch(/CV does not offer ENHANCED vets/);
      expect(status.needsAction.map((a) => a.key)).toContain('vet-2');
      expect(fake.callCount('orderExternalVet')).toBe(1);
    });
  });
});
