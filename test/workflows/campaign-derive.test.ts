/**
 * The campaign decisions on what the spec documents, as plain functions (src/workflows/campaign/derive.ts):
 * an ACCEPTED share runs only when its partner is a DCA; mnoOperationStatus decides no phase (except
 * on histories recorded before the change); the overdue key and entry in awaiting-dca.
 */
import { describe, expect, it } from 'vitest';
import type { CampaignPhase } from '../../src/contracts/campaign.js';
import type { CampaignSnapshot, SharingSnapshot } from '../../src/contracts/campaign-activity-types.js';
import {
  acknowledgeable,
  deriveDcaComplete,
  deriveSharing,
  movesDeadline,
  overdueAction,
  overdueKey,
  unknownPartnerRefusal,
} from '../../src/workflows/campaign/derive.js';

const accepted = (upstreamCnpId: string): SharingSnapshot => ({
  upstreamCnpId,
  sharingStatus: 'ACCEPTED',
  explanation: null,
  sharedDate: '2026-11-01T00:00:00.000Z',
  statusDate: '2026-11-02T00:00:00.000Z',
});
const ctx = (partnerIsDca?: boolean) => ({
  now: 1_000,
  decisionDeadlineMs: 100,
  upstreamCnpId: 'X',
  ...(partnerIsDca !== undefined ? { partnerIsDca } : {}),
});
const registered: CampaignSnapshot = {
  campaignId: 'C1',
  status: 'ACTIVE',
  mnoOperationStatus: { '10017': 'REGISTERED' },
};

describe('an ACCEPTED share', () => {
  for (const phase of ['sharing', 'share-pending', 'awaiting-dca'] as CampaignPhase[])
    it(`by a DCA runs from ${phase}, saying why, and clears the deadline`, () => {
      const decision = deriveSharing({ phase }, accepted('SINCH'), ctx(true));
      expect(decision).toMatchObject({ phase: 'running', dcaComplete: true, decisionDeadline: 'clear' });
      expect(decision.detail).toMatch(/SINCH, a DCA/);
      expect(decision.actions['dca-unconfirmed']).toEqual({ set: false });
    });

  it('by a CSP waits in awaiting-dca with a deadline', () => {
    const decision = deriveSharing({ phase: 'share-pending' }, accepted('CSPUPSTREAM'), ctx(false));
    expect(decision).toMatchObject({ phase: 'awaiting-dca', decisionDeadline: 1_100 });
    expect(decision.dcaComplete).toBeUndefined();
    expect(deriveSharing({ phase: 'awaiting-dca' }, accepted('CSPUPSTREAM'), ctx(false)).phase).toBe(
      'awaiting-dca',
    );
  });

  it('with the partner not looked up (histories before the change) waits as before', () => {
    expect(deriveSharing({ phase: 'share-pending' }, accepted('SINCH'), ctx()).phase).toBe('awaiting-dca');
  });

  it('never leaves a final phase', () => {
    expect(deriveSharing({ phase: 'cancelled' }, accepted('SINCH'), ctx(true)).phase).toBe('cancelled');
  });
});

describe('awaiting-dca → running', () => {
  it('on CAMPAIGN_DCA_COMPLETE', () => {
    expect(deriveDcaComplete({ phase: 'awaiting-dca' }, undefined, true).phase).toBe('running');
  });

  it('never on mnoOperationStatus REGISTERED (a simulator extra), unless replaying the old way', () => {
    expect(deriveDcaComplete({ phase: 'awaiting-dca' }, registered, false).phase).toBe('awaiting-dca');
    expect(deriveDcaComplete({ phase: 'awaiting-dca' }, registered, false, true).phase).toBe('running');
  });
});

describe('overdue decisions', () => {
  it('awaiting-dca raises dca-unconfirmed, pointing at the portal and the confirmation', () => {
    expect(overdueKey('awaiting-dca', true)).toBe('dca-unconfirmed');
    expect(overdueKey('awaiting-dca', false)).toBe('decision-overdue');
    expect(overdueKey('share-pending', true)).toBe('decision-overdue');
    const entry = overdueAction('awaiting-dca', true, { deadline: 0, waitsFor: 'w', partner: 'CSPRELAY' });
    expect(entry.action).toMatch(/portal.*confirm-dca/);
    expect(entry.reason).toMatch(/CSPRELAY, which is not a DCA/);
  });

  it('both are acknowledgeable, and acknowledging them moves the deadline', () => {
    for (const key of ['decision-overdue', 'dca-unconfirmed']) {
      expect(acknowledgeable(key)).toBe(true);
      expect(movesDeadline(key)).toBe(true);
    }
    expect(movesDeadline('nudge-REVIEW')).toBe(false);
    expect(acknowledgeable('partner')).toBe(false);
  });
});

it('an unknown partner: the reason names the lists, the action the way out', () => {
  const { reason, action } = unknownPartnerRefusal('NOPE', '2026-11-28T00:00:00.000Z');
  expect(reason).toMatch(/NOPE.*GET \/enum\/cnp, GET \/enum\/dca/);
  expect(action).toMatch(/shareWith.*cancel/);
});
