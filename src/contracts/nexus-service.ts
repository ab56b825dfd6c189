/**
 * The Nexus service order systems call from their own namespace (issue 38, docs/order-systems.md):
 * order a brand, a vet or a campaign and hear its outcome, steer a registration, read where it stands.
 * Names and types only: the handlers (src/nexus), the outcome workflow (src/workflows/nexus) and an
 * order system's workflow (examples/order-system) import it. Workflow-safe: nexus-rpc's definitions
 * and types, no zod, nothing with side effects.
 *
 * Ordering is asynchronous: the operation completes with an `OrderResult` once the registration has
 * settled (ready / running, or the refusal, decline, needs-action or end that stops it, with its
 * reason), however long that takes. A retried start (same Nexus request id) attaches to the same
 * order; ordering the same reference again never registers or bills twice (the order API's
 * idempotent start). Steering operations and `status` are synchronous and answer at once.
 * Inputs are validated at the edge with the order API's strict schemas: a bad one fails the
 * operation with a Nexus BAD_REQUEST handler error naming every field at fault, nothing started.
 */
import * as nexus from 'nexus-rpc';
import type { BrandPhase, VetState } from './brand.js';
import type {
  AppealRequest,
  BrandOperationOutcome,
  CorrectBrandRequest,
  OrderVetRequest,
} from './brand-operations.js';
import type { CampaignPhase } from './campaign.js';
import type {
  ApproveFeeRequest,
  CampaignOperationOutcome,
  ConfirmDcaCompleteRequest,
  ResubmitRequest,
} from './campaign-operations.js';
import type { EntityNotification, NotifiedEntity, OrderOutcome } from './notifications.js';

/** The service's name (what an endpoint's callers address). */
export const ORDER_SYSTEM_SERVICE_NAME = 'tcrOrders';
/** The endpoint `tcr dev` creates, targeting the product's namespace and `tcr-workflows`. */
export const DEFAULT_ORDER_ENDPOINT = 'tcr-orders';
/** The example order system's namespace and task queue (examples/order-system, `tcr dev`). */
export const EXAMPLE_ORDERS_NAMESPACE = 'orders';
export const EXAMPLE_ORDERS_TASK_QUEUE = 'order-fulfilment';

/**
 * A brand order: the order API's shape (src/orders/brand-order.ts, `BrandOrderSchema`): the CSP's
 * reference, the CSP account, the registration fields in `brand`.
 */
export interface NexusBrandOrder {
  reference: string;
  account: string;
  brand: Record<string, unknown>;
}

/** A campaign order: the order API's shape (src/orders/campaign-orders.ts, `CampaignOrderSchema`). */
export interface NexusCampaignOrder {
  reference: string;
  account: string;
  brandReference: string;
  upstreamCnpId: string;
  requireFeeApproval?: boolean;
  campaign: Record<string, unknown>;
}

/**
 * A vet order on a brand (billed): `idempotencyKey` is sent as the brand's update id, default the
 * Nexus request id, so a retried operation is answered with the first order's vet.
 */
export interface NexusVetOrder extends OrderVetRequest {
  account: string;
  brandReference: string;
  idempotencyKey?: string;
}

/** How an ordered brand or campaign settled (or where it stood when an operator was needed). */
export interface OrderResult {
  entity: NotifiedEntity;
  account: string;
  reference: string;
  /** The entity's workflow id (`brand/{account}/{reference}`, ...) in the product's namespace. */
  workflowId: string;
  /** `ready` / `running` on success; `refused`, `declined`, `needs-action`, ... with `reason`. */
  outcome: OrderOutcome;
  phase: BrandPhase | CampaignPhase | string;
  /** Why (refusal or decline reason, needs-action summary): written by the product, no order data. */
  reason?: string;
  /** The needs-action key an operator must clear (outcome `needs-action`). */
  needsActionKey?: string;
  /** Registry ids known (brandId, campaignId). */
  ids?: Record<string, string>;
  /** The notification the result was read from (deduplicate on it). */
  notificationId: string;
  /** Workflow time of the change (ISO). */
  at: string;
}

/** How an ordered vet settled. */
export interface VetResult {
  account: string;
  brandReference: string;
  vetSeq: number;
  vetWorkflowId: string;
  /** A final vet state: active, failed, expired, timed-out, rejected, cancelled. */
  state: VetState;
  score?: number;
  reasons?: string[];
  vettingId?: string;
}

/**
 * Which brand or campaign a steering operation or `status` is about: the CSP account it was ordered
 * under and its reference (a reference is unique only within its account).
 */
export interface RegistrationRef {
  account: string;
  reference: string;
}

export interface StatusRequest extends RegistrationRef {
  entity: NotifiedEntity;
}

/** Where a registration stands now (the `status` operation). */
export interface StatusResult {
  entity: NotifiedEntity;
  account: string;
  reference: string;
  workflowId: string;
  phase: string;
  outcome: OrderOutcome;
  reason?: string;
  /** Open needs-action entries: key, what the operator should do, why. */
  needsAction: { key: string; action: string; reason: string }[];
  ids?: Record<string, string>;
}

export const orderSystemService = nexus.service(ORDER_SYSTEM_SERVICE_NAME, {
  /** Asynchronous: orders a brand and completes when it is ready or stopped. */
  orderBrand: nexus.operation<NexusBrandOrder, OrderResult>(),
  /** Asynchronous: orders a vet of a brand and completes with the vet's final state. */
  orderVet: nexus.operation<NexusVetOrder, VetResult>(),
  /** Asynchronous: orders a campaign and completes when it runs or is stopped. */
  orderCampaign: nexus.operation<NexusCampaignOrder, OrderResult>(),
  /** Synchronous: where a brand or campaign stands now. */
  status: nexus.operation<StatusRequest, StatusResult>(),
  // Steering (synchronous, each over the workflow's update of the same name).
  correctBrand: nexus.operation<RegistrationRef & CorrectBrandRequest, BrandOperationOutcome>(),
  revetBrand: nexus.operation<RegistrationRef, BrandOperationOutcome>(),
  appealBrand: nexus.operation<RegistrationRef & AppealRequest, BrandOperationOutcome>(),
  cancelBrand: nexus.operation<RegistrationRef & { reason: string }, BrandOperationOutcome>(),
  acknowledgeBrand: nexus.operation<RegistrationRef & { key: string }, BrandOperationOutcome>(),
  approveFee: nexus.operation<RegistrationRef & ApproveFeeRequest, CampaignOperationOutcome>(),
  resubmitCampaign: nexus.operation<RegistrationRef & ResubmitRequest, CampaignOperationOutcome>(),
  shareCampaignWith: nexus.operation<RegistrationRef & { upstreamCnpId: string }, CampaignOperationOutcome>(),
  confirmCampaignDca: nexus.operation<
    RegistrationRef & ConfirmDcaCompleteRequest,
    CampaignOperationOutcome
  >(),
  cancelCampaign: nexus.operation<RegistrationRef & { reason: string }, CampaignOperationOutcome>(),
  acknowledgeCampaign: nexus.operation<RegistrationRef & { key: string }, CampaignOperationOutcome>(),
});

export type OrderSystemService = typeof orderSystemService;

/** The outcome workflow's registered name (src/workflows/nexus/order-outcome.ts). */
export const ORDER_OUTCOME_WORKFLOW_TYPE = 'orderOutcomeWorkflow';

/** What the outcome workflow waits for: a brand's or campaign's settled outcome, or a vet's end. */
export type OrderOutcomeInput =
  | { kind: 'brand' | 'campaign'; account: string; reference: string }
  | { kind: 'vet'; account: string; brandReference: string; vetSeq: number; vetWorkflowId: string };

/** Activities the outcome workflow uses (src/nexus/outcome-activities.ts), on `tcr-workflows`. */
export interface OrderOutcomeActivities {
  /** Subscribes `subscriberWorkflowId` to the entity; returns the current state (a closed one's last). */
  subscribeOrderOutcome(input: OutcomeSubscription): Promise<OrderResult>;
  unsubscribeOrderOutcome(input: OutcomeSubscription): Promise<void>;
  /** Where the entity stands now, read from its status (a settled notification without a reason). */
  readOrderStatus(input: OutcomeSubscription): Promise<StatusResult>;
  /** The vet's state now (from the brand's status); `settled` when it is final. */
  readVet(input: {
    account: string;
    brandReference: string;
    vetSeq: number;
    vetWorkflowId: string;
  }): Promise<{
    settled: boolean;
    result: VetResult;
  }>;
}

export interface OutcomeSubscription extends RegistrationRef {
  entity: NotifiedEntity;
  /** The outcome workflow, signalled with every notification. */
  subscriberWorkflowId: string;
  /** The subscription's id (from the Nexus request id): subscribing again with it changes nothing. */
  subscriptionId: string;
}

/**
 * The outcome workflow's id: one per Nexus operation (its request id), so a retried start attaches to
 * it, and two order systems ordering the same reference each hear the outcome.
 */
export function orderOutcomeWorkflowId(kind: 'brand' | 'campaign' | 'vet', requestId: string): string {
  return `nexus-order/${kind}/${requestId}`;
}

/** A notification as an order result. */
export function orderResultOf(n: EntityNotification, account: string): OrderResult {
  return {
    entity: n.entity,
    account,
    reference: n.reference,
    workflowId: n.workflowId,
    outcome: n.outcome,
    phase: n.phase,
    ...(n.reason !== undefined ? { reason: n.reason } : {}),
    ...(n.needsActionKey !== undefined ? { needsActionKey: n.needsActionKey } : {}),
    ...(n.ids !== undefined ? { ids: n.ids } : {}),
    notificationId: n.notificationId,
    at: n.at,
  };
}
