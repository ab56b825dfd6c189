import { defineSignal } from '@temporalio/workflow';
import type { RegistryEvent } from '../registry/events.js';

/**
 * A verified registry webhook event, as the ingress hands it to a workflow. Signals wake, reads
 * decide: a workflow treats it as a hint and confirms state with a registry GET before acting.
 */
export interface RegistryEventDelivery {
  event: RegistryEvent;
  /** When the ingress received it (ISO 8601). */
  receivedAt: string;
  /** SHA-256 of the canonical body: the same event delivered twice has the same id. */
  deliveryId: string;
}

export const registryEventSignal = defineSignal<[RegistryEventDelivery]>('registryEvent');

/** Sent by an owner workflow to the parked-events workflow of its registry id: "send them to me". */
export interface ClaimParkedEvents {
  ownerWorkflowId: string;
}
export const claimParkedEventsSignal = defineSignal<[ClaimParkedEvents]>('claimParkedEvents');
