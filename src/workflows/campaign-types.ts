/**
 * Types of the campaign workflow: input, options, result, carried state. Its phases, status (the
 * `status` query) and order fields are the campaign contract, src/contracts/campaign.ts, re-exported
 * here. Order systems import these (type-only) through src/orders/campaign-orders.ts.
 */
import type { CampaignContent, CampaignPhase, CampaignStatus } from '../contracts/campaign.js';
import type { CampaignState } from './campaign/state.js';
import type { BackoffSchedule } from './entity/wait.js';

export type {
  CampaignContent,
  CampaignPhase,
  CampaignStatus,
  MnoView,
  Nudge,
  ShareAttempt,
  Suspension,
} from '../contracts/campaign.js';
export { terminalCampaignPhases } from '../contracts/campaign.js';

export interface CampaignWorkflowOptions {
  /** Poll schedule while waiting for the brand (default 1 min doubling to 1 h). */
  brandPoll?: BackoffSchedule;
  /** How long to wait for the brand before raising needs-action (default 7 days; it keeps waiting after). */
  brandReadyDeadlineMs?: number;
  /** Poll schedule while a share or DCA decision is pending (default 1 min doubling to 1 h). */
  pendingPoll?: BackoffSchedule;
  /** How long a share may stay PENDING (or DCA acceptance outstanding) before needs-action (default 7 days). */
  decisionDeadlineMs?: number;
  /** Slow reconciliation of a running campaign: expiry, renewal, suspensions (default 6 h). */
  steadyPollMs?: number;
  /** Continue-as-new when history reaches this many events (default 10 000; lowered in tests). */
  continueAsNewAtHistoryLength?: number;
  auditLimit?: number;
  dedupeLimit?: number;
}

export interface CampaignWorkflowInput {
  reference: string;
  account: string;
  brandReference: string;
  upstreamCnpId: string;
  requireFeeApproval?: boolean;
  /**
   * The campaign fields: required at start. A continue-as-new input never carries them at the top
   * level; `carried.content` holds them until the registry has the campaign.
   */
  campaign?: CampaignContent;
  options?: CampaignWorkflowOptions;
  /** Set by continue-as-new only: the workflow's whole state (./campaign/state.ts). */
  carried?: CampaignState;
}

export interface CampaignResult {
  phase: CampaignPhase;
  campaignId?: string;
  /** True when the registry holds a campaign created for this reference (its fee is charged). */
  billed: boolean;
  status: CampaignStatus;
}
