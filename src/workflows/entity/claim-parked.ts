/**
 * Claiming the webhook events the ingress parked for an entity before its workflow existed (or before
 * visibility showed its registry id): the parked-events workflow under `parkedWorkflowId` is asked to
 * hand them to the owner. Nothing parked under that key is not an error. The brand and the campaign
 * claim on every run, continue-as-new included.
 */
import { getExternalWorkflowHandle, isCancellation, patched } from '@temporalio/workflow';
import { claimParkedEventsSignal } from '../../contracts/signals.js';
import { PATCHES } from '../patches.js';
import type { EntityBookkeeping } from './bookkeeping.js';

export async function claimParkedEvents(
  parkedWorkflowId: string,
  ownerWorkflowId: string,
  audit: EntityBookkeeping['audit'],
): Promise<void> {
  try {
    await getExternalWorkflowHandle(parkedWorkflowId).signal(claimParkedEventsSignal, { ownerWorkflowId });
    audit('start', 'claimed-parked-events', parkedWorkflowId);
  } catch (error) {
    if (isCancellation(error)) throw error;
    // Nothing parked under this key.
  }
}

/**
 * The claims a run makes as it starts (under each of `parkedWorkflowIds`). Behind
 * PATCHES.claimParkedAlongside they are sent together with the loop's first step and their answers
 * are not waited for: nothing parked (the usual case) is a failure the server answers a round trip
 * later, in a workflow task of its own, and the first step used to wait for it. Claimed events come
 * as signals either way, whenever the parked-events workflow sends them; reads decide. Before the
 * patch, one claim after another, each answered before the next.
 */
export async function claimParkedAtStart(
  parkedWorkflowIds: readonly string[],
  ownerWorkflowId: string,
  audit: EntityBookkeeping['audit'],
): Promise<void> {
  const claim = (id: string) => claimParkedEvents(id, ownerWorkflowId, audit);
  if (patched(PATCHES.claimParkedAlongside)) {
    // A cancellation of the workflow also cancels a claim in flight: the loop handles it, not this.
    void Promise.all(parkedWorkflowIds.map(claim)).catch(() => undefined);
    return;
  }
  for (const id of parkedWorkflowIds) await claim(id);
}
