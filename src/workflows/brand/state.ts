/**
 * The brand workflow's state: one plain object, and exactly what continue-as-new carries. Everything
 * the workflow remembers lives here (no loose variables), so nothing can be forgotten at a
 * continue-as-new; a test checks that every field survives one.
 */
import type { BrandSnapshot } from '../../contracts/activity-types.js';
import type { BrandPhase, BrandStatus, BrandWorkflowInput } from '../../contracts/brand.js';
import type { BrandRegistration } from '../../registry/schemas.js';
import { emptyAuditTrail } from '../entity/audit.js';
import type { CarriedDelivery } from '../entity/delivery-dedupe.js';
import { initialLoopState, type LoopState } from '../entity/loop.js';
import type { NotifyState } from '../entity/notify.js';
import {
  emptyOperationQueue,
  type OperationOutcome,
  type OperationQueueState,
} from '../entity/operations.js';
import { emptyFaultState, type FaultState } from '../entity/registry-call.js';
import type { UpdateRecord } from '../entity/update-once.js';

/**
 * What one run of the workflow is started with: the contract's input (src/contracts/brand.ts), plus,
 * on a continue-as-new run only, the whole state of the run before.
 */
export interface BrandRunInput extends BrandWorkflowInput {
  carried?: BrandState;
}

/** One remembered vet request: its update id and, once it ran, the outcome its caller got. */
export interface VetRequestRecord {
  key: string;
  outcome?: OperationOutcome<BrandPhase>;
}

/** How many vet requests' outcomes a brand remembers. */
export const VET_REQUESTS_KEPT = 200;

export interface BrandState {
  /** What the `status` query shows. */
  status: BrandStatus;
  /**
   * The registration to send, until the registry has the brand; dropped once it is registered, so
   * continue-as-new does not carry personal data the workflow no longer needs.
   */
  registration?: BrandRegistration;
  /** The registry's last brand record (trimmed to what decisions need). */
  snapshot?: BrandSnapshot;
  vetSeq: number;
  /**
   * Adopted (tcr import) and its vets at the registry not read yet: the next reconciliation reads them
   * and follows each (src/workflows/brand/steps.ts, `adoptVets`). Cleared once read.
   */
  vetsToAdopt?: boolean;
  /**
   * Vet orders and imports by update id (the caller's idempotency key, or the id the client made),
   * with the outcome the first caller got: the same id asked again, in this run or a later one, is
   * answered with it. Bounded (`VET_REQUESTS_KEPT`, oldest first out); carried across continue-as-new.
   */
  vetRequests?: VetRequestRecord[];
  /**
   * Every other operator update by update id, with the outcome its first caller got (patch
   * `update-once`, ../entity/update-once.ts): bounded, carried across continue-as-new.
   */
  updateRequests?: UpdateRecord<BrandPhase>[];
  /** Delivery ids of webhook events already handled, with when (bounded in count and time). */
  deliveries: CarriedDelivery[];
  /** An appeal was filed and no identity decision has been seen since. */
  appealPending: boolean;
  /**
   * The campaign builder supports the SOLE_PROPRIETOR use case for this sole proprietor (its "further
   * verification" is done). Cleared when the registry reports the brand UNVERIFIED.
   */
  soleProprietorSupported?: boolean;
  /**
   * The deadline of the operator-facing wait the brand is in (awaiting-contact-verification,
   * awaiting-sole-proprietor-verification, appeal-pending), in workflow time: past it, needs-action.
   * Set on entering the phase, moved a full period by an acknowledge, dropped when the phase is left.
   */
  waitDeadline?: { phase: BrandPhase; at: number };
  /** Campaign workflows waiting to hear that the brand is ready (bounded). */
  readinessWatchers: string[];
  /** Workflow time of the first unconfirmed 404 on the brand. */
  first404At?: number;
  queue: OperationQueueState;
  faults: FaultState;
  loop: LoopState;
  /** Order systems' subscriptions and the notifications not yet delivered (../entity/notify.ts). */
  notify?: NotifyState;
}

/**
 * A first run's state, from its input: a registration to send, or a brand the registry already has
 * (`adopt`: the workflow applies its record as it starts, so the phase here is only the first step).
 */
export function initialBrandState(
  input: { reference: string; account: string } & (
    | { registration: BrandRegistration }
    | { adopt: BrandSnapshot }
  ),
): BrandState {
  const adopted = 'adopt' in input;
  return {
    status: {
      workflowType: 'brand',
      reference: input.reference,
      account: input.account,
      phase: 'registering',
      entityType: adopted ? input.adopt.entityType : input.registration.entityType,
      ...(adopted ? { brandId: input.adopt.brandId } : {}),
      optionalAttributes: {},
      vets: [],
      needsAction: [],
      alerts: [],
      politicalCampaignsAffected: false,
      pendingOperations: [],
      runs: 1,
      audit: emptyAuditTrail(),
    },
    ...(adopted ? {} : { registration: { ...input.registration, referenceId: input.reference } }),
    vetSeq: 0,
    deliveries: [],
    appealPending: false,
    readinessWatchers: [],
    queue: emptyOperationQueue(),
    faults: emptyFaultState(),
    loop: initialLoopState(),
  };
}
