/**
 * The campaign workflow's own claim of parked events (the routing tests use a stand-in owner that
 * re-implements the claim, so they cannot see the real workflow's). On the time-skipping server with
 * the simulator and the real activities (the campaign bench):
 * - an event the ingress's router parked under the campaign's reference before the workflow existed
 *   is claimed when the workflow starts;
 * - an event parked under the campaign's registry id before the workflow learned that id is claimed
 *   once the campaign is created (the create's answer is held after the commit until the client
 *   times out, so the test can read the id at the registry and park under it first).
 */
import { randomUUID } from 'node:crypto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  brandWorkflowId,
  campaignWorkflowId,
  parkedEventsByReferenceWorkflowId,
  parkedEventsWorkflowId,
} from '../../src/contracts/ids.js';
import { registryEventSignal } from '../../src/contracts/signals.js';
import { EventRouter } from '../../src/ingress/router.js';
import { getBrandStatus, startBrandOrder } from '../../src/orders/brand-client.js';
import { getCampaignStatus } from '../../src/orders/campaign-orders.js';
import type { RegistryEvent } from '../../src/registry/events.js';
import { type ParkedEventsInput, parkedEventsQuery } from '../../src/workflows/parked-events.js';
import {
  type CampaignBench,
  orderBenchBrand,
  orderBenchCampaign,
  privateBrand,
  startCampaignBench,
  uniqueRef,
} from '../fixtures/campaign-env.js';
import { timeSkippingEnv } from '../support/temporal-env.js';

let env: TestWorkflowEnvironment;
let bench: CampaignBench;
const handles: { terminate(reason?: string): Promise<unknown> }[] = [];

beforeAll(async () => {
  env = await timeSkippingEnv();
  // A 15 s registry timeout (5x the usual 3 s): the tests below park an event and read the status
  // between a create's commit and the moment the workflow learns the id (the timeout), which must
  // not be a race on a loaded machine.
  bench = await startCampaignBench(env, { registryTimeoutMs: 15_000 });
});
afterAll(async () => {
  await Promise.allSettled(handles.splice(0).map((h) => h.terminate('test done')));
  await bench?.close();
  await env?.teardown();
});

/** Polls `check` every 50 ms until it gives a value (the test's own timeout bounds the wait). */
async function until<T>(check: () => Promise<T | undefined>): Promise<T> {
  for (;;) {
    const value = await check().catch(() => undefined);
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function readyBrand(): Promise<string> {
  const { brandReference } = await orderBenchBrand(bench, (h) => handles.push(h), { until: 'ready' });
  return brandReference;
}

/** The references of the campaigns started so far, in this file. */
const campaignReferences: string[] = [];

async function startCampaign(reference: string, brandReference: string) {
  const { handle } = await orderBenchCampaign(bench, brandReference, { reference });
  handles.push(handle);
  campaignReferences.push(reference);
  return handle;
}

/** The parked events workflow `parkedId` forwarded its one event to the campaign `reference` and holds none. */
async function expectForwardedOnce(parkedId: string, reference: string) {
  const parked = await env.client.workflow.getHandle(parkedId).query(parkedEventsQuery);
  expect({ owner: parked.ownerWorkflowId, forwarded: parked.forwarded, held: parked.held.length }).toEqual({
    owner: campaignWorkflowId(bench.account, reference),
    forwarded: 1,
    held: 0,
  });
}

const delivery = (event: RegistryEvent) => ({
  event,
  receivedAt: new Date().toISOString(),
  deliveryId: randomUUID(),
});

/**
 * Parks `event` under a registry id, as the router does with an event that names only that id and
 * finds no owner for it; returns the parked workflow's id.
 */
async function parkUnderRegistryId(
  kind: 'brand' | 'campaign',
  id: string,
  event: RegistryEvent,
): Promise<string> {
  const workflowId = parkedEventsWorkflowId(kind, id, bench.account);
  const input: ParkedEventsInput = { kind, keyType: 'registryId', key: id };
  await env.client.workflow.signalWithStart('parkedEvents', {
    workflowId,
    taskQueue: bench.taskQueue,
    args: [input],
    signal: registryEventSignal,
    signalArgs: [delivery(event)],
  });
  handles.push(env.client.workflow.getHandle(workflowId));
  return workflowId;
}

/** The campaign's status once it has acted on `n` distinct deliveries. */
const receivedAtLeast = (reference: string, n: number) =>
  until(async () => {
    const status = await getCampaignStatus(env.client, reference);
    return status.deliveries.received >= n ? status : undefined;
  });

describe('the campaign workflow claims its parked events', () => {
  it('parked under its reference before it started: claimed at start and delivered once', async () => {
    const brandReference = await readyBrand();
    const reference = uniqueRef('camp');
    const router = new EventRouter({
      client: env.client,
      parkedTaskQueue: bench.taskQueue,
      parkedRetentionMs: 86_400_000,
    });
    const parkedDelivery = delivery({
      eventType: 'CAMPAIGN_NUDGE',
      campaignReferenceId: reference,
      description: 'parked before the workflow existed',
    } as RegistryEvent);
    const routed = await router.route(parkedDelivery, bench.account);
    const parkedId = parkedEventsByReferenceWorkflowId('campaign', reference, bench.account);
    expect(routed).toEqual({ action: 'parked', kind: 'campaign', via: 'reference', workflowId: parkedId });

    await startCampaign(reference, brandReference);
    const status = await receivedAtLeast(reference, 1);
    expect(
      status.audit.entries.filter((e) => e.event === 'claimed-parked-events').map((e) => e.detail),
    ).toContain(parkedId);
    expect(
      status.audit.entries.some((e) => e.event === 'event' && e.detail?.startsWith('CAMPAIGN_NUDGE')),
    ).toBe(true);
    await expectForwardedOnce(parkedId, reference);
    expect(status.deliveries).toEqual({ received: 1, duplicates: 0 });
  });

  it('parked under its campaignId before it learned the id: claimed once created, delivered once', async () => {
    const brandReference = await readyBrand();
    const reference = uniqueRef('camp');
    // The create commits at the registry, then its answer is held (until the client's 15 s timeout) and
    // the connection dropped; the workflow finds the campaign by reference afterwards. Meanwhile the
    // test parks an event under the id.
    // The earlier cases' campaigns may still be creating (the first case ends as its campaign starts
    // to create): their create must not take this fault. Terminating a workflow does not stop an
    // activity already running, so each is awaited until it has its id (its create answered) first. A
    // full-suite run failed without this: this case's create was answered at once (the case took 1.2 s;
    // the fault holds an answer 15 s), so another create had taken the fault, the first case's.
    for (const earlier of campaignReferences.splice(0))
      await until(async () => (await getCampaignStatus(env.client, earlier)).campaignId);
    await Promise.allSettled(handles.splice(0).map((h) => h.terminate('an earlier case, done')));
    await bench.control.addFault({
      kind: 'timeout-after-commit',
      method: 'POST',
      pathPattern: '^/v2/campaignBuilder$',
      delayMs: 20_000,
      count: 1,
    });
    await startCampaign(reference, brandReference);
    const campaignId = await until(
      async () => (await bench.registry.findCampaignByReference(reference))?.campaignId,
    );
    const parkedId = await parkUnderRegistryId('campaign', campaignId, {
      eventType: 'CAMPAIGN_NUDGE',
      campaignId,
    } as RegistryEvent);
    // Still before the workflow knows the id: the create's answer has not come back.
    expect(
      (await getCampaignStatus(env.client, reference)).campaignId,
      'the workflow knew the id before its create was answered: did another create take the fault?',
    ).toBeUndefined();

    const status = await receivedAtLeast(reference, 1);
    expect(status.campaignId).toBe(campaignId);
    expect(
      status.audit.entries.filter((e) => e.event === 'claimed-parked-events').map((e) => e.detail),
    ).toContain(parkedId);
    await expectForwardedOnce(parkedId, reference);
    expect(status.deliveries).toEqual({ received: 1, duplicates: 0 });
  });
});

describe('the brand workflow claims its parked events', () => {
  it('parked under its brandId before it learned the id: claimed once registered, delivered once', async () => {
    const reference = uniqueRef('brand');
    // The registration commits at the registry, then its answer is held (past the client's 15 s
    // timeout) and the connection dropped; the retried activity finds the brand by reference.
    // Meanwhile the test parks an event that names only the brand id, as the router would.
    await bench.control.addFault({
      kind: 'timeout-after-commit',
      method: 'POST',
      pathPattern: '^/v2/brand/nonBlocking$',
      delayMs: 20_000,
      count: 1,
    });
    const { handle } = await startBrandOrder(
      env.client,
      { reference, account: bench.account, brand: privateBrand() },
      { taskQueue: bench.taskQueue },
    );
    handles.push(handle);
    const brandId = await until(async () => (await bench.registry.findBrandByReference(reference))?.brandId);
    const parkedId = await parkUnderRegistryId('brand', brandId, {
      eventType: 'BRAND_IDENTITY_STATUS_UPDATE',
      brandId,
    } as RegistryEvent);
    // Still before the workflow knows the id: the registration's answer has not come back.
    expect((await getBrandStatus(env.client, reference)).brandId).toBeUndefined();

    const status = await until(async () => {
      const s = await getBrandStatus(env.client, reference);
      return s.audit.entries.some((e) => e.event === 'event' && e.detail === 'BRAND_IDENTITY_STATUS_UPDATE')
        ? s
        : undefined;
    });
    expect(status.brandId).toBe(brandId);
    expect(
      status.audit.entries.filter((e) => e.event === 'claimed-parked-events').map((e) => e.detail),
    ).toContain(parkedId);
    const parked = await env.client.workflow.getHandle(parkedId).query(parkedEventsQuery);
    expect({ owner: parked.ownerWorkflowId, forwarded: parked.forwarded, held: parked.held.length }).toEqual({
      owner: brandWorkflowId(bench.account, reference),
      forwarded: 1,
      held: 0,
    });
    expect((await bench.registry.listBrands({ referenceId: reference })).records).toHaveLength(1);
  });
});
