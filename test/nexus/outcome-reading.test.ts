/**
 * One reading of phase → order outcome (issue 38): the Nexus `status` operation (src/nexus/status.ts)
 * and the notifications the workflows send (src/workflows/entity/notify.ts) say the same outcome for
 * every phase, with and without a needs-action raised; and a created campaign the operator cancelled
 * (`winding-down`: renewal off, watched until the registry expires it) is `cancelled` for the order
 * system, with the cancel's reason, not in progress until its expiry.
 */
import { describe, expect, it } from 'vitest';
import { type BrandStatus, brandPhaseNames } from '../../src/contracts/brand.js';
import { type CampaignStatus, campaignPhaseNames } from '../../src/contracts/campaign.js';
import { statusResult } from '../../src/nexus/status.js';
import { brandOutcome, campaignOutcome } from '../../src/workflows/entity/notify.js';

const action = { key: 'fee-approval', action: 'approve the fee', reason: 'a fee of $15 to approve' };

function brand(phase: string, needsAction: boolean): BrandStatus {
  return {
    workflowType: 'brand',
    account: 'local',
    reference: 'b1',
    phase,
    needsAction: needsAction ? [action] : [],
  } as unknown as BrandStatus;
}

function campaign(phase: string, needsAction: boolean, extra: Partial<CampaignStatus> = {}): CampaignStatus {
  return {
    workflowType: 'campaign',
    account: 'local',
    reference: 'c1',
    phase,
    needsAction: needsAction ? [action] : [],
    ...extra,
  } as unknown as CampaignStatus;
}

describe('phase → order outcome, one reading', () => {
  it.each(brandPhaseNames.flatMap((p) => [[p, false] as const, [p, true] as const]))(
    'brand %s (needs-action %s): status and notification agree',
    (phase, needsAction) => {
      expect(statusResult(brand(phase, needsAction)).outcome).toBe(brandOutcome(phase, needsAction));
    },
  );

  it.each(campaignPhaseNames.flatMap((p) => [[p, false] as const, [p, true] as const]))(
    'campaign %s (needs-action %s): status and notification agree',
    (phase, needsAction) => {
      expect(statusResult(campaign(phase, needsAction)).outcome).toBe(campaignOutcome(phase, needsAction));
    },
  );

  it('a created campaign the operator cancelled (winding-down) is cancelled, with the reason', () => {
    expect(campaignOutcome('winding-down', false)).toBe('cancelled');
    // renewal-on: the registry did not take renewal off yet; still the order is cancelled.
    expect(campaignOutcome('winding-down', true)).toBe('cancelled');
    const status = statusResult(
      campaign('winding-down', false, { cancelReason: 'customer withdrew', campaignId: 'CX1' }),
    );
    expect(status).toMatchObject({
      outcome: 'cancelled',
      reason: 'customer withdrew',
      phase: 'winding-down',
    });
  });
});
