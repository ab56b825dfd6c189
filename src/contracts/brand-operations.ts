/**
 * The brand workflow's updates and the operator requests they take, with no zod at run time: workflow
 * code imports this module; ./brand-requests.ts holds the request schemas the edge (src/orders, the
 * CLI) parses with. See src/workflows/request-checks.ts for why workflow code stays free of zod.
 */
import { defineUpdate } from '@temporalio/workflow';
import type { z } from 'zod';
import type {
  AppealSchema,
  BrandUpdateSchema,
  VetImportRequestSchema,
  VetOrderSchema,
} from '../registry/schemas.js';
import type { BrandPhase } from './brand.js';
import type { AcknowledgeRequest } from './campaign-operations.js';
import type { OperationOutcome } from './operations.js';

/**
 * The operator's requests, as the updates take them. Type-only (no zod at run time); ./brand-requests.ts
 * holds the schemas the edge parses them with, and checks at compile time that they describe these.
 */
export interface CorrectBrandRequest {
  patch: z.input<typeof BrandUpdateSchema>;
  /** Revet right after the update (a revet is needed after a change that forces re-verification). */
  revet?: boolean | undefined;
}
export type AppealRequest = z.input<typeof AppealSchema>;
export type OrderVetRequest = z.input<typeof VetOrderSchema>;
export type ImportVetRequest = z.input<typeof VetImportRequestSchema>;
export interface CancelRequest {
  reason: string;
}

/**
 * What every brand update returns: the operation's outcome and the phase after it (small, so each
 * operator action adds little to history). The full status, audit trail included, is the `status` query.
 */
export type BrandOperationOutcome = OperationOutcome<BrandPhase>;

export const correctBrandUpdate = defineUpdate<BrandOperationOutcome, [CorrectBrandRequest]>('correctBrand');
export const revetUpdate = defineUpdate<BrandOperationOutcome, []>('revet');
export const appealUpdate = defineUpdate<BrandOperationOutcome, [AppealRequest]>('appeal');
export const orderVetUpdate = defineUpdate<BrandOperationOutcome, [OrderVetRequest]>('orderVet');
export const importVetUpdate = defineUpdate<BrandOperationOutcome, [ImportVetRequest]>('importVet');
export const cancelUpdate = defineUpdate<BrandOperationOutcome, [CancelRequest]>('cancel');
/** Clears a wait's overdue needs-action (the operator has handled it); the wait's deadline moves a full period. */
export const acknowledgeBrandUpdate = defineUpdate<BrandOperationOutcome, [AcknowledgeRequest]>(
  'acknowledge',
);
export type { AcknowledgeRequest };
