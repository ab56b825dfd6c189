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

/**
 * A campaign waiting for its brand asks the brand's workflow to tell it when the brand is ready, so
 * it need not poll on a long backoff. Sent with the watcher's workflow id; answered at once when the
 * brand is ready already.
 */
export interface WatchBrandReadiness {
  watcherWorkflowId: string;
}
export const watchBrandReadinessSignal = defineSignal<[WatchBrandReadiness]>('watchBrandReadiness');

/** The brand's workflow to a watcher: "the brand reached ready". A hint: the watcher re-reads. */
export interface BrandReadyNotice {
  brandReference: string;
}
export const brandReadySignal = defineSignal<[BrandReadyNotice]>('brandReady');

/**
 * The estate sweep to an entity's workflow: "the registry's list shows a state you have not seen"
 * (its fingerprint differs from the workflow's TcrFingerprint). A hint like a webhook: the workflow
 * reads the registry and decides.
 */
export interface RegistryChanged {
  /** The fingerprint of the registry's record as the sweep's page showed it. */
  fingerprint: string;
  /** When the page was read (ISO 8601). */
  seenAt: string;
}
export const registryChangedSignal = defineSignal<[RegistryChanged]>('registryChanged');
