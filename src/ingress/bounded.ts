/** Small bounded caches for the ingress: an LRU map and a recent-items set. */

export class LruMap<K, V> {
  private readonly entries = new Map<K, V>();

  constructor(private readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new Error('capacity must be a positive integer');
  }

  get(key: K): V | undefined {
    const value = this.entries.get(key);
    if (value === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  set(key: K, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    while (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next();
      if (oldest.done) break;
      this.entries.delete(oldest.value);
    }
  }

  delete(key: K): void {
    this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }
}

/**
 * Items seen recently: at most `capacity` of them, each for at most `ttlMs` after it was added (an
 * item older than that is no longer `has`).
 */
export class RecentSet<T> {
  private readonly map: LruMap<T, number>;

  constructor(
    capacity: number,
    private readonly ttlMs: number = Number.POSITIVE_INFINITY,
    private readonly now: () => number = Date.now,
  ) {
    this.map = new LruMap(capacity);
  }

  has(item: T): boolean {
    const addedAt = this.map.get(item);
    if (addedAt === undefined) return false;
    if (this.now() - addedAt < this.ttlMs) return true;
    this.map.delete(item);
    return false;
  }

  add(item: T): void {
    this.map.set(item, this.now());
  }

  get size(): number {
    return this.map.size;
  }
}
