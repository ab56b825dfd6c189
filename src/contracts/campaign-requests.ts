/**
 * Operator requests of the campaign workflow, and the campaign fields of an order: the zod schemas the
 * edge (src/orders, the CLI) parses them with before it sends the update or starts the workflow. The
 * request types and the updates are ./campaign-operations.ts. Workflow code imports those and
 * src/workflows/request-checks.ts, never this module (see request-checks.ts).
 */
import { z } from 'zod';
import { CampaignCreationSchema, CampaignUpdateSchema } from '../registry/schemas.js';
import type {
  AcknowledgeRequest,
  ApproveFeeRequest,
  CampaignCancelRequest,
  ConfirmDcaCompleteRequest,
  ResubmitRequest,
  ShareWithRequest,
  UpdateCampaignRequest,
} from './campaign-operations.js';

/** The campaign fields of an order (CampaignCreationSchema minus brandId and referenceId). */
export const CampaignContentSchema = CampaignCreationSchema.omit({ brandId: true, referenceId: true });

export const ApproveFeeRequestSchema = z.object({
  approvedBy: z.string().min(1).max(200),
  /** Refuse the approval when the expected monthly fee is above this. */
  maxMonthlyFee: z.number().nonnegative().optional(),
  /** The approver's signature (./fee-approval.ts): required when the workers have an approvers file. */
  signedApproval: z
    .strictObject({
      issuedAt: z.string().min(1).max(40),
      nonce: z.string().min(1).max(100),
      signature: z.string().min(1).max(200),
    })
    .optional(),
});

export const ResubmitRequestSchema = z.object({
  /** Campaign field changes (PUT /campaign/{id} after creation; merged into the order before). */
  changes: CampaignUpdateSchema,
});

export const UpdateCampaignRequestSchema = z.object({
  /** Campaign field changes sent to the registry (PUT /campaign/{id}). */
  changes: CampaignUpdateSchema,
  /** The needs-action entry (nudge-..., suspended-...) the change answers. */
  answers: z.string().min(1).max(200).optional(),
});

export const ShareWithRequestSchema = z.object({ upstreamCnpId: z.string().min(1).max(100) });

export const CampaignCancelRequestSchema = z.object({ reason: z.string().min(1).max(1000) });

export const AcknowledgeRequestSchema = z.object({ key: z.string().min(1).max(200) });

export const ConfirmDcaCompleteRequestSchema = z.object({
  /** Who saw, in the registry portal, that the DCA accepted the campaign. */
  confirmedBy: z.string().min(1).max(200),
  note: z.string().min(1).max(1000).optional(),
});

/** Each schema describes exactly its request type (./campaign-operations.ts): a drift fails to compile. */
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const _requestSchemasMatch: [
  Same<z.input<typeof ApproveFeeRequestSchema>, ApproveFeeRequest>,
  Same<z.input<typeof ResubmitRequestSchema>, ResubmitRequest>,
  Same<z.input<typeof ShareWithRequestSchema>, ShareWithRequest>,
  Same<z.input<typeof CampaignCancelRequestSchema>, CampaignCancelRequest>,
  Same<z.input<typeof AcknowledgeRequestSchema>, AcknowledgeRequest>,
  Same<z.input<typeof ConfirmDcaCompleteRequestSchema>, ConfirmDcaCompleteRequest>,
  Same<z.input<typeof UpdateCampaignRequestSchema>, UpdateCampaignRequest>,
] = [true, true, true, true, true, true, true];
