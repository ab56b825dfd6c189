/**
 * The workflows' webhook dedupe: a delivery id is a hash of the body, so the same body can be two
 * distinct events. Duplicates are dropped only while the registry could still be retrying the first
 * delivery, and an id the workflow forgets (an operator acknowledged what it raised) counts as new.
 */
import { describe, expect, it } from 'vitest';
import { DEDUPE_WINDOW_MS, DeliveryDedupe } from '../../src/workflows/entity/delivery-dedupe.js';

const HOUR = 3_600_000;
const t0 = Date.UTC(2026, 10, 1);

describe('DeliveryDedupe', () => {
  it('drops a duplicate within the registry retry span (about 25 hours) and not after the window', () => {
    expect(DEDUPE_WINDOW_MS).toBeGreaterThanOrEqual(89_991_000); // the spec's 13 retries
    const dedupe = new DeliveryDedupe([], 500, DEDUPE_WINDOW_MS, t0);
    expect(dedupe.firstSeen('a', t0)).toBe(true);
    expect(dedupe.firstSeen('a', t0 + 61_000)).toBe(false);
    expect(dedupe.firstSeen('a', t0 + 89_991_000)).toBe(false);
    // The same body a day and a half later is a new event (a second identical nudge).
    expect(dedupe.firstSeen('a', t0 + 36 * HOUR)).toBe(true);
    expect(dedupe.firstSeen('a', t0 + 37 * HOUR)).toBe(false);
  });

  it('handles a forgotten id as new: a repeated event after an acknowledgement', () => {
    const dedupe = new DeliveryDedupe([], 500, DEDUPE_WINDOW_MS, t0);
    expect(dedupe.firstSeen('nudge', t0)).toBe(true);
    expect(dedupe.firstSeen('nudge', t0 + HOUR)).toBe(false);
    dedupe.forget('nudge');
    expect(dedupe.firstSeen('nudge', t0 + 2 * HOUR)).toBe(true);
    expect(dedupe.firstSeen('nudge', t0 + 3 * HOUR)).toBe(false);
  });

  it('carries ids with their times across continue-as-new, and reads the bare ids older runs carried', () => {
    const first = new DeliveryDedupe([], 500, DEDUPE_WINDOW_MS, t0);
    first.firstSeen('old', t0);
    first.firstSeen('recent', t0 + 20 * HOUR);
    const carried = JSON.parse(JSON.stringify(first.toJSON()));
    const next = new DeliveryDedupe(carried, 500, DEDUPE_WINDOW_MS, t0 + 21 * HOUR);
    expect(next.firstSeen('recent', t0 + 21 * HOUR)).toBe(false);
    // 'old' was seen 27 hours before: out of the window, so its body is a new event now.
    expect(next.firstSeen('old', t0 + 27 * HOUR)).toBe(true);
    expect(next.firstSeen('recent', t0 + 27 * HOUR)).toBe(false);

    const fromOlderRun = new DeliveryDedupe(['x', 'y'], 500, DEDUPE_WINDOW_MS, t0);
    expect(fromOlderRun.firstSeen('x', t0 + HOUR)).toBe(false);
    expect(fromOlderRun.firstSeen('y', t0 + 30 * HOUR)).toBe(true);
  });

  it('stays bounded in count, forgetting the oldest first', () => {
    const dedupe = new DeliveryDedupe([], 3, DEDUPE_WINDOW_MS, t0);
    for (const id of ['a', 'b', 'c', 'd']) expect(dedupe.firstSeen(id, t0)).toBe(true);
    expect(dedupe.toJSON().map(([id]) => id)).toEqual(['b', 'c', 'd']);
    expect(dedupe.firstSeen('a', t0)).toBe(true);
    expect(dedupe.firstSeen('d', t0)).toBe(false);
  });
});
