import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  brandWorkflowId,
  campaignWorkflowId,
  parkedEventsByReferenceWorkflowId,
  parkedEventsWorkflowId,
} from '../../src/contracts/ids.js';
import { BrandIdKey, CampaignIdKey } from '../../src/contracts/search-attributes.js';
import { type IngressConfig, parseIngressConfig } from '../../src/ingress/config.js';
import { type RunningIngress, startIngress } from '../../src/ingress/server.js';
import { signEvent } from '../../src/ingress/signature.js';
import { createIngressClient } from '../../src/ingress/temporal.js';
import { parkedEventsQuery } from '../../src/workflows/parked-events.js';
import { finish, learnRegistryId, recordedQuery, recordingOwner } from '../fixtures/ingress-workflows.js';
import { ingressWorkflowsPath } from '../fixtures/recording-owners.js';
import { devServerEnv, workflowBundle } from '../support/temporal-env.js';

// Routing on the dev server (visibility queries need it): by reference, by registry id through the
// search attributes, parking before the owner knows its id, claiming, and duplicates.
const WEBHOOK_URL = 'https://csp.example/webhooks/registry';
const SECRET = 'routing-secret-0123456789abcdefghijklm';
const ACCOUNT = 'acme';
const taskQueue = `ingress-routing-${randomUUID()}`;
const silent = pino({ level: 'silent' });

function config(overrides: Partial<IngressConfig> = {}): IngressConfig {
  return {
    ...parseIngressConfig({
      TCR_WEBHOOK_URL: WEBHOOK_URL,
      TCR_WEBHOOK_SECRETS: SECRET,
      TCR_INGRESS_ACCOUNTS: ACCOUNT,
      TCR_INGRESS_PORT: '0',
      TCR_INGRESS_INTERNAL_LISTEN: '127.0.0.1:0',
      TCR_PARKED_EVENTS_TASK_QUEUE: taskQueue,
    }),
    ...overrides,
  };
}

async function send(ingress: RunningIngress, event: Record<string, unknown>) {
  const body = JSON.stringify(event);
  const response = await fetch(ingress.endpoint, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-registry-signature-256': signEvent(SECRET, WEBHOOK_URL, event),
    },
    body,
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

async function eventually<T>(
  probe: () => Promise<T>,
  accept: (value: T) => boolean,
  timeoutMs = 15_000,
): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (accept(value) || Date.now() > until) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
}

const short = () => randomUUID().slice(0, 8);

describe('routing on the dev server', () => {
  let env: TestWorkflowEnvironment;
  let client: Client;
  let worker: Worker;
  let running: Promise<void>;
  let ingress: RunningIngress;
  let ingressClient: Client;

  beforeAll(async () => {
    env = await devServerEnv();
    client = env.client;
    worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue,
      workflowBundle: await workflowBundle(ingressWorkflowsPath),
    });
    running = worker.run();
    // The ingress runs on its own client, as in production; the tests drive workflows on env.client.
    ingressClient = createIngressClient({
      temporalAddress: env.address,
      temporalNamespace: env.namespace ?? 'default',
    });
    ingress = await startIngress({ config: config(), client: ingressClient, logger: silent });
  });
  afterAll(async () => {
    await ingress?.close();
    await ingressClient?.connection.close();
    worker?.shutdown();
    await running;
    await env?.teardown();
  });

  const startOwner = (kind: 'brand' | 'campaign', reference: string, registryId?: string) =>
    client.workflow.start(recordingOwner, {
      taskQueue,
      workflowId:
        kind === 'brand' ? brandWorkflowId(ACCOUNT, reference) : campaignWorkflowId(ACCOUNT, reference),
      args: [{ kind, reference, registryId }],
    });

  const visibleOwner = (key: typeof BrandIdKey | typeof CampaignIdKey, id: string) =>
    eventually(
      async () => {
        const ids: string[] = [];
        for await (const wf of client.workflow.list({
          query: `${key.name} = "${id}" AND WorkflowType = "recordingOwner"`,
        })) {
          ids.push(wf.workflowId);
        }
        return ids;
      },
      (ids) => ids.length > 0,
    );

  it('signals the brand workflow by brandReferenceId, passing on the verified event', async () => {
    const ref = `b-${short()}`;
    const owner = await startOwner('brand', ref);
    const event = {
      eventType: 'BRAND_IDENTITY_STATUS_UPDATE',
      brandId: 'B-IGNORED',
      brandReferenceId: ref,
      extra: { x: 1 },
    };
    const answer = await send(ingress, event);
    expect(answer).toMatchObject({
      status: 200,
      json: { outcome: 'signalled', workflowId: owner.workflowId },
    });
    const recorded = await owner.query(recordedQuery);
    expect(recorded.signals).toHaveLength(1);
    expect(recorded.signals[0]!.event).toEqual(event);
    expect(recorded.signals[0]!.deliveryId).toBe(answer.json.deliveryId);
  });

  it('routes campaign and vetting events: campaign by campaignReferenceId, vetting to the brand', async () => {
    const ref = `c-${short()}`;
    const brandRef = `b-${short()}`;
    const campaign = await startOwner('campaign', ref);
    const brand = await startOwner('brand', brandRef);
    const c = await send(ingress, {
      eventType: 'CAMPAIGN_DCA_COMPLETE',
      campaignId: 'CX1',
      campaignReferenceId: ref,
      brandReferenceId: brandRef,
    });
    expect(c.json).toMatchObject({ outcome: 'signalled', workflowId: campaign.workflowId });
    const v = await send(ingress, {
      eventType: 'EVP_REPORT_SCORE',
      evpId: 'AEGIS',
      vettingId: 'v1',
      brandReferenceId: brandRef,
    });
    expect(v.json).toMatchObject({ outcome: 'signalled', workflowId: brand.workflowId });
    expect((await brand.query(recordedQuery)).signals.map((s) => s.event.eventType)).toEqual([
      'EVP_REPORT_SCORE',
    ]);
  });

  it('routes by registry id through TcrBrandId / TcrCampaignId when the event has no reference', async () => {
    const brandId = `B${short()}`;
    const campaignId = `C${short()}`;
    const brand = await startOwner('brand', `b-${short()}`, brandId);
    const campaign = await startOwner('campaign', `c-${short()}`, campaignId);
    await visibleOwner(BrandIdKey, brandId);
    await visibleOwner(CampaignIdKey, campaignId);
    const b = await send(ingress, {
      eventType: 'BRAND_IDENTITY_STATUS_UPDATE',
      brandId,
      brandIdentityStatus: 'VERIFIED',
    });
    expect(b.json).toMatchObject({ outcome: 'signalled', workflowId: brand.workflowId });
    const c = await send(ingress, {
      eventType: 'MNO_CAMPAIGN_OPERATION_SUSPENDED',
      campaignId,
      brandId,
      mnoId: 10017,
    });
    expect(c.json).toMatchObject({ outcome: 'signalled', workflowId: campaign.workflowId });
    // The second event for the brand comes from the owner cache, same target.
    const b2 = await send(ingress, {
      eventType: 'BRAND_IDENTITY_STATUS_UPDATE',
      brandId,
      brandIdentityStatus: 'UNVERIFIED',
    });
    expect(b2.json).toMatchObject({ outcome: 'signalled', workflowId: brand.workflowId });
    expect((await brand.query(recordedQuery)).signals).toHaveLength(2);
    expect((await campaign.query(recordedQuery)).signals).toHaveLength(1);
  });

  it('parks events before the owner knows its registry id; the claim delivers each exactly once', async () => {
    const brandId = `B${short()}`;
    const owner = await startOwner('brand', `b-${short()}`);
    const first = { eventType: 'BRAND_IDENTITY_STATUS_UPDATE', brandId, brandIdentityStatus: 'UNVERIFIED' };
    const second = { eventType: 'BRAND_ADD', brandId };
    const parkedId = parkedEventsWorkflowId('brand', brandId, ACCOUNT);
    expect((await send(ingress, first)).json).toMatchObject({ outcome: 'parked', workflowId: parkedId });
    expect((await send(ingress, second)).json).toMatchObject({ outcome: 'parked', workflowId: parkedId });
    // A duplicate at the edge changes nothing; one that gets past a fresh edge cache is dropped by the workflow.
    expect((await send(ingress, first)).json.outcome).toBe('duplicate');
    const fresh = await startIngress({ config: config(), client: ingressClient, logger: silent });
    try {
      expect((await send(fresh, first)).json.outcome).toBe('parked');
    } finally {
      await fresh.close();
    }
    const parked = client.workflow.getHandle(parkedId);
    const view = await parked.query(parkedEventsQuery);
    expect(view.held.map((d) => d.event.eventType)).toEqual(['BRAND_IDENTITY_STATUS_UPDATE', 'BRAND_ADD']);
    // Operators find it by the registry id.
    await eventually(
      async () => {
        const ids: string[] = [];
        for await (const wf of client.workflow.list({
          query: `TcrBrandId = "${brandId}" AND TcrPhase = "parked"`,
        }))
          ids.push(wf.workflowId);
        return ids;
      },
      (ids) => ids.includes(parkedId),
    ).then((ids) => expect(ids).toContain(parkedId));

    await owner.signal(learnRegistryId, brandId);
    const recorded = await eventually(
      () => owner.query(recordedQuery),
      (r) => r.signals.length >= 2,
    );
    expect(recorded.signals.map((s) => s.event)).toEqual([first, second]);

    // Later events reach the owner once, whether visibility already shows its id or the parked
    // workflow forwards them during its grace period.
    const third = { eventType: 'BRAND_IDENTITY_STATUS_UPDATE', brandId, brandIdentityStatus: 'VERIFIED' };
    expect(['signalled', 'parked']).toContain((await send(ingress, third)).json.outcome);
    const after = await eventually(
      () => owner.query(recordedQuery),
      (r) => r.signals.length >= 3,
    );
    expect(after.signals[2]!.event).toEqual(third);
    // No second copy of the third event follows: a marker event sent after it is the next to arrive.
    const marker = { ...third, brandIdentityStatus: 'VETTED_VERIFIED' };
    expect(['signalled', 'parked']).toContain((await send(ingress, marker)).json.outcome);
    const final = await eventually(
      () => owner.query(recordedQuery),
      (r) => r.signals.some((s) => s.event.brandIdentityStatus === 'VETTED_VERIFIED'),
    );
    expect(final.signals.map((s) => s.event)).toEqual([first, second, third, marker]);
    expect(final.distinct).toHaveLength(4);
    expect((await parked.query(parkedEventsQuery)).held).toEqual([]);
  });

  it('parks events for a reference with no workflow yet; the workflow claims them when it starts', async () => {
    const ref = `late-${short()}`;
    const event = { eventType: 'CAMPAIGN_ADD', campaignReferenceId: ref, campaignId: `C${short()}` };
    expect((await send(ingress, event)).json).toMatchObject({
      outcome: 'parked',
      workflowId: parkedEventsByReferenceWorkflowId('campaign', ref, ACCOUNT),
    });
    const owner = await startOwner('campaign', ref);
    const recorded = await eventually(
      () => owner.query(recordedQuery),
      (r) => r.signals.length >= 1,
    );
    expect(recorded.signals.map((s) => s.event)).toEqual([event]);
    await owner.signal(finish);
    expect((await owner.result()).signals).toHaveLength(1);
  });

  it('acknowledges events for entities nobody manages by parking them, and ignores events with no ids', async () => {
    const stranger = `B${short()}`;
    expect((await send(ingress, { eventType: 'SOME_FUTURE_TYPE', brandId: stranger })).json).toMatchObject({
      outcome: 'parked',
      workflowId: parkedEventsWorkflowId('brand', stranger, ACCOUNT),
    });
    expect((await send(ingress, { eventType: 'CSP_NOTICE', cspId: 'CSPLOCAL' })).json.outcome).toBe(
      'ignored',
    );
  });
});
