/**
 * The campaign workflow's contract with its callers: its phases, its status (the `status` query), the
 * campaign fields an order carries, and the query itself. The order client and the CLI read a campaign
 * through these; the workflow (src/workflows/campaign) answers with them. Zod-free and type-only apart
 * from the query definition, so workflow code may import it.
 */
import { defineQuery } from '@temporalio/workflow';
import type { CampaignCreation } from '../registry/schemas.js';
import type { AuditTrail } from './audit.js';
import type { OperatorAction, WaitingFor } from './brand.js';
import type { MnoMetadataRecord } from './campaign-activity-types.js';

export type CampaignPhase =
  /** Waiting until the brand workflow is 'ready' and the registry confirms it. */
  | 'awaiting-brand'
  /** Campaign builder, use case and sub-use-case checks (reads only, nothing billed). */
  | 'checking'
  /** Refused before any fee: use case not supported, sub-use-case count, no qualifying MNO, or a 400 on create. Operator: resubmit or cancel. */
  | 'refused'
  /** requireFeeApproval: waiting for the operator's approveFee. */
  | 'awaiting-fee-approval'
  /** POST /campaignBuilder (billed once; idempotent by referenceId). */
  | 'creating'
  /** Sharing with the upstream partner (PUT sharing). */
  | 'sharing'
  /** Shared, PENDING: the partner decides. Change and rescind are refused. */
  | 'share-pending'
  /** DECLINED with an explanation: operator resubmits (changes) or shares with another partner. */
  | 'share-declined'
  /** ACCEPTED: waiting for CAMPAIGN_DCA_COMPLETE (all DCAs accepted). */
  | 'awaiting-dca'
  /** Accepted by all DCAs: may run on MNO networks. */
  | 'running'
  /** A political campaign whose brand's political vet expired: deactivated by the registry. Final once the registry no longer reports it ACTIVE. */
  | 'deactivated'
  /** The registry reports the campaign EXPIRED. Final. */
  | 'expired'
  /** Cancelled by the operator. Final (a created campaign is left as it is at the registry). */
  | 'cancelled';

export const terminalCampaignPhases: readonly CampaignPhase[] = ['expired', 'cancelled'];

/** One MNO's view of the campaign, from the registry's mnoMetadata. */
export interface MnoView
  extends Pick<
    MnoMetadataRecord,
    'mno' | 'qualify' | 'mnoReview' | 'mnoSupport' | 'brandTier' | 'brandDailyCap'
  > {
  mnoId: string;
  /** Why this MNO would not accept the campaign (empty when it qualifies). */
  reasons: string[];
  /** Operation status reported by the registry (REGISTERED, SUSPENDED, ...) where known. */
  operationStatus?: string;
}

export interface Suspension {
  mnoId: string;
  mnoName?: string;
  at: string;
  description?: string;
}

export interface Nudge {
  nudgeIntent: string;
  description?: string;
  at: string;
}

export interface ShareAttempt {
  upstreamCnpId: string;
  sharingStatus: string;
  explanation?: string;
  sharedDate?: string;
  statusDate?: string;
}

export interface CampaignStatus {
  workflowType: 'campaign';
  reference: string;
  account: string;
  brandReference: string;
  phase: CampaignPhase;
  brandId?: string;
  campaignId?: string;
  usecase: string;
  /** Current upstream partner (the order's, or the operator's shareWith). */
  upstreamCnpId: string;
  requireFeeApproval: boolean;
  feeApprovedBy?: string;
  /** Expected monthly fee before creation (campaign builder), the registry's monthlyFee after. */
  expectedMonthlyFee?: number;
  monthlyFee?: number;
  /** True once the registry has created (and billed) the campaign. */
  created: boolean;
  alreadyExisted?: boolean;
  mno: MnoView[];
  sharing?: ShareAttempt;
  shareHistory: ShareAttempt[];
  dcaComplete: boolean;
  campaignStatus?: string;
  autoRenewal?: boolean;
  nextRenewalOrExpirationDate?: string;
  expirationDate?: string;
  suspensions: Suspension[];
  nudges: Nudge[];
  deactivated: boolean;
  brandReadiness?: { workflowPhase: string; reasons: string[] };
  refusal?: { reason: string; details: string[] };
  waitingFor?: WaitingFor;
  needsAction: OperatorAction[];
  cancelReason?: string;
  /** Webhook deliveries handled, and duplicates ignored (same deliveryId). */
  deliveries: { received: number; duplicates: number };
  /** Operator operations queued behind the one running (oldest first). */
  pendingOperations: string[];
  /** Runs of this workflow id (1 + continue-as-new count). */
  runs: number;
  audit: AuditTrail;
}

/** Campaign fields of an order: the client's CampaignCreation without brandId and referenceId. */
export type CampaignContent = Omit<CampaignCreation, 'brandId' | 'referenceId'>;

export const campaignStatusQuery = defineQuery<CampaignStatus>('status');
