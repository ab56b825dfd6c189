/** The campaign workflow's phase table (see ../entity/phases.ts). */
import type { CampaignPhase } from '../../contracts/campaign.js';
import type { PhaseTable, PollKind } from '../entity/phases.js';

export type CampaignOperation =
  | 'approveFee'
  | 'resubmit'
  | 'update'
  | 'shareWith'
  | 'cancel'
  | 'acknowledge'
  | 'confirmDcaComplete';

/**
 * What each phase waits for and allows. `share-pending` allows no change, cancel or share: the
 * registry forbids rescinding a PENDING share. `creating` allows cancel: it is queued behind the
 * create in flight and runs after it, so the campaign ends `cancelled` (and billed, if created).
 * `refused` allows shareWith only when the refusal is the upstream partner's (needs-action `partner`:
 * the handler checks), `awaiting-dca` the operator's confirmDcaComplete.
 * `winding-down` (a created campaign cancelled: renewal off, watched until the registry expires it)
 * allows update (renewal stays off) and acknowledge. `deactivated` is final only once the registry no longer reports the campaign ACTIVE (see
 * `campaignPhaseTable`).
 */
export const campaignPhases: PhaseTable<CampaignPhase, CampaignOperation> = {
  'awaiting-brand': {
    final: false,
    waitsFor: 'brand workflow ready and confirmed by the registry',
    poll: 'pending',
    allows: ['resubmit', 'cancel', 'acknowledge'],
  },
  checking: {
    final: false,
    waitsFor: 'registry: campaign builder and use case checks',
    poll: 'pending',
    allows: ['resubmit', 'cancel', 'acknowledge'],
  },
  refused: {
    final: false,
    waitsFor:
      'operator: resubmit with changes (or shareWith a listed partner, if the partner is unknown), or cancel',
    poll: 'none',
    allows: ['resubmit', 'shareWith', 'cancel', 'acknowledge'],
  },
  'awaiting-fee-approval': {
    final: false,
    waitsFor: 'operator: approveFee, or cancel',
    poll: 'none',
    allows: ['approveFee', 'resubmit', 'cancel', 'acknowledge'],
  },
  creating: {
    final: false,
    waitsFor: 'registry: campaign creation',
    poll: 'pending',
    allows: ['cancel', 'acknowledge'],
  },
  sharing: {
    final: false,
    waitsFor: 'registry: share with the upstream partner',
    poll: 'steady',
    allows: ['resubmit', 'update', 'shareWith', 'cancel', 'acknowledge'],
  },
  'share-pending': {
    final: false,
    waitsFor: 'upstream partner: accept or decline the share',
    poll: 'pending',
    allows: ['acknowledge'],
  },
  'share-declined': {
    final: false,
    waitsFor: 'operator: resubmit with changes (same partner), or shareWith another partner',
    poll: 'steady',
    allows: ['resubmit', 'update', 'shareWith', 'cancel', 'acknowledge'],
  },
  'awaiting-dca': {
    final: false,
    waitsFor: 'registry: CAMPAIGN_DCA_COMPLETE (all DCAs accepted), or operator: confirmDcaComplete',
    // No read can tell that the DCAs accepted (the spec documents no such field): its polls are the
    // steady safety net (a share deleted or declined meanwhile), its deadline a timer.
    poll: 'steady',
    allows: ['confirmDcaComplete', 'update', 'cancel', 'acknowledge'],
  },
  running: {
    final: false,
    waitsFor: 'registry events (steady reconciliation: expiry, renewal, suspensions)',
    poll: 'steady',
    allows: ['update', 'cancel', 'acknowledge'],
  },
  deactivated: {
    final: false,
    waitsFor: 'registry events (steady reconciliation)',
    poll: 'steady',
    allows: ['update', 'cancel', 'acknowledge'],
  },
  'winding-down': {
    final: false,
    waitsFor: 'registry: the campaign EXPIRED (renewal off at the registry; watched until it expires)',
    poll: 'steady',
    allows: ['update', 'acknowledge'],
  },
  expired: { final: true, waitsFor: 'nothing (final)', poll: 'none', allows: [] },
  cancelled: { final: true, waitsFor: 'nothing (final)', poll: 'none', allows: [] },
};

/** Phases before the registry has the campaign (resubmit merges changes into the order). */
export const preCreationPhases: readonly CampaignPhase[] = [
  'awaiting-brand',
  'checking',
  'refused',
  'awaiting-fee-approval',
  'creating',
];

/**
 * The table one workflow runs on: `deactivated` is final once the registry no longer reports the
 * campaign ACTIVE (a political campaign the registry deactivated by expiring it). `awaitingDcaPoll`
 * is read when `awaiting-dca` schedules its next poll (loop code): 'pending' for histories recorded
 * before it polled at the steady rate.
 */
export function campaignPhaseTable(
  campaignStatus: () => string | undefined,
  awaitingDcaPoll: () => PollKind = () => campaignPhases['awaiting-dca'].poll,
): PhaseTable<CampaignPhase, CampaignOperation> {
  const row = campaignPhases.deactivated;
  const dca = campaignPhases['awaiting-dca'];
  return {
    ...campaignPhases,
    'awaiting-dca': {
      final: dca.final,
      waitsFor: dca.waitsFor,
      allows: dca.allows,
      get poll() {
        return awaitingDcaPoll();
      },
    },
    deactivated: {
      waitsFor: row.waitsFor,
      poll: row.poll,
      allows: row.allows,
      get final() {
        return deactivatedIsFinal(campaignStatus());
      },
    },
  };
}

export function deactivatedIsFinal(campaignStatus: string | undefined): boolean {
  return campaignStatus !== undefined && campaignStatus !== 'ACTIVE';
}

/** Is `phase` final, given the registry's last campaign status? */
export function isFinalCampaignPhase(phase: CampaignPhase, campaignStatus: string | undefined): boolean {
  return phase === 'deactivated' ? deactivatedIsFinal(campaignStatus) : campaignPhases[phase].final;
}
