/**
 * Remembers the webhook delivery ids (SHA-256 of the canonical body, set by the ingress) a workflow has
 * handled, so a duplicated delivery does nothing. Bounded in count and in time, and carried across
 * continue-as-new as a plain array.
 *
 * A delivery id names a body, not an event: the registry can send the same body twice as two distinct
 * events (a second identical CAMPAIGN_NUDGE, a suspension after the first was handled). So an id is
 * remembered only as long as the registry could still be retrying the first delivery (its 13 retries
 * span 89,991 s, about 25 hours; DEDUPE_WINDOW_MS adds an hour), and a workflow forgets an id on
 * purpose (`forget`) when an operator has acknowledged what that delivery raised: a later identical
 * delivery is then a new event.
 *
 * Times are workflow time (Date.now() in workflow code is deterministic). The module imports nothing:
 * it is preloaded once per worker thread and holds no workflow state (src/workers/workflow-preload.ts).
 */
export const DEFAULT_DEDUPE_LIMIT = 500;

/** How long a delivery id is remembered: the registry's retry span (89,991 s) and an hour of slack. */
export const DEDUPE_WINDOW_MS = 26 * 3_600_000;

/**
 * One remembered delivery as carried across continue-as-new: `[id, seenAtMs]`, or a bare id (carried by
 * runs before the time bound: treated as seen when the new run starts).
 */
export type CarriedDelivery = string | [deliveryId: string, seenAtMs: number];

export class DeliveryDedupe {
  /** deliveryId → when it was first seen; Map keeps insertion order, oldest first. */
  private readonly seen = new Map<string, number>();

  constructor(
    carried: readonly CarriedDelivery[] = [],
    private readonly limit: number = DEFAULT_DEDUPE_LIMIT,
    private readonly windowMs: number = DEDUPE_WINDOW_MS,
    now: number = Date.now(),
  ) {
    for (const entry of carried.slice(-limit)) {
      const [id, at] = typeof entry === 'string' ? [entry, now] : entry;
      this.seen.delete(id);
      this.seen.set(id, at);
    }
  }

  /** True the first time an id is seen within the window; false for a duplicate. */
  firstSeen(deliveryId: string, now: number = Date.now()): boolean {
    this.expire(now);
    if (this.seen.has(deliveryId)) return false;
    this.seen.set(deliveryId, now);
    while (this.seen.size > this.limit) this.seen.delete(this.seen.keys().next().value as string);
    return true;
  }

  /** Forgets an id: its next delivery is handled as a new event. */
  forget(deliveryId: string): void {
    this.seen.delete(deliveryId);
  }

  toJSON(): [deliveryId: string, seenAtMs: number][] {
    return [...this.seen].map(([id, at]) => [id, at]);
  }

  private expire(now: number): void {
    for (const [id, at] of this.seen) {
      if (now - at <= this.windowMs) break; // oldest first: the rest are newer
      this.seen.delete(id);
    }
  }
}
