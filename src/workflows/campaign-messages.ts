/**
 * Updates and queries of the campaign workflow. Order systems call them through
 * src/orders/campaign-orders.ts; the request schemas are the ones the update validators use, so a
 * bad request is refused synchronously and never enters history.
 */
import { defineQuery, defineUpdate } from '@temporalio/workflow';
import { z } from 'zod';
import { CampaignCreationSchema, CampaignUpdateSchema } from '../registry/schemas.js';
import type { CampaignStatus } from './campaign-types.js';

/** The campaign fields of an order (CampaignCreationSchema minus brandId and referenceId). */
export const CampaignContentSchema = CampaignCreationSchema.omit({ brandId: true, referenceId: true });

export const ApproveFeeRequestSchema = z.object({
  approvedBy: z.string().min(1).max(200),
  /** Refuse the approval when the expected monthly fee is above this. */
  maxMonthlyFee: z.number().nonnegative().optional(),
});
export type ApproveFeeRequest = z.input<typeof ApproveFeeRequestSchema>;

export const ResubmitRequestSchema = z.object({
  /** Campaign field changes (PUT /campaign/{id} after creation; merged into the order before). */
  changes: CampaignUpdateSchema,
});
export type ResubmitRequest = z.input<typeof ResubmitRequestSchema>;

export const ShareWithRequestSchema = z.object({ upstreamCnpId: z.string().min(1).max(100) });
export type ShareWithRequest = z.input<typeof ShareWithRequestSchema>;

export const CampaignCancelRequestSchema = z.object({ reason: z.string().min(1).max(1000) });
export type CampaignCancelRequest = z.input<typeof CampaignCancelRequestSchema>;

export const AcknowledgeRequestSchema = z.object({ key: z.string().min(1).max(200) });
export type AcknowledgeRequest = z.input<typeof AcknowledgeRequestSchema>;

export const approveFeeUpdate = defineUpdate<CampaignStatus, [ApproveFeeRequest]>('approveFee');
export const resubmitUpdate = defineUpdate<CampaignStatus, [ResubmitRequest]>('resubmit');
export const shareWithUpdate = defineUpdate<CampaignStatus, [ShareWithRequest]>('shareWith');
export const cancelCampaignUpdate = defineUpdate<CampaignStatus, [CampaignCancelRequest]>('cancel');
/** Clears a needs-action entry that needs no registry call (a suspension or nudge the operator has handled). */
export const acknowledgeUpdate = defineUpdate<CampaignStatus, [AcknowledgeRequest]>('acknowledge');

export const campaignStatusQuery = defineQuery<CampaignStatus>('status');
