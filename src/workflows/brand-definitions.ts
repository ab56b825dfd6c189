/**
 * Updates, queries and signals of the brand and vet workflows, with no zod: the workflow code imports
 * this module, and ./brand-messages.ts re-exports it next to the request schemas that the edge
 * (src/orders, the CLI) parses with. See ./request-checks.ts for why workflow code stays free of zod.
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type {
  AppealRequest,
  CancelRequest,
  CorrectBrandRequest,
  ImportVetRequest,
  OrderVetRequest,
} from './brand-messages.js';
import type { BrandStatus, VetState } from './brand-types.js';
import type { WakeCause } from './wait.js';

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
