/**
 * Updates, queries and signals of the brand and vet workflows. Order systems and the CLI call them
 * through src/orders/brand-client.ts; the request schemas are the same ones the update validators
 * use, so a bad request is refused synchronously and never enters history.
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import { z } from 'zod';
import { AppealSchema, BrandUpdateSchema, VetImportSchema, VetOrderSchema } from '../registry/schemas.js';
import type { BrandStatus, VetState } from './brand-types.js';
import type { WakeCause } from './wait.js';

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

export const correctBrandUpdate = defineUpdate<BrandStatus, [CorrectBrandRequest]>('correctBrand');
export const revetUpdate = defineUpdate<BrandStatus, []>('revet');
export const appealUpdate = defineUpdate<BrandStatus, [AppealRequest]>('appeal');
export const orderVetUpdate = defineUpdate<BrandStatus, [OrderVetRequest]>('orderVet');
export const importVetUpdate = defineUpdate<BrandStatus, [ImportVetRequest]>('importVet');
export const cancelUpdate = defineUpdate<BrandStatus, [CancelRequest]>('cancel');

export const brandStatusQuery = defineQuery<BrandStatus>('status');

/** Sent by a vet workflow to its brand workflow (by workflow id, so it reaches the current run). */
export interface VetProgress {
  seq: number;
  state: VetState;
  cause: WakeCause | 'start';
  vettingId?: string;
  vettingClass?: string;
  score?: number;
  reasons?: string[];
  vettedDate?: string;
  deadline?: string;
  detail?: string;
}
export const vetProgressSignal = defineSignal<[VetProgress]>('vetProgress');

/** Field errors of a zod parse as one line each: `path: message`. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((i) => `${i.path.length > 0 ? i.path.join('.') : '(root)'}: ${i.message}`)
    .join('; ');
}
