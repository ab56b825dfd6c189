/**
 * The contract of the parked-events workflow (src/workflows/parked-events.ts): its type name, input,
 * result and query, for the ingress that starts it and the CLI that reads it.
 */
import { defineQuery } from '@temporalio/workflow';
import type { ParkedEntityKind } from './ids.js';
import type { RegistryEventDelivery } from './signals.js';

/** The workflow type the ingress starts with signalWithStart. */
export const PARKED_EVENTS_WORKFLOW_TYPE = 'parkedEvents';

export interface ParkedEventsInput {
  kind: ParkedEntityKind;
  /** What `key` is: a registry id (brandId / campaignId) or the CSP's reference. */
  keyType: 'registryId' | 'reference';
  key: string;
  /** How long unclaimed events are kept (default 30 days). */
  retentionMs?: number;
  /** After a claim, how long late arrivals are still forwarded to the owner (default 10 minutes). */
  claimGraceMs?: number;
  /** Set the search attributes (TcrPhase, TcrBrandId / TcrCampaignId / TcrBrandReference); default true. */
  searchAttributes?: boolean;
  /** Carried across continue-as-new; callers leave these unset. */
  carried?: {
    held: RegistryEventDelivery[];
    seen: string[];
    expiresAt: number;
    ownerWorkflowId?: string;
    claimedAt?: number;
    forwarded: number;
  };
}

export interface ParkedEventsView {
  kind: ParkedEntityKind;
  keyType: 'registryId' | 'reference';
  key: string;
  held: RegistryEventDelivery[];
  ownerWorkflowId?: string;
  forwarded: number;
  expiresAt: string;
}

export interface ParkedEventsResult {
  outcome: 'claimed' | 'expired';
  ownerWorkflowId?: string;
  forwarded: number;
  /** Deliveries still held when it completed (empty when claimed). */
  held: RegistryEventDelivery[];
}

export const parkedEventsQuery = defineQuery<ParkedEventsView>('parkedEvents');

/** The workflow function's type, for typed starts by name. */
export type ParkedEventsWorkflow = (input: ParkedEventsInput) => Promise<ParkedEventsResult>;
