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

/**
 * The account the parked ids of this run are scoped by (`parked/{account}/...`, where the ingress parks
 * them since issue 35), or undefined (the legacy `parked/{kind}/...`) in a run recorded before it.
 */
export function parkedAccount(account: string): string | undefined {
  return patched(PATCHES.accountIds) ? account : undefined;
}

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
