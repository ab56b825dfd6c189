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

/**
 * One token bucket per key (a source address): `burst` tokens, refilled at `ratePerSecond`. At most
 * `capacity` buckets are kept, least recently used dropped first (a dropped source starts full again,
 * which bounds memory, not what one source can send at once).
 */
export class TokenBuckets<K> {
  private readonly buckets: LruMap<K, { tokens: number; at: number }>;

  constructor(
    private readonly ratePerSecond: number,
    private readonly burst: number,
    capacity = 10_000,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.buckets = new LruMap(capacity);
  }

  /** Takes a token for `key`; false when its bucket is empty. */
  take(key: K): boolean {
    const now = this.now();
    const bucket = this.buckets.get(key) ?? { tokens: this.burst, at: now };
    bucket.tokens = Math.min(this.burst, bucket.tokens + ((now - bucket.at) / 1000) * this.ratePerSecond);
    bucket.at = now;
    const allowed = bucket.tokens >= 1;
    if (allowed) bucket.tokens -= 1;
    this.buckets.set(key, bucket);
    return allowed;
  }

  /** Gives back the token a request took (it turned out to be one the limit is not for). */
  give(key: K): void {
    const bucket = this.buckets.get(key);
    if (bucket) bucket.tokens = Math.min(this.burst, bucket.tokens + 1);
  }
}
