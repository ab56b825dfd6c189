/**
 * The campaign workflow's contract with its callers: its type name, input, options and result, its
 * phases, its status (the `status` query), the campaign fields an order carries, and the query itself.
 * The order client and the CLI start and read a campaign through these; the workflow
 * (src/workflows/campaign) answers with them. Its updates are ./campaign-operations.ts. Zod-free and
 * type-only apart from the query definition, so workflow code may import it.
 */
import { defineQuery } from '@temporalio/workflow';
import type { CampaignCreation } from '../registry/schemas.js';
import type { AuditTrail } from './audit.js';
import type { BackoffSchedule } from './backoff.js';
import type { OperatorAction, WaitingFor } from './brand.js';
import type { CampaignSnapshot, MnoMetadataRecord, UpstreamPartnerCheck } from './campaign-activity-types.js';

export type { UpstreamPartnerCheck } from './campaign-activity-types.js';

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
  /**
   * ACCEPTED by a partner that is not a DCA (a CSP shares onward): waiting for CAMPAIGN_DCA_COMPLETE
   * (all DCAs accepted), or the operator's confirmDcaComplete.
   */
  | 'awaiting-dca'
  /** Accepted by a DCA (the partner itself, or all DCAs per CAMPAIGN_DCA_COMPLETE or the operator): may run on MNO networks. */
  | 'running'
  /** A political campaign whose brand's political vet expired: deactivated by the registry. Final once the registry no longer reports it ACTIVE. */
  | 'deactivated'
  /**
   * Cancelled by the operator after the registry created it (the spec has no delete): renewal turned
   * off at the registry (PUT autoRenewal=false), watched until the registry reports it EXPIRED
   * (→ `expired`, the cancel reason kept). Not final.
   */
  | 'winding-down'
  /** The registry reports the campaign EXPIRED. Final. */
  | 'expired'
  /** Cancelled by the operator before creation (nothing at the registry). Final. */
  | 'cancelled';

export const terminalCampaignPhases: readonly CampaignPhase[] = ['expired', 'cancelled'];

/** Every campaign phase (the compiler keeps it whole: a phase missing or unknown here fails to build). */
export const campaignPhaseNames = Object.keys({
  'awaiting-brand': 0,
  checking: 0,
  refused: 0,
  'awaiting-fee-approval': 0,
  creating: 0,
  sharing: 0,
  'share-pending': 0,
  'share-declined': 0,
  'awaiting-dca': 0,
  running: 0,
  deactivated: 0,
  'winding-down': 0,
  expired: 0,
  cancelled: 0,
} satisfies Record<CampaignPhase, 0>) as CampaignPhase[];

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

/** Who confirmed that all DCAs accepted the campaign (seen in the registry portal), when, and why. */
export interface DcaConfirmation {
  by: string;
  at: string;
  note?: string;
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
  /**
   * True: approvedBy's signature was verified against the workers' approvers file; false: no approvers
   * file is configured, approvedBy is self-declared. Absent for approvals before it (issue 35).
   */
  feeApprovalVerified?: boolean;
  /** Expected monthly fee before creation (campaign builder), the registry's monthlyFee after. */
  expectedMonthlyFee?: number;
  monthlyFee?: number;
  /** True once the registry has created (and billed) the campaign. */
  created: boolean;
  alreadyExisted?: boolean;
  mno: MnoView[];
  sharing?: ShareAttempt;
  shareHistory: ShareAttempt[];
  /** The upstream partner as the registry's lists show it (GET /enum/cnp, GET /enum/dca), once checked. */
  partner?: UpstreamPartnerCheck;
  /** Accepted by a DCA: the partner is one, CAMPAIGN_DCA_COMPLETE came, or the operator confirmed it. */
  dcaComplete: boolean;
  /** The operator's confirmDcaComplete, when that is how the campaign came to run. */
  dcaConfirmation?: DcaConfirmation;
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
  /**
   * winding-down: whether the registry has confirmed renewal off (the cancel's PUT autoRenewal=false
   * answered with autoRenewal false). Until then the workflow retries the PUT.
   */
  renewalOff?: boolean;
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

/** The campaign workflow's registered name (src/workflows/index.ts checks that it exports it). */
export const CAMPAIGN_WORKFLOW_TYPE = 'campaignWorkflow';

export interface CampaignWorkflowOptions {
  /** Poll schedule while waiting for the brand (default 1 min doubling to 1 h). */
  brandPoll?: BackoffSchedule;
  /** How long to wait for the brand before raising needs-action (default 7 days; it keeps waiting after). */
  brandReadyDeadlineMs?: number;
  /** Poll schedule while a share or DCA decision is pending (default 1 min doubling to 1 h). */
  pendingPoll?: BackoffSchedule;
  /**
   * How long a share may stay PENDING, or DCA acceptance stay unconfirmed, before needs-action (default
   * 7 days); acknowledging that needs-action waits this long again.
   */
  decisionDeadlineMs?: number;
  /**
   * Safety poll of a settled campaign (default 7 days, ± a fifth at random): expiry and renewal are
   * noticed by the estate sweep, suspensions by their events; this timer is the net under both.
   */
  steadyPollMs?: number;
  /** Continue-as-new when history reaches this many events (default 10 000; lowered in tests). */
  continueAsNewAtHistoryLength?: number;
  auditLimit?: number;
  dedupeLimit?: number;
}

/**
 * What a campaign workflow is started with. (A continue-as-new run also carries the workflow's state,
 * which only the workflow knows: src/workflows/campaign/state.ts, `CampaignRunInput`.)
 */
export interface CampaignWorkflowInput {
  reference: string;
  account: string;
  brandReference: string;
  upstreamCnpId: string;
  requireFeeApproval?: boolean;
  /**
   * The campaign fields: required at start. A continue-as-new input never carries them at the top
   * level; the carried state holds them until the registry has the campaign.
   */
  campaign?: CampaignContent;
  /**
   * Instead of campaign fields: a campaign the registry already has, adopted by `tcr import`, as the
   * registry's list showed it (`upstreamCnpId` may then be empty: the registry's share names the
   * partner). The workflow enters the phase the registry's records put it in and writes nothing.
   */
  adopt?: CampaignSnapshot;
  options?: CampaignWorkflowOptions;
}

export interface CampaignResult {
  phase: CampaignPhase;
  campaignId?: string;
  /** True when the registry holds a campaign created for this reference (its fee is charged). */
  billed: boolean;
  status: CampaignStatus;
}

/** The campaign workflow's signature, for typed handles (`WorkflowHandle<CampaignWorkflow>`). */
export type CampaignWorkflow = (input: CampaignWorkflowInput) => Promise<CampaignResult>;
