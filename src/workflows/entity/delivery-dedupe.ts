/**
 * Remembers the last N webhook delivery ids (SHA-256 of the canonical body, set by the ingress) so a
 * duplicated delivery does nothing. Bounded, and carried across continue-as-new as a plain array.
 */
export const DEFAULT_DEDUPE_LIMIT = 500;

export class DeliveryDedupe {
  private readonly ids: string[];
  private readonly set: Set<string>;

  constructor(
    carried: readonly string[] = [],
    private readonly limit: number = DEFAULT_DEDUPE_LIMIT,
  ) {
    this.ids = carried.slice(-limit);
    this.set = new Set(this.ids);
  }

  /** True the first time an id is seen; false for a duplicate. */
  firstSeen(deliveryId: string): boolean {
    if (this.set.has(deliveryId)) return false;
    this.ids.push(deliveryId);
    this.set.add(deliveryId);
    while (this.ids.length > this.limit) this.set.delete(this.ids.shift()!);
    return true;
  }

  toJSON(): string[] {
    return [...this.ids];
  }
}
