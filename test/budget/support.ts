/** What the write budget's stack tests share. */
import type { ProxiedCall } from '../../bench/support/counting-proxy.js';

/** The registry's write window (spec, "Limits"). */
export const WINDOW_MS = 10_000;

/** The largest number of accepted calls (not 429) whose arrivals fit in one window. */
export function maxInAnyWindow(calls: readonly ProxiedCall[]): number {
  const times = calls
    .filter((c) => c.status !== 429)
    .map((c) => c.startMs)
    .sort((a, b) => a - b);
  let best = 0;
  for (let i = 0, j = 0; i < times.length; i++) {
    while (times[i]! - times[j]! >= WINDOW_MS) j++;
    best = Math.max(best, i - j + 1);
  }
  return best;
}
