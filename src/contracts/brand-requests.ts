/**
 * Operator requests of the brand workflow: the zod schemas the edge parses them with (src/orders and
 * the CLI parse before they send, so a bad request never reaches the workflow). The request types and
 * the updates are ./brand-operations.ts. Workflow code imports those and src/workflows/request-checks.ts,
 * never this module: see request-checks.ts for why.
 */
import { z } from 'zod';
import {
  AppealSchema,
  BrandUpdateSchema,
  VetImportRequestSchema,
  VetOrderSchema,
} from '../registry/schemas.js';
import type {
  AppealRequest,
  CancelRequest,
  CorrectBrandRequest,
  ImportVetRequest,
  OrderVetRequest,
} from './brand-operations.js';

export const CorrectBrandRequestSchema = z.object({
  patch: BrandUpdateSchema,
  /** Revet right after the update (a revet is needed after a change that forces re-verification). */
  revet: z.boolean().optional(),
});

export const AppealRequestSchema = AppealSchema;

export const OrderVetRequestSchema = VetOrderSchema;

export const ImportVetRequestSchema = VetImportRequestSchema;

export const CancelRequestSchema = z.object({ reason: z.string().min(1).max(1000) });

/** Each schema describes exactly its request type (./brand-operations.ts): a drift fails to compile. */
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const _requestSchemasMatch: [
  Same<z.input<typeof CorrectBrandRequestSchema>, CorrectBrandRequest>,
  Same<z.input<typeof AppealRequestSchema>, AppealRequest>,
  Same<z.input<typeof OrderVetRequestSchema>, OrderVetRequest>,
  Same<z.input<typeof ImportVetRequestSchema>, ImportVetRequest>,
  Same<z.input<typeof CancelRequestSchema>, CancelRequest>,
] = [true, true, true, true, true];
