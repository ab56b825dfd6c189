/**
 * The operator requests as the typed API parses them: the schemas of ../contracts/brand-requests.ts
 * and campaign-requests.ts made strict, at the top and in a patch (`patch`, `changes`), so an unknown
 * or misspelled field is refused with its name instead of being dropped. Lists, records and strings
 * carry the caps of src/registry/request-limits.ts through the registry schemas they are built on.
 */
import { z } from 'zod';
import {
  AppealRequestSchema,
  CancelRequestSchema,
  CorrectBrandRequestSchema,
  ImportVetRequestSchema,
  OrderVetRequestSchema,
} from '../contracts/brand-requests.js';
import {
  AcknowledgeRequestSchema,
  ApproveFeeRequestSchema,
  CampaignCancelRequestSchema,
  ConfirmDcaCompleteRequestSchema,
  ResubmitRequestSchema,
  ShareWithRequestSchema,
  UpdateCampaignRequestSchema,
} from '../contracts/campaign-requests.js';

export const StrictCorrectBrandRequestSchema = CorrectBrandRequestSchema.extend({
  patch: CorrectBrandRequestSchema.shape.patch.strict(),
}).strict();
export const StrictAppealRequestSchema = AppealRequestSchema.strict();
export const StrictOrderVetRequestSchema = OrderVetRequestSchema.strict();
export const StrictImportVetRequestSchema = ImportVetRequestSchema.strict();
export const StrictCancelRequestSchema = CancelRequestSchema.strict();

export const StrictApproveFeeRequestSchema = ApproveFeeRequestSchema.strict();
export const StrictResubmitRequestSchema = ResubmitRequestSchema.extend({
  changes: ResubmitRequestSchema.shape.changes.strict(),
}).strict();
export const StrictUpdateCampaignRequestSchema = UpdateCampaignRequestSchema.extend({
  changes: UpdateCampaignRequestSchema.shape.changes.strict(),
}).strict();
export const StrictShareWithRequestSchema = ShareWithRequestSchema.strict();
export const StrictCampaignCancelRequestSchema = CampaignCancelRequestSchema.strict();
export const StrictAcknowledgeRequestSchema = AcknowledgeRequestSchema.strict();
export const StrictConfirmDcaCompleteRequestSchema = ConfirmDcaCompleteRequestSchema.strict();

/**
 * A caller's idempotency key for a billed vet request (orderVet, importVet): sent as the Temporal
 * update id, so the same key asked again is answered with the first outcome (docs/workflows.md,
 * "External vetting"). Printable ASCII, no spaces, at most 200 characters.
 */
export const IdempotencyKeySchema = z
  .string()
  .min(1, 'idempotencyKey: must not be empty')
  .max(200, 'idempotencyKey: at most 200 characters')
  .regex(/^[\x21-\x7e]+$/, 'idempotencyKey: printable ASCII without spaces');
