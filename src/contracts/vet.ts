/**
 * What the brand workflow and its vet workflows (children, one per external vet) tell each other. The
 * vet's states and status are part of the brand's (./brand.ts). Zod-free, so workflow code imports it.
 */
import { defineSignal } from '@temporalio/workflow';
import type { WakeCause } from './audit.js';
import type { VetState } from './brand.js';

/** Sent by a vet workflow to its brand workflow (by workflow id, so it reaches the current run). */
export interface VetProgress {
  seq: number;
  /** The reporting vet's workflow id: the brand matches reports on it (a seq may repeat across brand runs). */
  vetWorkflowId?: string;
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
