/**
 * The brand and vet workflows with the REAL registry activities (createWorkers) against an in-process
 * registry simulator, on the time-skipping server. The simulator's clock runs in real time at scale 1;
 * workflow time moves only by env.sleep, so outcomes are decided through the control API and the
 * simulator's name markers (UNVERIFIED, NEEDSAPPEAL, NOVERIFY), never by its own timers.
 */
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrandStatus } from '../../src/contracts/brand.js';
import { parkedEventsByReferenceWorkflowId } from '../../src/contracts/ids.js';
import { appealBrand, correctBrand, getBrandStatus } from '../../src/orders/index.js';
import {
  brandRegistration,
  orderVetAndWait,
  publicProfitRegistration,
  recordHistory,
  type TestWorkers,
  uniqueReference,
  waitForStatus,
} from '../fixtures/workflow-harness.js';
import {
  type SimulatorHarness,
  startSubscribedIngress,
  startTestSimulator,
  withSimulatorWorkers,
} from '../fixtures/workflow-simulator.js';
import { timeSkippingEnv } from '../support/temporal-env.js';

let env: TestWorkflowEnvironment;
let harness: SimulatorHarness;
beforeAll(async () => {
  env = await timeSkippingEnv();
  // The spec's rate limits (20 GET/s, 20 writes per 10 s); no webhook subscription: every webhook is lost.
  harness = await startTestSimulator();
});
afterAll(async () => {
  await harness?.sim.close();
  await env?.teardown();
});

async function brandsByReference(h: SimulatorHarness, reference: string) {
  const answer = await h.api('GET', `/brand?referenceId=${encodeURIComponent(reference)}`);
  expect(answer.status).toBe(200);
  return answer.body as { totalRecords: number; records: { brandId: string; referenceId?: string }[] };
}

/** A brand whose company name carries the simulator's `marker`, ordered and waited for in needs-correction. */
const orderStuck = (orderBrand: TestWorkers['orderBrand'], marker: 'UNVERIFIED' | 'NEEDSAPPEAL') =>
  orderBrand({
    brand: brandRegistration({ companyName: `Acme ${marker} Widgets Inc` }),
    until: (s) => s.phase === 'needs-correction',
  });

const transitionTo = (s: BrandStatus, phase: string) =>
  s.audit.entries.find((e) => e.event === 'phase' && e.to === phase);

describe('brand workflow against the registry simulator (time skipping)', () => {
  it('registers with the reference as referenceId and reaches ready', async () => {
    await withSimulatorWorkers(env, harness.sim, async ({ orderBrand }) => {
      const {
        reference,
        handle,
        status: ready,
      } = await orderBrand({
        until: (s) => s.phase === 'ready' && s.waitingFor?.nextPollAt !== undefined,
      });
      const found = await brandsByReference(harness, reference);
      expect(found.totalRecords).toBe(1);
      expect(found.records[0]?.brandId).toBe(ready.brandId);
      expect(ready.identityStatus).toBe('VERIFIED');
      expect(ready.waitingFor?.what).toMatch(/steady/);
      await recordHistory(handle, 'brand-sim-ready');
    });
  });

  it('PUBLIC_PROFIT: contact verified at the simulator, webhook lost, recovered by polling', async () => {
    await withSimulatorWorkers(env, harness.sim, async ({ orderBrand }) => {
      // NOVERIFY: the simulator verifies this contact only through its control API.
      const { handle, status: waiting } = await orderBrand({
        brand: { ...publicProfitRegistration(), businessContactEmail: 'cfo.NOVERIFY@acme.example' },
        until: (s) => s.phase === 'awaiting-contact-verification' && s.waitingFor?.nextPollAt !== undefined,
      });
      expect(waiting.contactVerifiedAt).toBeUndefined();
      await harness.control.verifyContact(waiting.brandId!);
      // Nobody subscribed to the simulator's webhooks: only the reconciliation poll can notice.
      await env.sleep('5 minutes');
      const ready = await waitForStatus(handle, (s) => s.phase === 'ready');
      expect(ready.contactVerifiedAt).toBeDefined();
      expect(transitionTo(ready, 'ready')?.cause).toBe('poll');
      await recordHistory(handle, 'brand-sim-contact-poll');
    });
  });

  it('SOLE_PROPRIETOR: SELF_DECLARED until the mobile phone is verified, then ready', async () => {
    await withSimulatorWorkers(env, harness.sim, async ({ orderBrand }) => {
      // NOVERIFY: the simulator verifies this sole proprietor's phone only through its control API.
      const brand = {
        entityType: 'SOLE_PROPRIETOR' as const,
        displayName: 'Jane Doe Tutoring',
        firstName: 'Jane',
        lastName: 'Doe',
        mobilePhone: '+12025550199',
        street: '9 Elm St',
        city: 'Austin',
        state: 'TX',
        postalCode: '73301',
        country: 'US',
        email: 'jane.NOVERIFY@example.com',
      };
      const { handle, status: waiting } = await orderBrand({
        brand,
        until: (s) =>
          s.phase === 'awaiting-sole-proprietor-verification' && s.waitingFor?.nextPollAt !== undefined,
      });
      expect(waiting.identityStatus).toBe('SELF_DECLARED');
      await harness.control.verifyContact(waiting.brandId!);
      await env.sleep('5 minutes');
      const ready = await waitForStatus(handle, (s) => s.phase === 'ready');
      expect(ready.identityStatus).toBe('SELF_DECLARED');
      expect(transitionTo(ready, 'ready')?.detail).toMatch(/sole proprietor verified/);
    });
  });

  it('UNVERIFIED (name marker) → correctBrand + revet → ready', async () => {
    await withSimulatorWorkers(env, harness.sim, async ({ orderBrand }) => {
      const { reference, handle, status: stuck } = await orderStuck(orderBrand, 'UNVERIFIED');
      expect(stuck.identityStatus).toBe('UNVERIFIED');
      expect(stuck.needsAction.map((a) => a.key)).toContain('identity');
      const corrected = await correctBrand(env.client, reference, {
        patch: { companyName: 'Acme Widgets Inc' },
        revet: true,
      });
      expect(corrected).toMatchObject({ outcome: 'done', phase: 'ready' });
      const after = await getBrandStatus(env.client, reference);
      expect(after.identityStatus).toBe('VERIFIED');
      expect(after.needsAction).toEqual([]);
      const record = (await harness.api('GET', `/brand/${stuck.brandId}`)).body as { companyName: string };
      expect(record.companyName).toBe('Acme Widgets Inc');
      expect(after.audit.entries.map((e) => e.event)).toEqual(
        expect.arrayContaining(['brand-updated', 'revet']),
      );
      await recordHistory(handle, 'brand-sim-correct-revet');
    });
  });

  it('NEEDSAPPEAL → appeal → appeal-pending → approved at the simulator → ready', async () => {
    await withSimulatorWorkers(env, harness.sim, async ({ orderBrand }) => {
      const { reference, handle, status: stuck } = await orderStuck(orderBrand, 'NEEDSAPPEAL');
      const pending = await appealBrand(env.client, reference, {
        appealCategories: ['VERIFY_IDENTITY'],
        attachmentUuids: [],
        explanation: 'Our company data is correct; see the attached registration.',
      });
      expect(pending.phase).toBe('appeal-pending');
      // The review is due after a simulated day; the control API decides it now (rule: approve).
      await harness.control.decideAppeal(stuck.brandId!);
      await env.sleep('5 minutes');
      const ready = await waitForStatus(handle, (s) => s.phase === 'ready');
      expect(ready.identityStatus).toBe('VERIFIED');
      expect(transitionTo(ready, 'ready')?.from).toBe('appeal-pending');
      await recordHistory(handle, 'brand-sim-appeal');
    });
  });

  it('a vet ordered at the simulator and decided through the control API: score recorded, VETTED_VERIFIED', async () => {
    await withSimulatorWorkers(env, harness.sim, async ({ orderBrand }) => {
      const { reference, handle, status: ready } = await orderBrand({ until: (s) => s.phase === 'ready' });
      const ordered = await orderVetAndWait(env.client, handle, reference, {
        evpId: 'AEGIS',
        vettingClass: 'STANDARD',
      });
      const vet = ordered.vets[0];
      expect(vet?.state).toBe('pending');
      expect(vet?.vettingId).toBeDefined();
      await harness.control.decideVet(vet!.vettingId!, { outcome: 'ACTIVE', score: 81 }, ready.brandId);
      await env.sleep('2 minutes'); // the vet's first poll (1 min)
      const vetted = await waitForStatus(
        handle,
        (s) => s.vets[0]?.state === 'active' && s.identityStatus === 'VETTED_VERIFIED',
      );
      expect(vetted.vets[0]?.score).toBe(81);
      expect(vetted.phase).toBe('ready');
      await recordHistory(handle, 'brand-sim-vet-active');
    });
  });

  it('a registry timeout after commit on POST /brand/nonBlocking: exactly one brand at the simulator', async () => {
    await withSimulatorWorkers(env, harness.sim, async ({ orderBrand }) => {
      await harness.control.addFault({
        kind: 'timeout-after-commit',
        method: 'POST',
        pathPattern: '^/v2/brand/nonBlocking$',
        delayMs: 200,
      });
      const {
        reference,
        handle,
        status: ready,
      } = await orderBrand({ until: (s) => s.phase === 'ready', timeoutMs: 30_000 });
      expect(await harness.control.faults()).toEqual([]); // the fault fired
      const found = await brandsByReference(harness, reference);
      expect(found.totalRecords).toBe(1);
      expect(found.records[0]?.brandId).toBe(ready.brandId);
      await recordHistory(handle, 'brand-sim-timeout-after-commit');
    });
  });

  it('a 429 storm is back-pressure: the brand still reaches ready', async () => {
    await withSimulatorWorkers(env, harness.sim, async ({ orderBrand }) => {
      await harness.control.addFault({ kind: 'rate-limit', count: 5, retryAfterSeconds: 1 });
      const started = Date.now();
      const { reference, status: ready } = await orderBrand({
        until: (s) => s.phase === 'ready',
        timeoutMs: 60_000,
      });
      expect(await harness.control.faults()).toEqual([]); // all five 429s were answered
      // Each 429 was retried after the registry's Retry-After (1 s), not at once.
      expect(Date.now() - started).toBeGreaterThanOrEqual(4_000);
      expect(ready.needsAction).toEqual([]);
      expect((await brandsByReference(harness, reference)).totalRecords).toBe(1);
    });
  });
});

describe('webhooks through the real ingress (time skipping)', () => {
  let hooked: SimulatorHarness;
  beforeAll(async () => {
    hooked = await startTestSimulator({ rateLimits: false });
  });
  afterAll(async () => {
    await hooked?.sim.close();
  });

  it('events parked under the brand reference before the workflow started are claimed at start', async () => {
    await withSimulatorWorkers(env, hooked.sim, async ({ account, taskQueue, orderBrand }) => {
      const ingress = await startSubscribedIngress(env.client, hooked, ['BRAND'], taskQueue, account);
      try {
        const reference = uniqueReference('parked');
        // The brand is registered at the registry before its workflow exists (e.g. by an earlier
        // attempt of the order system); its events are parked by reference.
        const registered = await hooked.api('POST', '/brand/nonBlocking', {
          ...brandRegistration(),
          referenceId: reference,
        });
        expect(registered.status).toBe(200);
        await hooked.control.waitForDelivery(
          (d) => d.outcome === 'DELIVERED' && d.event.brandReferenceId === reference,
          { timeoutMs: 10_000 },
        );
        const parkedId = parkedEventsByReferenceWorkflowId('brand', reference, account);
        const parked = env.client.workflow.getHandle(parkedId);
        expect((await parked.describe()).status.name).toBe('RUNNING');

        const { status } = await orderBrand({
          reference,
          until: (s) => s.phase === 'ready' && s.audit.entries.some((e) => e.cause === 'webhook'),
        });
        const claim = status.audit.entries.find((e) => e.event === 'claimed-parked-events');
        expect(claim?.detail).toBe(parkedId);
        // The registration found the brand by its reference: still one brand.
        expect((await brandsByReference(hooked, reference)).totalRecords).toBe(1);
        expect(status.brandId).toBe((registered.body as { brandId: string }).brandId);
        await parked.terminate('test finished').catch(() => undefined);
      } finally {
        await ingress.close();
      }
    });
  });

  it('a vetting webhook is forwarded by the brand to its vet child, which wakes before its first poll', async () => {
    await withSimulatorWorkers(env, hooked.sim, async ({ account, taskQueue, orderBrand }) => {
      const ingress = await startSubscribedIngress(
        env.client,
        hooked,
        ['BRAND', 'VETTING'],
        taskQueue,
        account,
      );
      try {
        const {
          reference,
          handle,
          status: ready,
        } = await orderBrand({
          // The vet polls only after 6 h of workflow time, which this test never lets pass.
          workflowOptions: { vetPoll: { initialMs: 6 * 3_600_000, maxMs: 6 * 3_600_000, factor: 2 } },
          until: (s) => s.phase === 'ready',
        });
        const ordered = await orderVetAndWait(env.client, handle, reference, {
          evpId: 'WMC',
          vettingClass: 'STANDARD',
        });
        const vettingId = ordered.vets[0]!.vettingId!;
        await hooked.control.decideVet(vettingId, { outcome: 'ACTIVE', score: 79 }, ready.brandId);
        const scored = await hooked.control.waitForDelivery(
          (d) =>
            d.outcome === 'DELIVERED' &&
            d.eventType === 'EVP_REPORT_SCORE' &&
            d.event.vettingId === vettingId,
          { timeoutMs: 10_000 },
        );
        expect(scored.event).toMatchObject({ evpId: 'WMC', brandReferenceId: reference });
        const vetted = await waitForStatus(
          handle,
          (s) => s.vets[0]?.state === 'active' && s.identityStatus === 'VETTED_VERIFIED',
        );
        expect(vetted.vets[0]?.score).toBe(79);
        const vetEntry = vetted.audit.entries.find((e) => e.event === 'vet' && e.to === 'active');
        expect(vetEntry?.cause).toBe('webhook'); // the child was woken by the forwarded event
        await recordHistory(handle, 'brand-sim-vet-webhook-forwarded');
      } finally {
        await ingress.close();
      }
    });
  });
});
