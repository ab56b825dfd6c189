/**
 * The campaign workflow's updates and the operator requests they take, with no zod at run time:
 * workflow code imports this module; ./campaign-requests.ts holds the request schemas the edge parses
 * with.
 */
import { defineUpdate } from '@temporalio/workflow';
import type { z } from 'zod';
import type { CampaignUpdateSchema } from '../registry/schemas.js';
import type { CampaignPhase } from './campaign.js';
import type { SignedApprovalProof } from './fee-approval.js';
import type { OperationOutcome } from './operations.js';

/**
 * The operator's requests, as the updates take them. Type-only (no zod at run time);
 * ./campaign-requests.ts holds the schemas the edge parses them with, and checks at compile time that
 * they describe these.
 */
export interface ApproveFeeRequest {
  approvedBy: string;
  /** Refuse the approval when the expected monthly fee is above this. */
  maxMonthlyFee?: number | undefined;
  /**
   * The approver's signature of this approval (./fee-approval.ts): required when the workers have an
   * approvers file (TCR_FEE_APPROVERS_FILE), checked by the verifyFeeApproval activity.
   */
  signedApproval?: SignedApprovalProof | undefined;
}
export interface ResubmitRequest {
  /** Campaign field changes (PUT /campaign/{id} after creation; merged into the order before). */
  changes: z.input<typeof CampaignUpdateSchema>;
}
/**
 * A change of a created campaign at the registry (PUT /campaign/{id}), `autoRenewal` included: in
 * running, awaiting-dca, deactivated, sharing, share-declined (and winding-down, renewal staying off).
 * `answers`: the needs-action entry (a nudge or a suspension) the change answers, cleared once the
 * registry took it.
 */
export interface UpdateCampaignRequest {
  changes: z.input<typeof CampaignUpdateSchema>;
  answers?: string | undefined;
}
export interface ShareWithRequest {
  upstreamCnpId: string;
}
export interface CampaignCancelRequest {
  reason: string;
}
export interface AcknowledgeRequest {
  key: string;
}
export interface ConfirmDcaCompleteRequest {
  /** Who saw, in the registry portal, that the DCA accepted the campaign. */
  confirmedBy: string;
  note?: string | undefined;
}

/**
 * What every campaign update returns: the operation's outcome and the phase after it (small, so each
 * operator action adds little to history). The full status, audit trail included, is the `status` query.
 */
export type CampaignOperationOutcome = OperationOutcome<CampaignPhase>;

/** Returns once the billed creation has run: `ids.campaignId` when created. */
export const approveFeeUpdate = defineUpdate<CampaignOperationOutcome, [ApproveFeeRequest]>('approveFee');
/** Before creation: returns once the checks ran again (and the creation, when they pass). */
export const resubmitUpdate = defineUpdate<CampaignOperationOutcome, [ResubmitRequest]>('resubmit');
/** Returns once the registry answered the PUT with the updated record (applied to the status). */
export const updateCampaignUpdate = defineUpdate<CampaignOperationOutcome, [UpdateCampaignRequest]>('update');
export const shareWithUpdate = defineUpdate<CampaignOperationOutcome, [ShareWithRequest]>('shareWith');
export const cancelCampaignUpdate = defineUpdate<CampaignOperationOutcome, [CampaignCancelRequest]>('cancel');
/** Clears a needs-action entry that needs no registry call (a suspension or nudge the operator has handled). */
export const acknowledgeUpdate = defineUpdate<CampaignOperationOutcome, [AcknowledgeRequest]>('acknowledge');
/**
 * awaiting-dca only: the operator saw in the registry portal that the DCA accepted the campaign (its
 * CAMPAIGN_DCA_COMPLETE did not come); the workflow reads the share (still ACCEPTED) and runs it. A
 * second call changes nothing and answers `done`, naming the first confirmation.
 */
export const confirmDcaCompleteUpdate = defineUpdate<CampaignOperationOutcome, [ConfirmDcaCompleteRequest]>(
  'confirmDcaComplete',
);
