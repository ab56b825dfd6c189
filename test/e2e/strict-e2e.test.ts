/**
 * End to end against the strict registry: the simulator answers only what the spec documents (no
 * mobilePhoneVerifiedDate, no mnoOperationStatus, no undocumented list filters), caps every list page
 * at 2 records whatever is asked, and drops every CAMPAIGN_DCA_COMPLETE webhook. On the dev server, with
 * the production worker wiring and the real ingress, every lifecycle still completes from what the
 * spec documents, or stops at a needs-action an operator can act on; nothing waits silently, and no fee
 * is paid for a campaign that cannot be shared.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getBrandStatus, startBrandOrder, waitForBrandPhase } from '../../src/orders/brand-client.js';
import {
  confirmCampaignDca,
  getCampaignStatus,
  startCampaignOrder,
  waitForCampaignPhase,
} from '../../src/orders/campaign-orders.js';
import { EVENT_CATEGORIES } from '../../src/simulator/index.js';
import { privateBrand, publicProfitBrand, qualifyingCampaign, uniqueRef } from '../fixtures/campaign-env.js';
import { startTestStack, type TestStack } from '../fixtures/test-stack.js';

const ACCOUNT = 'strict-local';
// Polls while a decision is pending: the strict registry's reads must be enough without webhooks.
const pendingPoll = { initialMs: 2_000, maxMs: 2_000 };

describe('against the strict registry (spec fields only, pages of 2, CAMPAIGN_DCA_COMPLETE lost)', () => {
  let stack: TestStack;

  beforeAll(async () => {
    stack = await startTestStack({
      account: ACCOUNT,
      simulator: {
        strict: true,
        maxRecordsPerPage: 2,
        timeScale: 60,
        delays: { contactVerificationSeconds: 60, shareDecisionSeconds: 60, dcaDecisionSeconds: 60 },
        webhookTimeoutMs: 5_000,
      },
      webhooks: Object.keys(EVENT_CATEGORIES),
      workflowTaskQueue: `strict-${uniqueRef('wf')}`,
    });
    await stack.simulator.control.addFault({
      kind: 'webhook-drop',
      eventType: 'CAMPAIGN_DCA_COMPLETE',
      count: 1_000,
    });
  }, 120_000);

  afterAll(() => stack?.close());

  const ledgerOf = async (campaignId: string | undefined) =>
    (await stack.simulator.control.ledger()).filter(
      (e) => e.kind === 'CAMPAIGN_REGISTRATION' && campaignId !== undefined && e.campaignId === campaignId,
    );

  /** Orders a PRIVATE_PROFIT brand and a campaign of it shared with `upstreamCnpId`; both references. */
  async function orderPrivateBrandCampaign(
    prefix: string,
    upstreamCnpId: string,
    campaign: Record<string, unknown>,
  ): Promise<{ reference: string; brandReference: string }> {
    const brandReference = uniqueRef(`${prefix}-brand`);
    const reference = uniqueRef(prefix);
    await startBrandOrder(
      stack.client,
      { reference: brandReference, account: ACCOUNT, brand: privateBrand() },
      { taskQueue: stack.workflowTaskQueue },
    );
    await startCampaignOrder(
      stack.client,
      { reference, account: ACCOUNT, brandReference, upstreamCnpId, campaign },
      { taskQueue: stack.workflowTaskQueue },
    );
    return { reference, brandReference };
  }

  it('a sole proprietor is ready from the campaign builder, and its campaign shared with a DCA runs without CAMPAIGN_DCA_COMPLETE', async () => {
    const brandReference = uniqueRef('strict-sole');
    const reference = uniqueRef('strict-sole-camp');
    await startBrandOrder(
      stack.client,
      {
        reference: brandReference,
        account: ACCOUNT,
        brand: {
          entityType: 'SOLE_PROPRIETOR',
          displayName: 'Strict Sole Tutoring',
          firstName: 'Jane',
          lastName: 'Doe',
          mobilePhone: '+13125550177',
          street: '8 Elm St',
          city: 'Chicago',
          state: 'IL',
          postalCode: '60601',
          country: 'US',
          email: 'jane@strict-sole.example',
          vertical: 'EDUCATION',
          brandRelationship: 'BASIC_ACCOUNT',
        },
      },
      { taskQueue: stack.workflowTaskQueue, workflowOptions: { pendingPoll } },
    );
    await startCampaignOrder(
      stack.client,
      {
        reference,
        account: ACCOUNT,
        brandReference,
        upstreamCnpId: 'SINCH',
        campaign: qualifyingCampaign({
          usecase: 'SOLE_PROPRIETOR',
          description: 'Lesson reminders for Strict Sole Tutoring students',
        }),
      },
      { taskQueue: stack.workflowTaskQueue, workflowOptions: { pendingPoll } },
    );
    const brand = await waitForBrandPhase(stack.client, brandReference, 'ready', 60_000);
    expect(brand.identityStatus).toBe('SELF_DECLARED');
    const running = await waitForCampaignPhase(stack.client, reference, 'running', 60_000);
    expect(running.phase).toBe('running');
    expect(running.sharing).toMatchObject({ upstreamCnpId: 'SINCH', sharingStatus: 'ACCEPTED' });
    expect(running.needsAction).toEqual([]);
    expect(await ledgerOf(running.campaignId)).toHaveLength(1);
  }, 150_000);

  it('shared via a CSP partner whose CAMPAIGN_DCA_COMPLETE never comes: needs-action, then running on the operator confirmation', async () => {
    const brandReference = uniqueRef('strict-public');
    const reference = uniqueRef('strict-partner-camp');
    await startBrandOrder(
      stack.client,
      { reference: brandReference, account: ACCOUNT, brand: publicProfitBrand() },
      { taskQueue: stack.workflowTaskQueue, workflowOptions: { pendingPoll } },
    );
    await startCampaignOrder(
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
        workflowOptions: { pendingPoll, decisionDeadlineMs: 20_000 },
      },
    );
    const waiting = await waitForCampaignPhase(stack.client, reference, 'awaiting-dca', 90_000);
    expect(waiting.phase).toBe('awaiting-dca');
    let status = waiting;
    for (let i = 0; i < 60 && !status.needsAction.some((a) => a.key === 'dca-unconfirmed'); i++) {
      await new Promise((r) => setTimeout(r, 1_000));
      status = await getCampaignStatus(stack.client, reference);
    }
    expect(status.phase).toBe('awaiting-dca');
    expect(status.needsAction.map((a) => a.key)).toContain('dca-unconfirmed');
    // The simulator did send (and drop) it: the campaign was not stranded by a bug of ours.
    const dropped = await stack.simulator.control.deliveries({ eventType: 'CAMPAIGN_DCA_COMPLETE' });
    expect(dropped.some((d) => d.outcome === 'DROPPED')).toBe(true);

    const confirmed = await confirmCampaignDca(stack.client, reference, { confirmedBy: 'ops@csp.example' });
    expect(confirmed.outcome).toBe('done');
    const running = await waitForCampaignPhase(stack.client, reference, 'running', 30_000);
    expect(running.phase).toBe('running');
    expect(running.needsAction).toEqual([]);
    expect(running.dcaConfirmation?.by).toBe('ops@csp.example');
    expect(await ledgerOf(running.campaignId)).toHaveLength(1);
  }, 180_000);

  it('a use case the brand cannot support is refused from the builder answer (a 400 in strict mode), with no fee', async () => {
    const feesBefore = (await stack.simulator.control.ledger()).length;
    // CHARITY needs a 501(c)(3) non-profit: a PRIVATE_PROFIT brand cannot use it.
    const { reference } = await orderPrivateBrandCampaign(
      'strict-charity',
      'SINCH',
      qualifyingCampaign({ usecase: 'CHARITY' }),
    );
    const refused = await waitForCampaignPhase(stack.client, reference, 'refused', 60_000);
    expect(refused.phase).toBe('refused');
    expect(refused.created).toBe(false);
    expect(JSON.stringify(refused.refusal)).toMatch(/CHARITY|use case/i);
    expect((await stack.simulator.control.ledger()).length).toBe(feesBefore);
  }, 120_000);

  it('an unknown upstream partner is refused before the campaign is created: no fee', async () => {
    const feesBefore = (await stack.simulator.control.ledger()).length;
    const { reference, brandReference } = await orderPrivateBrandCampaign(
      'strict-nopartner',
      'NOSUCHPARTNER',
      qualifyingCampaign(),
    );
    let status = await getCampaignStatus(stack.client, reference);
    for (let i = 0; i < 60 && !status.needsAction.some((a) => a.key === 'partner'); i++) {
      await new Promise((r) => setTimeout(r, 1_000));
      status = await getCampaignStatus(stack.client, reference);
    }
    expect(status.needsAction.map((a) => a.key)).toContain('partner');
    expect(status.created).toBe(false);
    expect((await getBrandStatus(stack.client, brandReference)).phase).toBe('ready');
    // Nothing was created at the registry, and nothing was charged.
    expect(status.campaignId).toBeUndefined();
    expect((await stack.simulator.control.ledger()).length).toBe(feesBefore);
  }, 120_000);
});
