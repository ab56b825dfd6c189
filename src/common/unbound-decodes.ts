/**
 * Payloads a codec of this process opened that are bound to no workflow: envelopes 1, 2 and 3,
 * written by earlier releases (and, today, where the SDK gives no serialization context: see
 * src/codec/workflow-binding.ts). The worker's metrics export them as
 * tcr_unbound_payload_decodes_total, with the envelope version as a tag (src/observability/metrics.ts).
 */
let count = 0;
const listeners = new Set<(envelope: string) => void>();

/** Records one unbound payload of envelope version `envelope`. */
export function recordUnboundDecode(envelope: string): void {
  count += 1;
  for (const listener of listeners) listener(envelope);
}

/** Unbound payloads opened by any codec of this process. */
export function unboundDecodeCount(): number {
  return count;
}

/** Calls `listener` (with the envelope version) on each unbound payload a codec opens. Returns an unsubscribe. */
export function onUnboundDecode(listener: (envelope: string) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
