/**
 * Operator requests of the campaign workflow: the zod schemas the edge (src/orders, the CLI) parses
 * them with before it sends the update, and the updates and query, re-exported from
 * ./campaign-definitions.ts. Workflow code imports the definitions and ./request-checks.ts, never
 * this module (see request-checks.ts).
 */
import { z } from 'zod';
import { CampaignCreationSchema, CampaignUpdateSchema } from '../registry/schemas.js';

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

export * from './campaign-definitions.js';
