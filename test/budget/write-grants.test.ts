/**
 * The write budget's grant rule (src/contracts/write-budget.ts), on its own: the first `limit` grants
 * of an idle log go at once, the next waits a window plus the margin after the one `limit` places
 * back, no span of window + margin ever holds more than `limit` grants (random request streams with
 * handed-back instants), and a handed-back instant can be granted again.
 */
import { describe, expect, it } from 'vitest';
import {
  insertGrant,
  nextWriteGrant,
  type WriteBudgetRequest,
  withinWindow,
  withoutUnusedGrant,
  writeBudgetRequestProblem,
} from '../../src/contracts/write-budget.js';

const base = { limit: 20, windowMs: 10_000, marginMs: 250, leadMs: 50 };
const at = (now: number, extra: Partial<WriteBudgetRequest> = {}): WriteBudgetRequest => ({
  ...base,
  now,
  ...extra,
});

function grantAll(grants: number[], requests: WriteBudgetRequest[]): number[] {
  return requests.map((request) => {
    withoutUnusedGrant(grants, request.unused);
    const t = nextWriteGrant(grants, request);
    insertGrant(grants, t);
    return t;
  });
}

describe('write grants', () => {
  it('grants a whole window at once after an idle one, then a window and a margin later', () => {
    const grants: number[] = [];
    const times = grantAll(
      grants,
      Array.from({ length: 45 }, (_, i) => at(1_000_000 + i)),
    );
    expect(times.slice(0, 20)).toEqual(Array.from({ length: 20 }, (_, i) => 1_000_050 + i));
    expect(times[20]).toBe(times[0]! + 10_250);
    expect(times[40]).toBe(times[20]! + 10_250);
    expect(withinWindow(grants, 20, 10_250)).toBe(true);
  });

  it('never lets a span of window + margin hold more than the limit (random streams, hand-backs)', () => {
    let seed = 12345;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let run = 0; run < 50; run++) {
      const grants: number[] = [];
      const used: number[] = [];
      let now = 5_000_000;
      for (let i = 0; i < 300; i++) {
        now += Math.floor(random() * 400);
        const handBack =
          used.length > 0 && random() < 0.2
            ? used.splice(Math.floor(random() * used.length), 1)[0]
            : undefined;
        const request = at(now - Math.floor(random() * 200), {
          limit: 20,
          ...(handBack !== undefined ? { unused: handBack } : {}),
        });
        withoutUnusedGrant(grants, request.unused);
        const t = nextWriteGrant(grants, request);
        expect(t).toBeGreaterThanOrEqual(request.now + request.leadMs);
        insertGrant(grants, t);
        used.push(t);
      }
      expect(withinWindow(grants, 20, 10_250)).toBe(true);
      expect([...grants].sort((a, b) => a - b)).toEqual(grants);
    }
  });

  it('grants a handed-back instant again instead of the next window', () => {
    const grants: number[] = [];
    const times = grantAll(
      grants,
      Array.from({ length: 20 }, (_, i) => at(1_000_000 + i)),
    );
    // The 21st waits a window; once one of the 20 is handed back, its slot is granted now.
    expect(nextWriteGrant(grants, at(1_000_100))).toBeGreaterThanOrEqual(times[0]! + 10_250);
    const [again] = grantAll(grants, [at(1_000_300, { unused: times[5]! })]);
    expect(again).toBe(1_000_350);
    expect(grants).toHaveLength(20);
  });

  it('refuses requests whose numbers make no budget', () => {
    expect(writeBudgetRequestProblem(at(1))).toBeUndefined();
    expect(writeBudgetRequestProblem(at(1, { limit: 0 }))).toMatch(/limit/);
    expect(writeBudgetRequestProblem(at(1, { windowMs: 0 }))).toMatch(/windowMs/);
    expect(writeBudgetRequestProblem(at(Number.NaN))).toMatch(/now/);
  });
});
