/**
 * Updates, request types, queries and signals of the brand and vet workflows, with no zod at run time:
 * the workflow code imports this module, and ./brand-messages.ts re-exports it next to the request
 * schemas that the edge (src/orders, the CLI) parses with. See ./request-checks.ts for why workflow
 * code stays free of zod.
 */
import { defineSignal, defineUpdate } from '@temporalio/workflow';
import type { z } from 'zod';
import type { BrandPhase, VetState } from '../contracts/brand.js';
import type {
  AppealSchema,
  BrandUpdateSchema,
  VetImportSchema,
  VetOrderSchema,
} from '../registry/schemas.js';
import type { OperationOutcome } from './entity/operations.js';
import type { WakeCause } from './entity/wait.js';

/**
 * The operator's requests, as the updates take them. Type-only (no zod at run time); ./brand-messages.ts
 * holds the schemas the edge parses them with, and checks at compile time that they describe these.
 */
export interface CorrectBrandRequest {
  patch: z.input<typeof BrandUpdateSchema>;
  /** Revet right after the update (a revet is needed after a change that forces re-verification). */
  revet?: boolean | undefined;
}
export type AppealRequest = z.input<typeof AppealSchema>;
export type OrderVetRequest = z.input<typeof VetOrderSchema>;
export type ImportVetRequest = z.input<typeof VetImportSchema>;
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

export { brandStatusQuery } from '../contracts/brand.js';

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

/**
 * Sent by the brand workflow to its vets when the brand is cancelled: the vet ends `cancelled`. (A
 * signal, not a Temporal cancellation request: the vet finishes an order in flight and reports it.)
 */
export interface StopVet {
  reason: string;
}
export const stopVetSignal = defineSignal<[StopVet]>('stopVet');
