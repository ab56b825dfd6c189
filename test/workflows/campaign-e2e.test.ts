/**
 * End to end on the dev server: the simulator (its own share and DCA decisions, signed webhooks),
 * the webhook ingress, the project's createWorkers (with the campaign activities and workflow added
 * through its test hooks), and a brand order plus a campaign order started through the order API.
 * Nothing is driven by the test: the registry's webhooks wake the workflows.
 */
import { fileURLToPath } from 'node:url';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createCampaignReadActivities,
  createCampaignWriteActivities,
} from '../../src/activities/campaign-activities.js';
import {
  createRegistryReadActivities,
  createRegistryWriteActivities,
} from '../../src/activities/registry-activities.js';
import { CampaignIdKey, PhaseKey } from '../../src/contracts/search-attributes.js';
import { parseIngressConfig } from '../../src/ingress/config.js';
import { type RunningIngress, startIngress } from '../../src/ingress/server.js';
import { startBrandOrder } from '../../src/orders/brand-client.js';
import { startCampaignOrder, waitForCampaignPhase } from '../../src/orders/campaign-orders.js';
import { RegistryClient } from '../../src/registry/client.js';
import { SimulatorControl } from '../../src/simulator/control-client.js';
import {
  DEFAULT_ACCOUNT,
  EVENT_CATEGORIES,
  type RunningSimulator,
  startSimulator,
} from '../../src/simulator/index.js';
import { createWorkers, type RunningWorkers } from '../../src/workers/create-workers.js';
import { privateBrand, qualifyingCampaign, uniqueRef } from '../fixtures/campaign-env.js';
import { SwitchableProxy } from '../support/switchable-proxy.js';
import { devServerEnv, workflowBundle } from '../support/temporal-env.js';

const workflowsPath = fileURLToPath(new URL('../fixtures/campaign-workflows.ts', import.meta.url));
const SECRET = 'e2e-webhook-secret';
const ACCOUNT = 'e2e-local';

describe('brand order to running campaign, end to end', () => {
  let env: TestWorkflowEnvironment;
  let sim: RunningSimulator;
  let control: SimulatorControl;
  let ingress: RunningIngress;
  let front: SwitchableProxy;
  let workers: RunningWorkers;
  let registry: RegistryClient;
  const taskQueue = `e2e-${uniqueRef('wf')}`;

  beforeAll(async () => {
    env = await devServerEnv();
    sim = await startSimulator({
      delays: { contactVerificationSeconds: 1, shareDecisionSeconds: 1, dcaDecisionSeconds: 1 },
      webhookTimeoutMs: 5_000,
    });
    control = new SimulatorControl(sim.url);
    registry = new RegistryClient({
      environment: 'local',
      baseUrl: sim.url,
      apiKey: DEFAULT_ACCOUNT.apiKey,
      apiSecret: DEFAULT_ACCOUNT.apiSecret,
    });
    // The webhook URL's port is a proxy's, bound once; the ingress listens on port 0 behind it, and
    // its internal listener too (never the default 8471 another test's ingress may hold).
    front = new SwitchableProxy({ host: '127.0.0.1', port: 0 });
    const webhookUrl = `http://127.0.0.1:${await front.listen()}/webhooks/registry`;
    ingress = await startIngress({
      config: parseIngressConfig({
        TCR_WEBHOOK_URL: webhookUrl,
        TCR_WEBHOOK_SECRETS: SECRET,
        TCR_INGRESS_PORT: '0',
        TCR_INGRESS_INTERNAL_LISTEN: '127.0.0.1:0',
        TCR_PARKED_EVENTS_TASK_QUEUE: taskQueue,
      }),
      client: env.client,
      logger: pino({ level: 'silent' }),
    });
    front.forwardTo({ host: '127.0.0.1', port: Number(new URL(ingress.url).port) });
    await front.up();
    await control.setWebhookSecret({ secret: SECRET });
    for (const eventCategory of Object.keys(EVENT_CATEGORIES))
      await registry.putWebhookSubscription({ eventCategory, webhookEndpoint: webhookUrl });

    const bundle = await workflowBundle(workflowsPath);
    workers = await createWorkers(
      {
        temporal: { address: env.address, namespace: 'default' },
        accounts: [
          {
            name: ACCOUNT,
            environment: 'local',
            baseUrl: sim.url,
            apiKey: DEFAULT_ACCOUNT.apiKey,
            apiSecret: DEFAULT_ACCOUNT.apiSecret,
          },
        ],
      },
      {
        connection: env.nativeConnection,
        workflowBundle: { code: bundle.code },
        workflowTaskQueue: taskQueue,
        activitiesFor: () => {
          const resolve = (name: string) => (name === ACCOUNT ? registry : undefined);
          return {
            reads: { ...createRegistryReadActivities(resolve), ...createCampaignReadActivities(resolve) },
            writes: { ...createRegistryWriteActivities(resolve), ...createCampaignWriteActivities(resolve) },
          };
        },
      },
    );
    void workers.run();
  });

  afterAll(async () => {
    await workers?.shutdown();
    await ingress?.close();
    await front?.close();
    await registry?.close();
    await sim?.close();
    await env?.teardown();
  });

  it('a PUBLIC_PROFIT brand and its campaign: contact verification, creation, share, DCA, running', async () => {
    const brandReference = uniqueRef('e2e-brand');
    const reference = uniqueRef('e2e-camp');
    const brand = await startBrandOrder(
      env.client,
      {
        reference: brandReference,
        account: ACCOUNT,
        brand: privateBrand({
          entityType: 'PUBLIC_PROFIT',
          companyName: 'Acme Public Corp',
          stockSymbol: 'ACME',
          stockExchange: 'NASDAQ',
          businessContactEmail: 'cfo@acme.example',
        }),
      },
      { taskQueue },
    );
    // Ordered together: the campaign waits for the brand (contact verification by the registry).
    const campaign = await startCampaignOrder(
      env.client,
      {
        reference,
        account: ACCOUNT,
        brandReference,
        upstreamCnpId: 'CSPUPSTREAM',
        campaign: qualifyingCampaign(),
      },
      {
        taskQueue,
        workflowOptions: {
          // An hour between brand polls: only the brand workflow's notice can start the campaign in time.
          brandPoll: { initialMs: 3_600_000, maxMs: 3_600_000 },
          pendingPoll: { initialMs: 60_000, maxMs: 60_000 },
        },
      },
    );
    try {
      const running = await waitForCampaignPhase(env.client, reference, 'running', 45_000);
      expect(running.created).toBe(true);
      expect(running.sharing).toMatchObject({ upstreamCnpId: 'CSPUPSTREAM', sharingStatus: 'ACCEPTED' });
      expect(running.dcaComplete).toBe(true);
      // Webhooks (through the ingress) woke the share and DCA steps: the polls are a minute apart.
      const webhookSteps = running.audit.entries.filter((e) => e.cause === 'webhook' && e.event === 'phase');
      expect(webhookSteps.map((e) => e.to)).toEqual(expect.arrayContaining(['awaiting-dca', 'running']));
      expect(running.deliveries.received).toBeGreaterThanOrEqual(3);
      // The brand's workflow told the waiting campaign that the brand became ready.
      const checking = running.audit.entries.find((e) => e.event === 'phase' && e.to === 'checking');
      expect(checking?.cause).toBe('workflow');

      const fees = (await control.ledger()).filter(
        (e) => e.kind === 'CAMPAIGN_REGISTRATION' && e.campaignId === running.campaignId,
      );
      expect(fees).toHaveLength(1);

      // Visible in the Web UI by search attributes.
      let found: string[] = [];
      for (let i = 0; i < 50 && found.length === 0; i++) {
        found = [];
        for await (const wf of env.client.workflow.list({
          query: `${PhaseKey.name} = "running" AND ${CampaignIdKey.name} = "${running.campaignId}"`,
        }))
          found.push(wf.workflowId);
        if (found.length === 0) await new Promise((r) => setTimeout(r, 100));
      }
      expect(found).toEqual([`campaign/${reference}`]);
    } finally {
      await campaign.handle.terminate('test done').catch(() => undefined);
      await brand.handle.terminate('test done').catch(() => undefined);
    }
  });
});
