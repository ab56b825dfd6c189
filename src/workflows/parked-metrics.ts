/**
 * Metrics of the parked-events workflow (issue 22, "parked events and their age"), through the SDK's
 * workflow metric meter (dropped on replay, so each counts once). Labels: the entity kind (`brand`,
 * `campaign`) and how an event left (`forwarded` to its owner, or `expired` unclaimed: discarded from
 * the product's view, kept in the parked workflow's history). Never an id or a reference.
 *
 * - `tcr_parked_events_total{kind}`: events parked (each delivery once);
 * - `tcr_parked_events_released_total{kind,outcome}`: events forwarded or expired;
 * - `tcr_parked_event_age_seconds{kind,outcome}`: from the ingress receiving the event to its release.
 *
 * Parked now ≈ parked − released (summed over workers). Deterministic: workflow APIs only.
 */
import { metricMeter } from '@temporalio/workflow';
import type { RegistryEventDelivery } from '../contracts/signals.js';

export const PARKED_AGE_METRIC = 'tcr_parked_event_age_seconds';

export function recordParked(kind: string): void {
  metricMeter.createCounter('tcr_parked_events_total', undefined, 'Registry events parked').add(1, { kind });
}

export function recordReleased(
  kind: string,
  outcome: 'forwarded' | 'expired',
  deliveries: readonly RegistryEventDelivery[],
): void {
  if (deliveries.length === 0) return;
  metricMeter
    .createCounter('tcr_parked_events_released_total', undefined, 'Parked events forwarded or expired')
    .add(deliveries.length, { kind, outcome });
  const age = metricMeter.createHistogram(
    PARKED_AGE_METRIC,
    'float',
    undefined,
    'From the ingress receiving a parked event to its release',
  );
  for (const delivery of deliveries) {
    const receivedAt = Date.parse(delivery.receivedAt);
    if (Number.isFinite(receivedAt))
      age.record(Math.max(0, (Date.now() - receivedAt) / 1000), { kind, outcome });
  }
}
