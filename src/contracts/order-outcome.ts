/**
 * Where an order stands for an order system, read from its entity's phase: the one reading that the
 * notifications (src/workflows/entity/notify.ts), the Nexus `status` operation and the outcome of an
 * order operation (src/nexus/status.ts) share, so the three never disagree.
 *
 * Pure and stateless (workflow code imports it; nothing of `@temporalio/workflow`).
 *
 * - brand: `ready`; ended `refused` (registration-rejected), `deleted`, `cancelled`;
 * - campaign: `running`; ended `refused`, `declined` (share-declined), `expired`, `deleted`
 *   (deactivated), `cancelled`: before creation, and after it too (`winding-down`: the operator
 *   cancelled a created campaign, renewal off, watched until the registry expires it; the order is
 *   over, whatever the registry's expiry date);
 * - `needs-action` when the phase waits for an operator (needs-correction, awaiting-fee-approval) or a
 *   needs-action entry is raised; `in-progress` otherwise.
 */
import type { NotifiedEntity, OrderOutcome } from './notifications.js';

const brandPhaseOutcomes: Readonly<Record<string, OrderOutcome>> = {
  ready: 'ready',
  'registration-rejected': 'refused',
  'needs-correction': 'needs-action',
  deleted: 'deleted',
  cancelled: 'cancelled',
};

const campaignPhaseOutcomes: Readonly<Record<string, OrderOutcome>> = {
  running: 'running',
  refused: 'refused',
  'share-declined': 'declined',
  'awaiting-fee-approval': 'needs-action',
  deactivated: 'deleted',
  expired: 'expired',
  'winding-down': 'cancelled',
  cancelled: 'cancelled',
};

/** The order's outcome for an entity's phase, given whether a needs-action entry is raised. */
export function orderOutcome(entity: NotifiedEntity, phase: string, needsAction: boolean): OrderOutcome {
  const table = entity === 'brand' ? brandPhaseOutcomes : campaignPhaseOutcomes;
  return (
    (Object.hasOwn(table, phase) ? table[phase] : undefined) ?? (needsAction ? 'needs-action' : 'in-progress')
  );
}

/** What an entity's status says about why it stopped (no order data: the product's own words). */
export interface OutcomeReasonView {
  phase: string;
  /** The registry's refusal (campaign `refused`). */
  refusalReason?: string | undefined;
  /** The upstream partner's explanation (campaign `share-declined`). */
  declineExplanation?: string | undefined;
  /** The operator's cancel reason (`cancelled`, campaign `winding-down`). */
  cancelReason?: string | undefined;
  /** The reasons of the needs-action entries raised, oldest first. */
  needsActionReasons: readonly (string | undefined)[];
}

/** Why the order stands where it does: a refusal, a decline, a cancel, or the first needs-action. */
export function orderReason(entity: NotifiedEntity, view: OutcomeReasonView): string | undefined {
  if (entity === 'campaign' && view.phase === 'refused' && view.refusalReason) return view.refusalReason;
  if (entity === 'campaign' && view.phase === 'share-declined')
    return view.declineExplanation ?? 'declined by the upstream partner';
  if (orderOutcome(entity, view.phase, false) === 'cancelled') return view.cancelReason;
  return view.needsActionReasons[0];
}
