/**
 * Updates and the status query of the campaign workflow, with no zod: the workflow code imports this
 * module, and ./campaign-messages.ts re-exports it next to the request schemas the edge parses with.
 */
import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type {
  AcknowledgeRequest,
  ApproveFeeRequest,
  CampaignCancelRequest,
  ResubmitRequest,
  ShareWithRequest,
} from './campaign-messages.js';
import type { CampaignStatus } from './campaign-types.js';

export const approveFeeUpdate = defineUpdate<CampaignStatus, [ApproveFeeRequest]>('approveFee');
export const resubmitUpdate = defineUpdate<CampaignStatus, [ResubmitRequest]>('resubmit');
export const shareWithUpdate = defineUpdate<CampaignStatus, [ShareWithRequest]>('shareWith');
export const cancelCampaignUpdate = defineUpdate<CampaignStatus, [CampaignCancelRequest]>('cancel');
/** Clears a needs-action entry that needs no registry call (a suspension or nudge the operator has handled). */
export const acknowledgeUpdate = defineUpdate<CampaignStatus, [AcknowledgeRequest]>('acknowledge');

export const campaignStatusQuery = defineQuery<CampaignStatus>('status');
