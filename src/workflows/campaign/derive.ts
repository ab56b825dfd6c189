/**
 * The campaign workflow's decisions as plain functions of state and input: no workflow API, no clock
 * of their own (`now` is passed in). The workflow applies what they return; tests call them directly.
 * Every decision keeps a final phase: a final phase is never left.
 */

import type { CampaignPhase } from '../../contracts/campaign.js';
import type {
  BrandReadiness,
  CampaignSnapshot,
  SharingSnapshot,
} from '../../contracts/campaign-activity-types.js';
import type { ActionChange } from '../entity/bookkeeping.js';
import { isFinalCampaignPhase } from './phases.js';

export type { ActionChange };

const clear: ActionChange = { set: false };

/** Where the campaign stands, as the decisions need it. */
export interface CampaignFacts {
  phase: CampaignPhase;
  /** The registry's last campaign status (ACTIVE, EXPIRED, ...). */
  campaignStatus?: string | undefined;
}

// -------------------------------------------------------------------------------------------------
// Brand readiness
// -------------------------------------------------------------------------------------------------

export interface ReadinessDecision {
  phase: CampaignPhase;
  /** Needs-action `brand`; undefined: leave it as it is. */
  brand?: ActionChange;
  detail?: string;
}

/**
 * The brand readiness answer while awaiting the brand: ready → checking; not ready past the brand
 * deadline → needs-action `brand` (it keeps waiting).
 */
export function deriveReadiness(
  facts: CampaignFacts,
  readiness: BrandReadiness,
  ctx: { now: number; brandDeadline: number; hasBrandAction: boolean },
): ReadinessDecision {
  if (isFinalCampaignPhase(facts.phase, facts.campaignStatus) || facts.phase !== 'awaiting-brand')
    return { phase: facts.phase };
  if (readiness.ready && readiness.brandId)
    return { phase: 'checking', brand: clear, detail: `brand ${readiness.brandId} ready` };
  if (ctx.now >= ctx.brandDeadline && !ctx.hasBrandAction)
    return {
      phase: facts.phase,
      brand: {
        set: true,
        action: 'get the brand ready (see its workflow), or cancel',
        reason: readiness.reasons.join('; ') || `the brand is ${readiness.workflowPhase}, not ready`,
      },
    };
  return { phase: facts.phase };
}

// -------------------------------------------------------------------------------------------------
// Sharing record
// -------------------------------------------------------------------------------------------------

export interface SharingDecision {
  phase: CampaignPhase;
  /** Needs-action changes by key (`share`, `share-declined`, `decision-overdue`, `dca-unconfirmed`). */
  actions: Record<string, ActionChange>;
  /** Accepted by a DCA: the campaign may run on MNO networks. */
  dcaComplete?: boolean;
  /** The decision deadline: a new value, 'clear', or undefined to keep it. */
  decisionDeadline?: number | 'clear';
  detail?: string;
  /** An audit note (e.g. an unknown sharing status, a share missing at the registry). */
  note?: { event: string; detail: string };
}

/**
 * The phase the registry's sharing record (`sharedByMe`) puts the campaign in. `record` null: the
 * registry shows no share (a pending or accepted one vanished): share again.
 *
 * ACCEPTED: the spec's sharing table says a share becomes ACCEPTED when the upstream partner "shares
 * onward, or upstream is a DCA that accepts", and "once a DCA accepts, the campaign may run on MNO
 * networks". So with `partnerIsDca` (the partner's id is in `GET /enum/dca`) an ACCEPTED share runs
 * at once; a CSP's ACCEPTED share waits in `awaiting-dca` for CAMPAIGN_DCA_COMPLETE (or the
 * operator). `partnerIsDca` undefined: not looked up (histories before the change), as before.
 */
export function deriveSharing(
  facts: CampaignFacts,
  record: SharingSnapshot | null,
  ctx: {
    now: number;
    decisionDeadline?: number | undefined;
    decisionDeadlineMs: number;
    upstreamCnpId: string;
    partnerIsDca?: boolean | undefined;
  },
): SharingDecision {
  const phase = facts.phase;
  if (isFinalCampaignPhase(phase, facts.campaignStatus)) return { phase, actions: {} };
  if (!record) {
    if (phase === 'share-pending' || phase === 'awaiting-dca')
      return {
        phase: 'sharing',
        actions: {},
        note: { event: 'sharing-missing', detail: 'the registry shows no share: sharing again' },
      };
    return { phase, actions: {} };
  }
  const partner = record.upstreamCnpId ?? ctx.upstreamCnpId;
  switch (record.sharingStatus) {
    case 'PENDING':
      return {
        phase: 'share-pending',
        actions: { share: clear, 'share-declined': clear },
        ...(ctx.decisionDeadline === undefined ? { decisionDeadline: ctx.now + ctx.decisionDeadlineMs } : {}),
        detail: partner,
      };
    case 'ACCEPTED':
      if (ctx.partnerIsDca && (phase === 'share-pending' || phase === 'sharing' || phase === 'awaiting-dca'))
        return {
          phase: 'running',
          dcaComplete: true,
          actions: {
            share: clear,
            'share-declined': clear,
            'decision-overdue': clear,
            'dca-unconfirmed': clear,
          },
          decisionDeadline: 'clear',
          detail: `accepted by ${partner}, a DCA (GET /enum/dca): once a DCA accepts, the campaign may run on MNO networks`,
        };
      if (phase === 'share-pending' || phase === 'sharing')
        return {
          phase: 'awaiting-dca',
          actions: { share: clear, 'share-declined': clear, 'decision-overdue': clear },
          decisionDeadline: ctx.now + ctx.decisionDeadlineMs,
          detail: `accepted by ${partner}`,
        };
      return { phase, actions: { share: clear, 'share-declined': clear } };
    case 'DECLINED':
      return {
        phase: 'share-declined',
        actions: {
          'decision-overdue': clear,
          'share-declined': {
            set: true,
            action: 'resubmit with changes (same partner), or shareWith another partner',
            reason: `${partner} declined: ${record.explanation || 'no explanation given'}`,
          },
        },
        decisionDeadline: 'clear',
        ...(record.explanation ? { detail: record.explanation } : {}),
      };
    default:
      return {
        phase,
        actions: {},
        note: { event: 'sharing-unknown-status', detail: record.sharingStatus || '(empty)' },
      };
  }
}

/**
 * Whether a share with `upstreamCnpId` already at the registry is adopted instead of shared again: a
 * PENDING or ACCEPTED share (a retry, or a continue-as-new between the PUT and recording it), or the
 * same partner's DECLINED one unless this is a resubmission (the campaign was changed).
 */
export function adoptExistingShare(
  existing: SharingSnapshot | null,
  upstreamCnpId: string,
  resubmission: boolean,
): boolean {
  if (!existing) return false;
  return (
    existing.sharingStatus === 'PENDING' ||
    existing.sharingStatus === 'ACCEPTED' ||
    (existing.sharingStatus === 'DECLINED' && !resubmission && existing.upstreamCnpId === upstreamCnpId)
  );
}

/**
 * After the registry refused a share PUT with `upstreamCnpId`, where the read before it showed no share
 * to adopt: a PENDING or ACCEPTED share with that partner now is the one an earlier attempt of the same
 * call committed (its answer lost, then retried), not a refusal to hand to an operator.
 */
export function madeByThisShare(after: SharingSnapshot, upstreamCnpId: string): boolean {
  return (
    after.upstreamCnpId === upstreamCnpId &&
    (after.sharingStatus === 'PENDING' || after.sharingStatus === 'ACCEPTED')
  );
}

// -------------------------------------------------------------------------------------------------
// Campaign record
// -------------------------------------------------------------------------------------------------

export interface SnapshotDecision {
  phase: CampaignPhase;
  /** Clear every needs-action entry first (the campaign ended at the registry). */
  clearAll: boolean;
  actions: Record<string, ActionChange>;
  /** The campaign is (now) deactivated. */
  deactivated: boolean;
  /** MNOs newly reported SUSPENDED (not yet recorded). */
  newSuspensions: string[];
  detail?: string;
}

/**
 * A POLITICAL campaign the registry reports EXPIRED was deactivated because its brand's political vet
 * expired when: the expiry came before the campaign's term ended, an event said so, or the brand
 * workflow reports political campaigns affected.
 */
export function politicalDeactivation(
  snapshot: CampaignSnapshot,
  ctx: { usecase: string; eventSeen: boolean; brandSaysAffected?: boolean | undefined },
): boolean {
  if (snapshot.status !== 'EXPIRED' || ctx.usecase !== 'POLITICAL') return false;
  return expiredEarly(snapshot) || ctx.eventSeen || (ctx.brandSaysAffected ?? false);
}

/** The campaign expired before its renewal or expiration date. */
export function expiredEarly(snapshot: CampaignSnapshot): boolean {
  return (
    !!snapshot.expirationDate &&
    !!snapshot.nextRenewalOrExpirationDate &&
    snapshot.expirationDate < snapshot.nextRenewalOrExpirationDate
  );
}

/** Does deciding on this EXPIRED record need the brand workflow's word (political vet expired)? */
export function needsBrandWordOnExpiry(
  snapshot: CampaignSnapshot,
  usecase: string,
  eventSeen: boolean,
): boolean {
  return snapshot.status === 'EXPIRED' && usecase === 'POLITICAL' && !expiredEarly(snapshot) && !eventSeen;
}

/** The registry's campaign record: expiry, political deactivation, suspensions. */
export function deriveSnapshot(
  facts: CampaignFacts & { deactivated: boolean; knownSuspensions: readonly string[] },
  snapshot: CampaignSnapshot,
  politicalVetExpired: boolean,
): SnapshotDecision {
  const base: SnapshotDecision = {
    phase: facts.phase,
    clearAll: false,
    actions: {},
    deactivated: facts.deactivated,
    newSuspensions: [],
  };
  if (isFinalCampaignPhase(facts.phase, facts.campaignStatus)) return base;
  base.newSuspensions = Object.entries(snapshot.mnoOperationStatus ?? {})
    .filter(([mnoId, op]) => op === 'SUSPENDED' && !facts.knownSuspensions.includes(mnoId))
    .map(([mnoId]) => mnoId);
  if (snapshot.status === 'EXPIRED' && politicalVetExpired)
    return {
      ...base,
      phase: 'deactivated',
      clearAll: true,
      deactivated: true,
      actions: {
        deactivated: {
          set: true,
          action: 'order or import a new political vet for the brand, then order the campaign again',
          reason: `political campaign deactivated by the registry (${snapshot.expirationDate ?? 'today'}): the brand's political vet expired`,
        },
      },
      detail: 'the brand political vet expired',
    };
  if (snapshot.status === 'EXPIRED')
    return {
      ...base,
      phase: 'expired',
      clearAll: true,
      detail: `expired ${snapshot.expirationDate ?? ''}`.trim(),
    };
  if (snapshot.status !== 'ACTIVE' && !facts.deactivated)
    return { ...base, deactivated: true, detail: `registry status ${snapshot.status}` };
  return base;
}

/**
 * awaiting-dca → running: CAMPAIGN_DCA_COMPLETE was seen (the caller has just read the share ACCEPTED).
 * `mnoOperationStatusDecides` is only for histories recorded before the change: the spec has no
 * `mnoOperationStatus` (a simulator extra), so it decides nothing any longer.
 */
export function deriveDcaComplete(
  facts: CampaignFacts,
  snapshot: CampaignSnapshot | undefined,
  dcaEventSeen: boolean,
  mnoOperationStatusDecides = false,
): { phase: CampaignPhase; detail?: string } {
  if (facts.phase !== 'awaiting-dca') return { phase: facts.phase };
  if (dcaEventSeen) return { phase: 'running', detail: 'CAMPAIGN_DCA_COMPLETE, share ACCEPTED' };
  if (
    mnoOperationStatusDecides &&
    Object.values(snapshot?.mnoOperationStatus ?? {}).some((op) => op === 'REGISTERED')
  )
    return { phase: 'running', detail: 'MNO operation status REGISTERED' };
  return { phase: facts.phase };
}

/** The needs-action key a passed decision deadline raises in `phase` (`specLifecycle`: see context.ts). */
export function overdueKey(phase: CampaignPhase, specLifecycle: boolean): string {
  return phase === 'awaiting-dca' && specLifecycle ? 'dca-unconfirmed' : 'decision-overdue';
}

/** The needs-action entry a passed decision deadline raises. */
export function overdueAction(
  phase: CampaignPhase,
  specLifecycle: boolean,
  ctx: { deadline: number; waitsFor: string; partner: string },
): { key: string; action: string; reason: string } {
  const by = new Date(ctx.deadline).toISOString();
  if (overdueKey(phase, specLifecycle) === 'dca-unconfirmed')
    return {
      key: 'dca-unconfirmed',
      action:
        'check the campaign in the registry portal: if it shows as accepted by the DCA, confirm it (tcr campaign confirm-dca REF; update confirmDcaComplete); otherwise contact the upstream partner, and acknowledge to wait another period',
      reason: `no CAMPAIGN_DCA_COMPLETE by ${by}: the share was ACCEPTED by ${ctx.partner}, which is not a DCA (GET /enum/dca), and its DCA's acceptance is not confirmed`,
    };
  return {
    key: 'decision-overdue',
    action: 'contact the upstream partner / DCA',
    reason: `no decision by ${by}: ${ctx.waitsFor}`,
  };
}

/** Does acknowledging `key` move the decision deadline a period on (instead of raising it again at once)? */
export function movesDeadline(key: string): boolean {
  return key === 'decision-overdue' || key === 'dca-unconfirmed';
}

/** A running campaign that is deactivated (political vet expired) moves to `deactivated`. */
export function deriveDeactivated(
  facts: CampaignFacts,
  deactivated: boolean,
): { phase: CampaignPhase; action?: ActionChange } {
  if (!deactivated || facts.phase !== 'running') return { phase: facts.phase };
  return {
    phase: 'deactivated',
    action: {
      set: true,
      action: 'order or import a new political vet for the brand; then resubmit',
      reason: 'political campaign deactivated by the registry',
    },
  };
}

/** The needs-action entry an MNO suspension raises. */
export function suspensionAction(mnoId: string, mnoName?: string, description?: string): ActionChange {
  return {
    set: true,
    action: 'contact the MNO / DCA about the suspension; acknowledge when handled',
    reason: `${mnoName ?? 'MNO'} (${mnoId}) suspended the campaign${description ? `: ${description}` : ''}`,
  };
}

/** Keys an operator clears with `acknowledge` (the others are cleared by acting on them). */
export function acknowledgeable(key: string): boolean {
  return /^(suspended-|nudge-|decision-overdue$|dca-unconfirmed$|registry-error$)/.test(key);
}

/** The upstream partner is not listed at the registry: refused before the billed creation. */
export function unknownPartnerRefusal(
  upstreamCnpId: string,
  checkedAt: string,
): { reason: string; action: string } {
  return {
    reason: `upstream partner ${upstreamCnpId} is not listed at the registry (GET /enum/cnp, GET /enum/dca; lists read ${checkedAt}): the campaign would be created and billed, then could not be shared; nothing was created`,
    action:
      'shareWith a partner the registry lists (tcr campaign share REF --partner CNP; the campaign is then checked and created), or cancel',
  };
}
