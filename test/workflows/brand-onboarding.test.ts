import { WorkflowUpdateFailedError } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appealUpdate, correctBrandUpdate } from '../../src/contracts/brand-operations.js';
import { registryEventSignal } from '../../src/contracts/signals.js';
import {
  appealBrand,
  cancelBrand,
  correctBrand,
  getBrandStatus,
  importVet,
  OrderValidationError,
  RequestValidationError,
  revetBrand,
  startBrandOrder,
} from '../../src/orders/index.js';
import { FakeRegistry } from '../fixtures/workflow-fake-registry.js';
import {
  brandRegistration,
  delivery,
  publicProfitRegistration,
  recordHistory,
  uniqueReference,
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

function fakeActivities(fake: FakeRegistry) {
  return { reads: fake.readActivities(), writes: fake.writeActivities() };
}

/** The status once the loop waits in awaiting-contact-verification (its read done, a poll planned). */
function waitingForContact(handle: Parameters<typeof waitForStatus>[0]) {
  return waitForStatus(
    handle,
    (s) => s.phase === 'awaiting-contact-verification' && s.waitingFor?.nextPollAt !== undefined,
  );
}

describe('order validation at the edge', () => {
  it('refuses a bad order with every field error and starts nothing', async () => {
    const reference = uniqueReference();
    const bad = {
      reference,
      account: 'acme',
      brand: { ...publicProfitRegistration(), businessContactEmail: undefined, email: 'nope' },
    };
    const error = await startBrandOrder(env.client, bad).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OrderValidationError);
    const paths = (error as OrderValidationError).errors.map((e) => e.path);
    expect(paths).toEqual(expect.arrayContaining(['brand.email', 'brand.businessContactEmail']));
    await expect(env.client.workflow.getHandle(`brand/${reference}`).describe()).rejects.toThrow();
  });

  it('refuses a bad reference and account', async () => {
    const error = await startBrandOrder(env.client, {
      reference: 'bad ref/x',
      account: '',
      brand: brandRegistration(),
    }).catch((e: unknown) => e);
    expect((error as OrderValidationError).errors.map((e) => e.path).sort()).toEqual([
      'account',
      'reference',
    ]);
  });
});

describe('brand onboarding', () => {
  it('registers a VERIFIED brand and reaches ready, with the reference as referenceId; a second start registers nothing', async () => {
    const fake = new FakeRegistry();
    await withWorkers(env, fakeActivities(fake), async ({ taskQueue, account, track }) => {
      const reference = uniqueReference();
      const order = { reference, account, brand: brandRegistration() };
      const { handle } = await startBrandOrder(env.client, order, { taskQueue });
      track(handle);
      const status = await waitForStatus(handle, (s) => s.phase === 'ready');
      const brand = fake.brandByReference(reference);
      expect(brand?.referenceId).toBe(reference);
      expect(status.brandId).toBe(brand?.brandId);
      expect(status.identityStatus).toBe('VERIFIED');
      expect(status.needsAction).toEqual([]);
      expect(status.audit.entries.map((e) => e.event)).toEqual(
        expect.arrayContaining(['started', 'registered', 'phase']),
      );
      expect(handle.workflowId).toBe(`brand/${account}/${reference}`);

      const again = await startBrandOrder(env.client, order, { taskQueue });
      expect(again.handle.workflowId).toBe(handle.workflowId);
      expect(fake.brands.size).toBe(1);
      expect(fake.callCount('registerBrand')).toBe(1);
      await recordHistory(handle, 'brand-ready');
    });
  });

  it('PUBLIC_PROFIT waits for business contact verification; a dropped webhook is recovered by polling', async () => {
    const fake = new FakeRegistry();
    await withWorkers(env, fakeActivities(fake), async ({ orderBrand }) => {
      const { handle } = await orderBrand({ brand: publicProfitRegistration() });
      const waiting = await waitingForContact(handle);
      expect(waiting.waitingFor?.what).toMatch(/contact/);
      expect(waiting.waitingFor?.nextPollAt).toBeDefined();
      fake.verifyContact(waiting.brandId!);
      // No webhook: the next reconciliation poll (1 min, doubling) finds the verification.
      await env.sleep('5 minutes');
      const ready = await waitForStatus(handle, (s) => s.phase === 'ready');
      expect(ready.contactVerifiedAt).toBeDefined();
      const transition = ready.audit.entries.find((e) => e.event === 'phase' && e.to === 'ready');
      expect(transition?.cause).toBe('poll');
    });
  });

  it('the status query shows what the loop waits for only while it waits, not while a wake is being handled', async () => {
    const fake = new FakeRegistry();
    await withWorkers(env, fakeActivities(fake), async ({ orderBrand }) => {
      const { handle } = await orderBrand({ brand: publicProfitRegistration() });
      const waiting = await waitingForContact(handle);
      // The wake's read is held at the registry: the loop is awake, not waiting.
      const read = fake.block('getBrand');
      await handle.signal(
        registryEventSignal,
        delivery({ eventType: 'BRAND_IDENTITY_STATUS_UPDATE', brandId: waiting.brandId! }),
      );
      await read.reached;
      const awake = await getBrandStatus(env.client, waiting.reference);
      expect(awake.waitingFor).toBeUndefined();
      read.release();
      // Waiting again (nothing changed at the registry): what for, and until when, again.
      const again = await waitingForContact(handle);
      expect(again.waitingFor?.what).toMatch(/contact/);
    });
  });

  it('a webhook wakes the workflow at once; duplicates and unknown event types do no harm', async () => {
    const fake = new FakeRegistry();
    await withWorkers(env, fakeActivities(fake), async ({ orderBrand }) => {
      const { reference, handle } = await orderBrand({ brand: publicProfitRegistration() });
      // Wait until the loop waits (its first read done), so only the webhook can move it on.
      const waiting = await waitingForContact(handle);
      await handle.signal(
        registryEventSignal,
        delivery({ eventType: 'SOMETHING_NEW_FROM_THE_REGISTRY', brandId: waiting.brandId! }),
      );
      fake.verifyContact(waiting.brandId!);
      const event = delivery({
        eventType: 'BRAND_IDENTITY_STATUS_UPDATE',
        brandId: waiting.brandId!,
        brandReferenceId: reference,
      });
      await handle.signal(registryEventSignal, event);
      await handle.signal(registryEventSignal, event);
      const ready = await waitForStatus(handle, (s) => s.phase === 'ready');
      expect(ready.audit.entries.find((e) => e.to === 'ready')?.cause).toBe('webhook');
      const events = ready.audit.entries.filter((e) => e.event === 'event');
      expect(events.map((e) => e.detail)).toEqual([
        'SOMETHING_NEW_FROM_THE_REGISTRY',
        'BRAND_IDENTITY_STATUS_UPDATE',
      ]);
      await recordHistory(handle, 'brand-contact-webhook');
    });
  });

  it('sole proprietors wait in their own phase until the registry reports them verified', async () => {
    const fake = new FakeRegistry();
    await withWorkers(env, fakeActivities(fake), async ({ taskQueue, account, track }) => {
      const reference = uniqueReference();
      const brand = {
        entityType: 'SOLE_PROPRIETOR',
        displayName: 'Jane Doe Plumbing',
        firstName: 'Jane',
        lastName: 'Doe',
        country: 'US',
        email: 'jane@example.com',
        mobilePhone: '+12025550199',
      };
      const { handle } = await startBrandOrder(env.client, { reference, account, brand }, { taskQueue });
      track(handle);
      const waiting = await waitForStatus(handle, (s) => s.phase === 'awaiting-sole-proprietor-verification');
      expect(waiting.identityStatus).toBe('SELF_DECLARED');
      fake.setIdentity(waiting.brandId!, 'VERIFIED');
      await env.sleep('3 minutes');
      await waitForStatus(handle, (s) => s.phase === 'ready');
    });
  });

  it('UNVERIFIED → needs-correction → correctBrand + revet → ready', async () => {
    const fake = new FakeRegistry();
    fake.identityOnRegister = () => 'UNVERIFIED';
    fake.identityOnRevet = 'VERIFIED';
    await withWorkers(env, fakeActivities(fake), async ({ orderBrand }) => {
      const {
        reference,
        handle,
        status: stuck,
      } = await orderBrand({ until: (s) => s.phase === 'needs-correction' });
      expect(stuck.needsAction.map((a) => a.key)).toEqual(['identity']);
      expect(stuck.needsAction[0]?.reason).toMatch(/UNVERIFIED/);
      const described = await handle.describe();
      expect(
        described.typedSearchAttributes.getAll().find((p) => p.key.name === 'TcrNeedsAction')?.value,
      ).toBe(true);

      const corrected = await correctBrand(env.client, reference, { patch: { street: '2 Main St' } });
      expect(corrected.phase).toBe('needs-correction');
      const revetted = await revetBrand(env.client, reference);
      expect(revetted).toMatchObject({ operation: 'revet', outcome: 'done', phase: 'ready' });
      const after = await getBrandStatus(env.client, reference);
      expect(after.needsAction).toEqual([]);
      expect(after.audit.entries.filter((e) => e.cause === 'operator').map((e) => e.event)).toEqual(
        expect.arrayContaining(['brand-updated', 'revet']),
      );
      expect(fake.brand(after.brandId!).registration.street).toBe('2 Main St');
      await recordHistory(handle, 'brand-correct-revet');
    });
  });

  it('correctBrand({revet: true}) corrects and revets in one step', async () => {
    const fake = new FakeRegistry();
    fake.identityOnRegister = () => 'UNVERIFIED';
    await withWorkers(env, fakeActivities(fake), async ({ orderBrand }) => {
      const { reference } = await orderBrand({
        until: (s) => s.phase === 'needs-correction',
      });
      const status = await correctBrand(env.client, reference, {
        patch: { companyName: 'Acme Widgets LLC' },
        revet: true,
      });
      expect(status.phase).toBe('ready');
      expect(fake.callCount('revetBrand')).toBe(1);
    });
  });

  it('appeal → appeal-pending → identity update webhook → ready', async () => {
    const fake = new FakeRegistry();
    fake.identityOnRegister = () => 'UNVERIFIED';
    await withWorkers(env, fakeActivities(fake), async ({ orderBrand }) => {
      const {
        reference,
        handle,
        status: stuck,
      } = await orderBrand({ until: (s) => s.phase === 'needs-correction' });
      const appealed = await appealBrand(env.client, reference, {
        appealCategories: ['VERIFY_TAX_ID'],
        attachmentUuids: ['att-1'],
        explanation: 'The EIN is correct; see the IRS letter attached.',
      });
      expect(appealed).toMatchObject({ outcome: 'done', phase: 'appeal-pending' });
      expect((await getBrandStatus(env.client, reference)).needsAction).toEqual([]);
      expect(fake.appeals).toHaveLength(1);
      fake.setIdentity(stuck.brandId!, 'VERIFIED');
      await handle.signal(
        registryEventSignal,
        delivery({
          eventType: 'BRAND_IDENTITY_STATUS_UPDATE',
          brandId: stuck.brandId!,
          brandIdentityStatus: 'VERIFIED',
        }),
      );
      await waitForStatus(handle, (s) => s.phase === 'ready');
    });
  });

  it('update validators refuse bad requests synchronously, and they never enter history', async () => {
    const fake = new FakeRegistry();
    await withWorkers(env, fakeActivities(fake), async ({ taskQueue, account, track }) => {
      const reference = uniqueReference();
      const { handle } = await startBrandOrder(
        env.client,
        { reference, account, brand: brandRegistration() },
        // The test skips 92 days: a monthly reconciliation poll keeps that jump to a few dozen events.
        { taskQueue, workflowOptions: { steadyPollMs: 30 * 24 * 3600_000 } },
      );
      track(handle);
      await waitForStatus(handle, (s) => s.phase === 'ready');
      const refused = async (p: Promise<unknown>, pattern: RegExp) => {
        const error = await p.catch((e: unknown) => e);
        expect(error).toBeInstanceOf(WorkflowUpdateFailedError);
        expect(String((error as Error & { cause?: Error }).cause?.message)).toMatch(pattern);
      };
      // The typed API refuses a malformed request at the edge, before anything is sent ...
      const atEdge = await correctBrand(env.client, reference, { patch: { email: 'not-an-email' } }).catch(
        (e: unknown) => e,
      );
      expect(atEdge).toBeInstanceOf(RequestValidationError);
      expect(String(atEdge)).toMatch(/patch\.email/);
      // ... and the workflow's own validators refuse what a raw client sends past it.
      const raw = (update: typeof correctBrandUpdate | typeof appealUpdate, request: unknown) =>
        handle.executeUpdate(update as typeof correctBrandUpdate, { args: [request as never] });
      await refused(
        raw(correctBrandUpdate, { patch: { favouriteColour: 'red' } }),
        /patch.favouriteColour: unknown field/,
      );
      await refused(raw(correctBrandUpdate, { patch: {} }), /at least one field/);
      await refused(
        raw(correctBrandUpdate, { patch: { email: 'ops@acme.example' }, revet: 'yes' }),
        /revet:/,
      );
      await refused(revetBrand(env.client, reference), /UNVERIFIED/);
      await refused(raw(appealUpdate, { appealCategories: [], explanation: '' }), /appealCategories/);

      // group 3: once, then refused within 3 months
      const first = await correctBrand(env.client, reference, { patch: { displayName: 'Acme Two' } });
      expect(first.outcome).toBe('done');
      expect((await getBrandStatus(env.client, reference)).lastGroup3UpdateAt).toMatch(/^\d{4}-/);
      await refused(
        correctBrand(env.client, reference, { patch: { vertical: 'TECHNOLOGY' } }),
        /group 3 .* next update allowed from/,
      );

      // group 1 with an external vet on record
      await importVet(env.client, reference, { evpId: 'AEGIS', vettingId: 'IMPORTED-1' });
      await refused(
        correctBrand(env.client, reference, { patch: { ein: '98-7654321' } }),
        /group 1 .* no external vets/,
      );

      const history = await handle.fetchHistory();
      const accepted = (history.events ?? []).filter(
        (e) => e.workflowExecutionUpdateAcceptedEventAttributes,
      ).length;
      expect(accepted).toBe(2); // the group 3 update and the import; refusals left no trace
      expect(fake.callCount('updateBrand')).toBe(1);

      // three months later group 3 may change again
      await env.sleep('92 days');
      const later = await correctBrand(env.client, reference, { patch: { vertical: 'TECHNOLOGY' } });
      expect(later.outcome).toBe('done');
      expect(fake.callCount('updateBrand')).toBe(2);
    });
  });

  it('a group 1 correction is refused while the brand has active campaigns', async () => {
    const fake = new FakeRegistry();
    await withWorkers(env, fakeActivities(fake), async ({ orderBrand }) => {
      const { reference, status: ready } = await orderBrand({
        until: (s) => s.phase === 'ready',
      });
      fake.activeCampaigns.set(ready.brandId!, 2);
      const outcome = await correctBrand(env.client, reference, { patch: { companyName: 'Other' } });
      expect(outcome).toMatchObject({ outcome: 'refused', phase: 'ready' });
      expect(outcome.detail).toMatch(/no active campaigns \(it has 2\)/);
      expect(fake.callCount('updateBrand')).toBe(0);
    });
  });

  it('a registry refusal of the registration becomes an operator action; correctBrand fixes the registration', async () => {
    const fake = new FakeRegistry();
    fake.refuse('registerBrand', 'EIN does not match the company name');
    await withWorkers(env, fakeActivities(fake), async ({ orderBrand }) => {
      const { reference, status: rejected } = await orderBrand({
        until: (s) => s.phase === 'registration-rejected',
      });
      expect(rejected.needsAction[0]?.key).toBe('registration');
      expect(rejected.needsAction[0]?.registryErrors?.[0]?.description).toBe(
        'EIN does not match the company name',
      );
      const fixed = await correctBrand(env.client, reference, { patch: { ein: '98-7654321' } });
      expect(fixed.phase).toBe('ready');
      expect(fake.brandByReference(reference)?.registration.ein).toBe('98-7654321');
    });
  });

  // "A registry timeout after commit registers exactly one brand" is tested where it can fail: with the
  // real activity and client against the simulator (brand-simulator.test.ts), not against this fake,
  // which implements the activity's look-up-before-create itself.

  it('a 429 storm is back-pressure: retried after the registry delay, never a failure', async () => {
    const fake = new FakeRegistry();
    fake.rateLimit('registerBrand', 4, 100);
    fake.rateLimit('getBrand', 4, 100);
    await withWorkers(env, fakeActivities(fake), async ({ orderBrand }) => {
      const { handle } = await orderBrand({
        until: (s) => s.phase === 'ready',
      });
      // A webhook wakes a read, which meets the storm too.
      await handle.signal(registryEventSignal, delivery({ eventType: 'BRAND_IDENTITY_STATUS_UPDATE' }));
      const ready = await waitForStatus(
        handle,
        (s) => s.phase === 'ready' && fake.callCount('getBrand') >= 5,
        30_000,
      );
      expect(fake.callCount('registerBrand')).toBe(5);
      expect(fake.callCount('getBrand')).toBeGreaterThanOrEqual(5);
      expect(ready.needsAction).toEqual([]);
      expect(fake.brands.size).toBe(1);
    });
  });

  it('ends when the registry reports the brand deleted, and on cancel', async () => {
    const fake = new FakeRegistry();
    await withWorkers(env, fakeActivities(fake), async ({ orderBrand }) => {
      const { handle, status: ready } = await orderBrand({ until: (s) => s.phase === 'ready' });
      fake.deleteBrand(ready.brandId!);
      // The safety poll (7 days ± 20 %) notices; waiting for the result lets time skip to it.
      const result = await handle.result();
      expect(result.phase).toBe('deleted');

      const other = await orderBrand({ until: (s) => s.phase === 'ready' });
      const cancelled = await cancelBrand(env.client, other.reference, 'customer withdrew');
      expect(cancelled.phase).toBe('cancelled');
      expect((await other.handle.result()).status.cancelReason).toBe('customer withdrew');
    });
  });
});
