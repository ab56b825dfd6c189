/**
 * The brand workflow's contract with its callers: its type name, input, options and result, its
 * phases, its status (the `status` query) and the query itself. The campaign activities, the order
 * client and the CLI start and read a brand through these; the workflow (src/workflows/brand) answers
 * with them. Its updates are ./brand-operations.ts. Zod-free and type-only apart from the query
 * definition, so workflow code may import it.
 */
import { defineQuery } from '@temporalio/workflow';
import type { BrandRegistration } from '../registry/schemas.js';
import type { BrandSnapshot } from './activity-types.js';
import type { AuditTrail } from './audit.js';
import type { BackoffSchedule } from './backoff.js';
import type { RegistryErrorEntry } from './operations.js';

/** The brand workflow's registered name (src/workflows/index.ts checks that it exports it). */
export const BRAND_WORKFLOW_TYPE = 'brandWorkflow';

export interface EnhancedVetPolicy {
  /** A STANDARD vet scoring below this orders an ENHANCED vet. */
  belowScore: number;
  /** Provider for the ENHANCED vet. */
  evpId: string;
}

export interface BrandWorkflowOptions {
  /**
   * Safety poll of a settled brand (default 7 days, ± a fifth at random): the estate sweep notices a
   * change whose webhook was lost; this timer is the net under the sweep.
   */
  steadyPollMs?: number;
  /** Poll schedule while a change is expected (default 1 min doubling to 1 h). */
  pendingPoll?: BackoffSchedule;
  /** Vet result window (default 48 h, the spec's limit). */
  vetResultWindowMs?: number;
  /** Extra time after the window before a vet is declared timed out (default 2 h). */
  vetGraceMs?: number;
  /** Poll schedule of a vet (default 1 min doubling to 1 h). */
  vetPoll?: BackoffSchedule;
  enhancedVetPolicy?: EnhancedVetPolicy;
  /**
   * How long awaiting-contact-verification waits before it raises needs-action
   * `contact-verification-overdue` (default 3 days); acknowledging it waits this long again.
   */
  contactVerificationDeadlineMs?: number;
  /**
   * How long awaiting-sole-proprietor-verification waits before it raises needs-action
   * `sole-proprietor-verification-overdue` (default 3 days).
   */
  soleProprietorVerificationDeadlineMs?: number;
  /** How long appeal-pending waits before it raises needs-action `appeal-overdue` (default 7 days). */
  appealReviewDeadlineMs?: number;
  /** Continue-as-new when history reaches this many events (default 10 000; lowered in tests). */
  continueAsNewAtHistoryLength?: number;
  auditLimit?: number;
  dedupeLimit?: number;
}

/**
 * What a brand workflow is started with. (A continue-as-new run also carries the workflow's state,
 * which only the workflow knows: src/workflows/brand/state.ts, `BrandRunInput`.)
 */
export interface BrandWorkflowInput {
  reference: string;
  account: string;
  /**
   * Registration fields (`referenceId` equals `reference`): required at start. A continue-as-new input
   * never carries them at the top level; the carried state holds them until the brand is registered,
   * then they are dropped (personal data).
   */
  registration?: BrandRegistration;
  /**
   * Instead of a registration: a brand the registry already has, adopted by `tcr import`, as the
   * registry's list showed it (statuses only, no personal data). The workflow enters the phase this
   * record puts the brand in and writes nothing at the registry.
   */
  adopt?: BrandSnapshot;
  options?: BrandWorkflowOptions;
}

export interface BrandResult {
  phase: BrandPhase;
  brandId?: string;
  /** True when the registry holds a brand registered for this reference (its fee, if any, is charged). */
  registered: boolean;
  status: BrandStatus;
}

/** The brand workflow's signature, for typed handles (`WorkflowHandle<BrandWorkflow>`). */
export type BrandWorkflow = (input: BrandWorkflowInput) => Promise<BrandResult>;

export type BrandPhase =
  | 'registering'
  /** The registry refused the registration (400): correct it with correctBrand, or cancel. */
  | 'registration-rejected'
  /** PUBLIC_PROFIT (and GOVERNMENT from 2027-01-21): the business contact must verify by e-mail. */
  | 'awaiting-contact-verification'
  /**
   * SOLE_PROPRIETOR, SELF_DECLARED: until the campaign builder supports the SOLE_PROPRIETOR use case
   * for it (or the registry reports it VERIFIED / VETTED_VERIFIED).
   */
  | 'awaiting-sole-proprietor-verification'
  /** UNVERIFIED: the operator corrects and revets, or appeals. */
  | 'needs-correction'
  /** An appeal was filed; waiting for the registry's review. */
  | 'appeal-pending'
  /** Verified (VERIFIED or VETTED_VERIFIED): campaigns may be created. */
  | 'ready'
  /** The registry reports the brand no longer ACTIVE (e.g. DELETED). Final. */
  | 'deleted'
  /** Cancelled by the operator. Final; the brand is left as it is at the registry. */
  | 'cancelled';

export const terminalBrandPhases: readonly BrandPhase[] = ['deleted', 'cancelled'];

/** Every brand phase (the compiler keeps it whole: a phase missing or unknown here fails to build). */
export const brandPhaseNames = Object.keys({
  registering: 0,
  'registration-rejected': 0,
  'awaiting-contact-verification': 0,
  'awaiting-sole-proprietor-verification': 0,
  'needs-correction': 0,
  'appeal-pending': 0,
  ready: 0,
  deleted: 0,
  cancelled: 0,
} satisfies Record<BrandPhase, 0>) as BrandPhase[];

export type VetState =
  | 'ordering'
  | 'pending'
  | 'under-review'
  | 'active'
  | 'failed'
  | 'expired'
  | 'timed-out'
  /** The registry refused the order or import (400). */
  | 'rejected'
  /** The brand was cancelled while the vet waited; its workflow stopped. */
  | 'cancelled';

export interface VetStatus {
  seq: number;
  workflowId: string;
  /** `adopt`: a vet the registry had when `tcr import` adopted the brand (nothing ordered here). */
  mode: 'order' | 'import' | 'adopt';
  evpId: string;
  vettingClass?: string;
  vettingId?: string;
  state: VetState;
  score?: number;
  reasons?: string[];
  vettedDate?: string;
  /** Workflow time by which a result is expected (48 h + grace after the order). */
  deadline?: string;
  /** Seq of the vet that caused this one (enhanced-after-low-score policy). */
  followUpOf?: number;
  followUpOrdered?: boolean;
}

export interface OperatorAction {
  /**
   * Stable key: 'identity', 'registration', 'registry-error', `vet-{seq}`, and a wait past its
   * deadline: 'contact-verification-overdue', 'sole-proprietor-verification-overdue', 'appeal-overdue'.
   */
  key: string;
  action: string;
  reason: string;
  since: string;
  registryErrors?: RegistryErrorEntry[];
}

export interface WaitingFor {
  what: string;
  /** Next reconciliation poll (workflow time, ISO). */
  nextPollAt?: string;
  /** Deadline, when the wait has one. */
  until?: string;
}

export interface BrandStatus {
  workflowType: 'brand';
  reference: string;
  account: string;
  phase: BrandPhase;
  brandId?: string;
  entityType: string;
  identityStatus?: string;
  brandStatus?: string;
  contactVerifiedAt?: string;
  optionalAttributes: Record<string, unknown>;
  vets: VetStatus[];
  waitingFor?: WaitingFor;
  needsAction: OperatorAction[];
  /** Notices that need no action right now (an expired vet, affected political campaigns). */
  alerts: string[];
  /** True when a POLITICAL vet expired: the registry deactivates political campaigns. */
  politicalCampaignsAffected: boolean;
  lastGroup3UpdateAt?: string;
  cancelReason?: string;
  /** Operator operations queued behind the one running (oldest first). */
  pendingOperations: string[];
  /** Runs of this workflow id (1 + continue-as-new count). */
  runs: number;
  audit: AuditTrail;
}

export const brandStatusQuery = defineQuery<BrandStatus>('status');
