/** Figures of the registry calls the counting proxy saw in a window. */
import { isWrite, type ProxiedCall } from './counting-proxy.js';
import { round } from './stats.js';

export interface CallStats {
  calls: number;
  reads: number;
  writes: number;
  /** Writes the registry accepted (not 429). */
  acceptedWrites: number;
  acceptedReads: number;
  rateLimited: number;
  rateLimitedShare: number;
  /** Other failures: 5xx, 4xx other than 429, dropped connections. */
  otherErrors: Record<string, number>;
  windowSeconds: number;
  writesPerSecond: number;
  readsPerSecond: number;
  /** acceptedWrites / window ÷ 2 per second. */
  writeLimitShare: number;
  /** acceptedReads / window ÷ 20 per second. */
  readLimitShare: number;
}

export function callStats(calls: readonly ProxiedCall[], fromMs: number, toMs: number): CallStats {
  const inWindow = calls.filter((c) => c.startMs >= fromMs && c.startMs <= toMs && c.path.startsWith('/v2/'));
  const writes = inWindow.filter(isWrite);
  const reads = inWindow.filter((c) => !isWrite(c));
  const rateLimited = inWindow.filter((c) => c.status === 429).length;
  const acceptedWrites = writes.filter((c) => c.status !== 429).length;
  const acceptedReads = reads.filter((c) => c.status !== 429).length;
  const otherErrors: Record<string, number> = {};
  for (const c of inWindow)
    if (c.status !== 429 && (c.status >= 400 || c.status === 0)) {
      const key = `${c.status} ${c.method} ${c.path.replace(/\/[A-Z][0-9A-Z]{5,}(?=\/|$)/g, '/{id}')}`;
      otherErrors[key] = (otherErrors[key] ?? 0) + 1;
    }
  const windowSeconds = Math.max(0.001, (toMs - fromMs) / 1000);
  return {
    calls: inWindow.length,
    reads: reads.length,
    writes: writes.length,
    acceptedWrites,
    acceptedReads,
    rateLimited,
    rateLimitedShare: round(rateLimited / Math.max(1, inWindow.length), 4),
    otherErrors,
    windowSeconds: round(windowSeconds, 1),
    writesPerSecond: round(acceptedWrites / windowSeconds, 3),
    readsPerSecond: round(acceptedReads / windowSeconds, 3),
    writeLimitShare: round(acceptedWrites / windowSeconds / 2, 3),
    readLimitShare: round(acceptedReads / windowSeconds / 20, 3),
  };
}

/** The registry writes it accepted (not 429) from `fromMs` on, in the order they reached the proxy. */
export function acceptedWrites(calls: readonly ProxiedCall[], fromMs: number): ProxiedCall[] {
  return calls.filter(
    (c) => isWrite(c) && c.status !== 429 && c.startMs >= fromMs && c.path.startsWith('/v2/'),
  );
}

/** Window from the first to the last accepted write (the stretch where writes were the bottleneck). */
export function writeWindow(calls: readonly ProxiedCall[], fromMs: number): { from: number; to: number } {
  const writes = acceptedWrites(calls, fromMs);
  if (writes.length === 0) return { from: fromMs, to: fromMs };
  return { from: writes[0]!.startMs, to: writes[writes.length - 1]!.endMs };
}

/** Accepted writes, reads and 429s per `bucketSeconds` from `fromMs` (the registry allows 20 writes per 10 s). */
export function timeline(
  calls: readonly ProxiedCall[],
  fromMs: number,
  toMs: number,
  bucketSeconds = 10,
): { fromSecond: number; writes: number; reads: number; rateLimited: number }[] {
  const buckets = Array.from(
    { length: Math.max(1, Math.ceil((toMs - fromMs) / 1000 / bucketSeconds)) },
    (_, i) => ({
      fromSecond: i * bucketSeconds,
      writes: 0,
      reads: 0,
      rateLimited: 0,
    }),
  );
  for (const c of calls) {
    if (c.startMs < fromMs || c.startMs > toMs || !c.path.startsWith('/v2/')) continue;
    const b = buckets[Math.min(buckets.length - 1, Math.floor((c.startMs - fromMs) / 1000 / bucketSeconds))]!;
    if (c.status === 429) b.rateLimited++;
    else if (isWrite(c)) b.writes++;
    else b.reads++;
  }
  return buckets;
}
