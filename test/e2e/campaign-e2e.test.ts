/**
 * End to end on the dev server: the simulator (its own share and DCA decisions, signed webhooks),
 * the webhook ingress, the project's createWorkers as production wires them (the write budget
 * included), and a brand order plus a campaign order started through the order API.
 * Nothing is driven by the test: the registry's webhooks wake the workflows.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CampaignIdKey, PhaseKey } from '../../src/contracts/search-attributes.js';
import { startBrandOrder } from '../../src/orders/brand-client.js';
import { startCampaignOrder, waitForCampaignPhase } from '../../src/orders/campaign-orders.js';
import { EVENT_CATEGORIES } from '../../src/simulator/index.js';
import { publicProfitBrand, qualifyingCampaign, uniqueRef } from '../fixtures/campaign-env.js';
import { startTestStack, type TestStack } from '../fixtures/test-stack.js';

const ACCOUNT = 'e2e-local';

describe('brand order to running campaign, end to end', () => {
  let stack: TestStack;

  beforeAll(async () => {
    stack = await startTestStack({
      account: ACCOUNT,
      simulator: {
        delays: { contactVerificationSeconds: 1, shareDecisionSeconds: 1, dcaDecisionSeconds: 1 },
        webhookTimeoutMs: 5_000,
      },
      webhooks: Object.keys(EVENT_CATEGORIES),
      workflowTaskQueue: `e2e-${uniqueRef('wf')}`,
    });
  }, 120_000);

  afterAll(() => stack?.close());

  it('a PUBLIC_PROFIT brand and its campaign: contact verification, creation, share, DCA, running', async () => {
    const brandReference = uniqueRef('e2e-brand');
    const reference = uniqueRef('e2e-camp');
    const brand = await startBrandOrder(
      stack.client,
      {
        reference: brandReference,
        account: ACCOUNT,
        brand: publicProfitBrand(),
      },
      { taskQueue: stack.workflowTaskQueue },
    );
    // Ordered together: the campaign waits for the brand (contact verification by the registry).
    const campaign = await startCampaignOrder(
      stack.client,
      {
        reference,
        account: ACCOUNT,
        brandReference,
        upstreamCnpId: 'CSPUPSTREAM',
        campaign: qualifyingCampaign(),
      },
      {
        taskQueue: stack.workflowTaskQueue,
        workflowOptions: {
          // An hour between brand polls: only the brand workflow's notice can start the campaign in time.
          brandPoll: { initialMs: 3_600_000, maxMs: 3_600_000 },
          pendingPoll: { initialMs: 60_000, maxMs: 60_000 },
        },
      },
    );
    try {
      const running = await waitForCampaignPhase(stack.client, reference, 'running', 45_000);
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

      const fees = (await stack.simulator.control.ledger()).filter(
        (e) => e.kind === 'CAMPAIGN_REGISTRATION' && e.campaignId === running.campaignId,
      );
      expect(fees).toHaveLength(1);

      // Visible in the Web UI by search attributes.
      let found: string[] = [];
      for (let i = 0; i < 50 && found.length === 0; i++) {
        found = [];
        for await (const wf of stack.client.workflow.list({
          query: `${PhaseKey.name} = "running" AND ${CampaignIdKey.name} = "${running.campaignId}"`,
        }))
          found.push(wf.workflowId);
        if (found.length === 0) await new Promise((r) => setTimeout(r, 100));
      }
      expect(found).toEqual([`campaign/${ACCOUNT}/${reference}`]);
    } finally {
      await campaign.handle.terminate('test done').catch(() => undefined);
      await brand.handle.terminate('test done').catch(() => undefined);
    }
  });
});
