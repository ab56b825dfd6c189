/**
 * Types of the brand workflow: input, options, result, carried state. Its phases and status (the
 * `status` query) are the brand contract, src/contracts/brand.ts, re-exported here. Order systems
 * import these (type-only) through src/orders; the campaign workflow follows the same shape.
 */
import type { BrandPhase, BrandStatus } from '../contracts/brand.js';
import type { BrandRegistration } from '../registry/schemas.js';
import type { BrandState } from './brand/state.js';
import type { BackoffSchedule } from './entity/wait.js';

export type {
  BrandPhase,
  BrandStatus,
  OperatorAction,
  VetState,
  VetStatus,
  WaitingFor,
} from '../contracts/brand.js';
export { terminalBrandPhases } from '../contracts/brand.js';

export interface EnhancedVetPolicy {
  /** A STANDARD vet scoring below this orders an ENHANCED vet. */
  belowScore: number;
  /** Provider for the ENHANCED vet. */
  evpId: string;
}

export interface BrandWorkflowOptions {
  /** Reconciliation poll of a settled brand (default 6 h). */
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
  /** Continue-as-new when history reaches this many events (default 10 000; lowered in tests). */
  continueAsNewAtHistoryLength?: number;
  auditLimit?: number;
  dedupeLimit?: number;
}

export interface BrandWorkflowInput {
  reference: string;
  account: string;
  /**
   * Registration fields (`referenceId` equals `reference`): required at start. A continue-as-new input
   * never carries them at the top level; `carried.registration` holds them until the brand is
   * registered, then they are dropped (personal data).
   */
  registration?: BrandRegistration;
  options?: BrandWorkflowOptions;
  /** Set by continue-as-new only: the workflow's whole state (./brand/state.ts). */
  carried?: BrandState;
}

export interface BrandResult {
  phase: BrandPhase;
  brandId?: string;
  /** True when the registry holds a brand registered for this reference (its fee, if any, is charged). */
  registered: boolean;
  status: BrandStatus;
}
