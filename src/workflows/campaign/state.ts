/**
 * The campaign workflow's state: one plain object, and exactly what continue-as-new carries. Everything
 * the workflow remembers lives here (no loose variables), so nothing can be forgotten at a
 * continue-as-new; a test checks that it survives one.
 */

import type {
  CampaignContent,
  CampaignPhase,
  CampaignStatus,
  CampaignWorkflowInput,
} from '../../contracts/campaign.js';
import type { CampaignSnapshot, MnoMetadataRecord } from '../../contracts/campaign-activity-types.js';
import { emptyAuditTrail } from '../entity/audit.js';
import type { CarriedDelivery } from '../entity/delivery-dedupe.js';
import { initialLoopState, type LoopState } from '../entity/loop.js';
import type { NotifyState } from '../entity/notify.js';
import { emptyOperationQueue, type OperationQueueState } from '../entity/operations.js';
import { emptyFaultState, type FaultState } from '../entity/registry-call.js';
import type { UpdateRecord } from '../entity/update-once.js';

/**
 * What one run of the workflow is started with: the contract's input (src/contracts/campaign.ts), plus,
 * on a continue-as-new run only, the whole state of the run before.
 */
export interface CampaignRunInput extends CampaignWorkflowInput {
  carried?: CampaignState;
}

export interface CampaignState {
  /** What the `status` query shows. */
  status: CampaignStatus;
  /**
   * The campaign fields to create, until the registry has the campaign; dropped once it is created
   * (a later resubmit sends only its changes), so continue-as-new does not carry them any longer.
   */
  content?: CampaignContent;
  /** The MNOs the order names (filters the per-MNO views), kept after `content` is dropped. */
  mnoIDs?: number[];
  /** The registry was asked for a campaign with this reference (a re-order or restart adopts it). */
  lookedUpByReference: boolean;
  /** The registry's last campaign record. */
  snapshot?: CampaignSnapshot;
  /** Per-MNO metadata from creation (or the first read that had it). */
  metadata?: Record<string, MnoMetadataRecord>;
  feeApproved: boolean;
  /** Nonces of the signed fee approvals this workflow took (bounded): a signed approval is used once. */
  feeApprovalNonces?: string[];
  /** Events parked under the campaign id were claimed. */
  claimedParked: boolean;
  /** The brand workflow was asked to tell us when it is ready. */
  watchingBrand: boolean;
  /** Workflow time after which a brand still not ready raises needs-action `brand`. */
  brandDeadline?: number;
  /** Workflow time after which a share or DCA decision is overdue. */
  decisionDeadline?: number;
  /** A CAMPAIGN_DCA_COMPLETE event was received (a hint; reads confirm the share is ACCEPTED). */
  dcaEventSeen: boolean;
  /** A CAMPAIGN_EXPIRED event said the political vet expired (a hint; the read decides). */
  politicalExpiryEventSeen: boolean;
  /** Delivery ids of webhook events already handled, with when (bounded in count and time). */
  deliveries: CarriedDelivery[];
  /**
   * The delivery ids of the webhook events behind each acknowledgeable needs-action entry (`nudge-*`,
   * `suspended-*`), a few per key: acknowledging the entry forgets them, so a later identical event is
   * a new one. Absent in runs before it (read as empty).
   */
  raisedBy?: Record<string, string[]>;
  /**
   * Operator updates by update id, with the outcome its first caller got (patch `update-once`,
   * ../entity/update-once.ts): bounded, carried across continue-as-new.
   */
  updateRequests?: UpdateRecord<CampaignPhase>[];
  /**
   * This workflow decides on what the spec documents (patch `campaign-spec-lifecycle`): set by the
   * loop once the patch is on, read by the message handlers (which never call `patched`).
   */
  specLifecycle?: boolean;
  queue: OperationQueueState;
  faults: FaultState;
  loop: LoopState;
  /** Order systems' subscriptions and the notifications not yet delivered (../entity/notify.ts). */
  notify?: NotifyState;
}

/**
 * A first run's state, from its input: the campaign fields to create, or a campaign the registry
 * already has (`adopt`: created, its share still to be read; the workflow applies the record as it
 * starts).
 */
export function initialCampaignState(
  input: {
    reference: string;
    account: string;
    brandReference: string;
    upstreamCnpId: string;
    requireFeeApproval?: boolean;
  } & ({ campaign: CampaignContent } | { adopt: CampaignSnapshot }),
): CampaignState {
  const adopt = 'adopt' in input ? input.adopt : undefined;
  const content = 'campaign' in input ? input.campaign : undefined;
  return {
    status: {
      workflowType: 'campaign',
      reference: input.reference,
      account: input.account,
      brandReference: input.brandReference,
      phase: adopt ? 'sharing' : 'awaiting-brand',
      usecase: content?.usecase ?? adopt?.usecase ?? '',
      upstreamCnpId: input.upstreamCnpId,
      requireFeeApproval: input.requireFeeApproval ?? false,
      created: adopt !== undefined,
      ...(adopt
        ? {
            alreadyExisted: true,
            campaignId: adopt.campaignId,
            ...(adopt.brandId ? { brandId: adopt.brandId } : {}),
          }
        : {}),
      mno: [],
      shareHistory: [],
      dcaComplete: false,
      suspensions: [],
      nudges: [],
      deactivated: false,
      needsAction: [],
      deliveries: { received: 0, duplicates: 0 },
      pendingOperations: [],
      runs: 1,
      audit: emptyAuditTrail(),
    },
    ...(content ? { content } : {}),
    ...(content?.mnoIDs ? { mnoIDs: content.mnoIDs } : {}),
    lookedUpByReference: adopt !== undefined,
    feeApproved: false,
    claimedParked: false,
    watchingBrand: false,
    dcaEventSeen: false,
    politicalExpiryEventSeen: false,
    deliveries: [],
    queue: emptyOperationQueue(),
    faults: emptyFaultState(),
    loop: initialLoopState(),
  };
}
