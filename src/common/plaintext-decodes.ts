/**
 * Payloads a codec of this process met unencrypted (src/codec/encryption-codec.ts counts them; the
 * worker's metrics export them as tcr_plaintext_payload_decodes_total, src/observability/metrics.ts).
 */
let count = 0;
const listeners = new Set<() => void>();

/** Records one plaintext payload. */
export function recordPlaintextDecode(): void {
  count += 1;
  for (const listener of listeners) listener();
}

/** Plaintext payloads met by any codec of this process (allowed or refused). */
export function plaintextDecodeCount(): number {
  return count;
}

/** Calls `listener` on each plaintext payload a codec meets. Returns an unsubscribe. */
export function onPlaintextDecode(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
