/**
 * The brand workflow's decisions as plain functions of state and input: no workflow API, no clock of
 * their own (`now` is passed in). The workflow applies what they return; tests call them directly.
 */

import type { BrandSnapshot, VetRecord } from '../../contracts/activity-types.js';
import type {
  BrandPhase,
  BrandWorkflowOptions,
  EnhancedVetPolicy,
  VetState,
  VetStatus,
} from '../../contracts/brand.js';
import type { VetProgress } from '../../contracts/vet.js';
import { contactVerificationRequired } from '../../registry/rules.js';
import type { EntityType } from '../../registry/schemas.js';
import type { ActionChange } from '../entity/bookkeeping.js';
import { DAY_MS, MINUTE_MS } from '../entity/wait.js';

export type { ActionChange };

export interface PhaseDecision {
  phase: BrandPhase;
  /** Needs-action `identity`. */
  identity: ActionChange;
  detail?: string;
  /** The identity is decided again (the appeal, if any, is over). */
  appealOver: boolean;
}

/**
 * The phase the registry's brand record puts the brand in: contact verification first, then identity.
 * `appealPending`: an appeal was filed and no identity decision has been seen since.
 * `soleProprietorSupported`: the campaign builder supports the SOLE_PROPRIETOR use case for the brand
 * (`GET /campaignBuilder/brand/{id}/usecase/SOLE_PROPRIETOR`): a SELF_DECLARED sole proprietor's
 * "further verification" is done. `legacyMobilePhone`: histories recorded before the builder decided
 * (unpatched replay) read the simulator's `mobilePhoneVerifiedDate` instead, as they did.
 */
export function deriveBrandPhase(
  snapshot: BrandSnapshot,
  ctx: {
    entityType: string;
    appealPending: boolean;
    now: number;
    soleProprietorSupported?: boolean;
    legacyMobilePhone?: boolean;
  },
): PhaseDecision {
  const clear: ActionChange = { set: false };
  if (snapshot.status !== 'ACTIVE')
    return {
      phase: 'deleted',
      identity: clear,
      detail: `registry status ${snapshot.status}`,
      appealOver: false,
    };
  const entityType = (snapshot.entityType || ctx.entityType) as EntityType;
  if (
    contactVerificationRequired(entityType, new Date(ctx.now)) &&
    !snapshot.businessContactEmailVerifiedDate
  )
    return { phase: 'awaiting-contact-verification', identity: clear, appealOver: false };
  switch (snapshot.identityStatus) {
    case 'UNVERIFIED':
      if (ctx.appealPending) return { phase: 'appeal-pending', identity: clear, appealOver: false };
      return {
        phase: 'needs-correction',
        identity: {
          set: true,
          action: 'correctBrand + revet, or appeal',
          reason:
            'the registry reports the brand UNVERIFIED: information unverified, incorrect, incomplete or changed',
        },
        appealOver: false,
      };
    case 'SELF_DECLARED':
      if (entityType === 'SOLE_PROPRIETOR' && ctx.legacyMobilePhone && snapshot.mobilePhoneVerifiedDate)
        return {
          phase: 'ready',
          identity: clear,
          detail: 'sole proprietor verified (mobile phone one-time password)',
          appealOver: true,
        };
      if (entityType === 'SOLE_PROPRIETOR' && !ctx.legacyMobilePhone && ctx.soleProprietorSupported)
        return {
          phase: 'ready',
          identity: clear,
          detail: 'sole proprietor verified: the campaign builder supports the SOLE_PROPRIETOR use case',
          appealOver: true,
        };
      return { phase: 'awaiting-sole-proprietor-verification', identity: clear, appealOver: false };
    default:
      return { phase: 'ready', identity: clear, detail: snapshot.identityStatus, appealOver: true };
  }
}

/** The use case whose support decides a SELF_DECLARED sole proprietor's readiness. */
export const SOLE_PROPRIETOR_USECASE = 'SOLE_PROPRIETOR';

export const DEFAULT_CONTACT_VERIFICATION_DEADLINE_MS = 3 * DAY_MS;
export const DEFAULT_SOLE_PROPRIETOR_VERIFICATION_DEADLINE_MS = 3 * DAY_MS;
export const DEFAULT_APPEAL_REVIEW_DEADLINE_MS = 7 * DAY_MS;

/** An operator-facing wait: how long it lasts before needs-action, and what that asks. */
export interface BrandWait {
  /** The needs-action key it raises past its deadline. */
  key: string;
  periodMs: number;
  action: string;
  /** What did not happen (the reason reads "… by {deadline}"). */
  missing: string;
}

/** The wait of `phase` with the workflow's options, or undefined for a phase that is no such wait. */
export function brandWait(phase: BrandPhase, opts: BrandWorkflowOptions): BrandWait | undefined {
  switch (phase) {
    case 'awaiting-contact-verification':
      return {
        key: 'contact-verification-overdue',
        periodMs: opts.contactVerificationDeadlineMs ?? DEFAULT_CONTACT_VERIFICATION_DEADLINE_MS,
        action:
          'remind the business contact to complete the verification e-mail (or correct businessContactEmail)',
        missing: 'the business contact has not verified the e-mail',
      };
    case 'awaiting-sole-proprietor-verification':
      return {
        key: 'sole-proprietor-verification-overdue',
        periodMs:
          opts.soleProprietorVerificationDeadlineMs ?? DEFAULT_SOLE_PROPRIETOR_VERIFICATION_DEADLINE_MS,
        action: 'ask the sole proprietor to answer the verification text (one-time password to mobilePhone)',
        missing: 'the campaign builder does not support the SOLE_PROPRIETOR use case for the brand yet',
      };
    case 'appeal-pending':
      return {
        key: 'appeal-overdue',
        periodMs: opts.appealReviewDeadlineMs ?? DEFAULT_APPEAL_REVIEW_DEADLINE_MS,
        action: 'call the registry about the appeal / appeal again',
        missing: 'the registry has not decided the appeal',
      };
    default:
      return undefined;
  }
}

/** Needs-action keys of the waits past their deadline: acknowledgeable (the others are cleared by acting). */
export const brandWaitKeys: readonly string[] = [
  'contact-verification-overdue',
  'sole-proprietor-verification-overdue',
  'appeal-overdue',
];

/**
 * A 404 on the brand is a fact only when the registry confirms it: a second 404 at least
 * NOT_FOUND_CONFIRM_MS after the first, and the registry's list answering without the brand. A wrong
 * base URL or a registry fault answers 404 to the list as well, so it never ends a brand.
 */
export const NOT_FOUND_CONFIRM_MS = 5 * MINUTE_MS;

export type NotFoundVerdict = 'deleted' | 'confirm-later' | 'present';

export function notFoundVerdict(input: {
  first404At: number;
  now: number;
  /** What the list said: absent (200 without it), present (200 with it), failed (anything else). */
  list: 'absent' | 'present' | 'failed' | 'not-asked';
}): NotFoundVerdict {
  if (input.list === 'present') return 'present';
  if (input.now - input.first404At < NOT_FOUND_CONFIRM_MS) return 'confirm-later';
  return input.list === 'absent' ? 'deleted' : 'confirm-later';
}

/** What a vet's progress asks of the operator (needs-action `vet-{seq}`). */
export function vetAction(seq: number, progress: VetProgress, deadline: string | undefined): ActionChange {
  switch (progress.state) {
    case 'failed':
      return {
        set: true,
        action: 'review the vet reasons; correct the brand and order again',
        reason: `vet #${seq} FAILED: ${(progress.reasons ?? []).join('; ') || 'no reasons given'}`,
      };
    case 'timed-out':
      return {
        set: true,
        action: 'contact the vetting provider or order again',
        reason: `vet #${seq} had no result by ${deadline ?? 'its deadline'}`,
      };
    case 'rejected':
      return {
        set: true,
        action: 'fix and order again',
        reason: `the registry refused vet #${seq}: ${progress.detail ?? ''}`.trim(),
        registryErrors: (progress.reasons ?? []).map((d) => ({ description: d, fields: [] })),
      };
    default:
      return { set: false };
  }
}

const inProgress: readonly VetState[] = ['ordering', 'pending', 'under-review'];

/** Whether a vet in `state` still waits for its result. */
export function vetStateInProgress(state: VetState): boolean {
  return inProgress.includes(state);
}

export function vetInProgress(vet: VetStatus): boolean {
  return vetStateInProgress(vet.state);
}

/** Vets the registry now reports EXPIRED among those we hold ACTIVE. */
export function newlyExpiredVets(vets: readonly VetStatus[], records: readonly VetRecord[]): VetStatus[] {
  return vets.filter(
    (v) =>
      v.state === 'active' &&
      records.some((r) => r.vettingId === v.vettingId && r.vettingStatus === 'EXPIRED'),
  );
}

/** STANDARD vets that scored below the policy's threshold and have no follow-up yet. */
export function vetsNeedingEnhancedFollowUp(
  vets: readonly VetStatus[],
  policy: EnhancedVetPolicy | undefined,
): VetStatus[] {
  if (!policy) return [];
  return vets.filter(
    (v) =>
      v.state === 'active' &&
      v.vettingClass === 'STANDARD' &&
      !v.followUpOrdered &&
      v.score !== undefined &&
      v.score < policy.belowScore,
  );
}

/** Does a vet-related event concern this vet (provider, and vetting id once known)? */
export function eventConcernsVet(vet: VetStatus, event: { evpId?: string; vettingId?: string }): boolean {
  if (!vetInProgress(vet)) return false;
  if (event.evpId && event.evpId !== vet.evpId) return false;
  if (event.vettingId && vet.vettingId && event.vettingId !== vet.vettingId) return false;
  return Boolean(event.evpId || event.vettingId);
}

/** 501(c)(3), (4), (5) or (6) in any common spelling: such non-profits may not request a Political vet. */
const political501cPattern = /501\s*\(?\s*c\s*\)?\s*\(?\s*([3-6])\s*\)?/i;

export function hasPoliticalAccessByTaxStatus(
  entityType: string,
  optionalAttributes: Record<string, unknown>,
): boolean {
  const tax = optionalAttributes.taxExemptStatus;
  return entityType === 'NON_PROFIT' && typeof tax === 'string' && political501cPattern.test(tax);
}
