/**
 * Operator requests of the brand workflow: the zod schemas the edge parses them with (src/orders and
 * the CLI parse before they send, so a bad request never reaches the workflow), and the updates,
 * queries and signals themselves, re-exported from ./brand-definitions.ts. Workflow code imports the
 * definitions and ./request-checks.ts, never this module: see request-checks.ts for why.
 */
import { z } from 'zod';
import { AppealSchema, BrandUpdateSchema, VetImportSchema, VetOrderSchema } from '../registry/schemas.js';

export const CorrectBrandRequestSchema = z.object({
  patch: BrandUpdateSchema,
  /** Revet right after the update (a revet is needed after a change that forces re-verification). */
  revet: z.boolean().optional(),
});
export type CorrectBrandRequest = z.input<typeof CorrectBrandRequestSchema>;

export const AppealRequestSchema = AppealSchema;
export type AppealRequest = z.input<typeof AppealRequestSchema>;

export const OrderVetRequestSchema = VetOrderSchema;
export type OrderVetRequest = z.input<typeof OrderVetRequestSchema>;

export const ImportVetRequestSchema = VetImportSchema;
export type ImportVetRequest = z.input<typeof ImportVetRequestSchema>;

export const CancelRequestSchema = z.object({ reason: z.string().min(1).max(1000) });
export type CancelRequest = z.input<typeof CancelRequestSchema>;

export * from './brand-definitions.js';
