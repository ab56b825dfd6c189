/**
 * The write budget's grant rule (src/contracts/write-budget.ts), on its own: the first `limit` grants
 * of an idle log go at once, the next waits a window plus the margin after the one `limit` places
 * back, no span of window + margin ever holds more than `limit` grants (random request streams with
 * handed-back instants), and a handed-back instant can be granted again. Background requests (with a
 * horizon) are granted only within it and told when to ask again otherwise, so an operator's request
 * (none) takes the next free instant rather than one after every backlogged write's.
 */
import { describe, expect, it } from 'vitest';
import {
  answerWriteRequest,
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

  it('defers a background request whose grant lies past its horizon, records nothing, and grants it once near', () => {
    const grants: number[] = [];
    grantAll(
      grants,
      Array.from({ length: 20 }, (_, i) => at(1_000_000 + i)),
    ); // a full window from 1_000_050: the next instant is 1_010_300
    const deferred = answerWriteRequest(grants, at(1_000_100, { horizonMs: 1_000 }));
    expect(deferred).toEqual({ at: 1_009_300, deferred: true });
    expect(grants).toHaveLength(20);
    // Asked again when told: within the horizon now, so granted.
    expect(answerWriteRequest(grants, at(1_009_300, { horizonMs: 1_000 }))).toEqual({ at: 1_010_300 });
    expect(grants).toHaveLength(21);
  });

  it('an operator request behind background writers takes the next free instant, not one after theirs', () => {
    // Steady backlog: background writers ask as soon as they may, five at a time (a worker's slots).
    const grants: number[] = [];
    let now = 2_000_000;
    const pending: number[] = [];
    for (let i = 0; i < 200; i++) {
      now += 100;
      while (pending.length > 0 && pending[0]! <= now) pending.shift(); // sent
      while (pending.length < 5) {
        const answer = answerWriteRequest(grants, at(now, { horizonMs: 1_000 }));
        if (answer.deferred) break;
        pending.push(answer.at);
        pending.sort((a, b) => a - b);
      }
    }
    // Background writers never hold an instant more than the horizon (and the lead) ahead.
    expect(Math.max(...pending) - now).toBeLessThanOrEqual(1_050);
    const free = nextWriteGrant(grants, at(now));
    const operator = answerWriteRequest(grants, at(now));
    expect(operator).toEqual({ at: free });
    expect(operator.at - now).toBeLessThanOrEqual(1_000 + 50 + 10_250 / 20);
    expect(withinWindow(grants, 20, 10_250)).toBe(true);
  });

  it('keeps the window with background and operator requests mixed (random streams)', () => {
    let seed = 777;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const grants: number[] = [];
    let now = 9_000_000;
    for (let i = 0; i < 2_000; i++) {
      now += Math.floor(random() * 300);
      const answer = answerWriteRequest(grants, at(now, random() < 0.8 ? { horizonMs: 1_000 } : {}));
      expect(answer.at).toBeGreaterThanOrEqual(now);
    }
    expect(withinWindow(grants, 20, 10_250)).toBe(true);
  });

  it('refuses requests whose numbers make no budget', () => {
    expect(writeBudgetRequestProblem(at(1))).toBeUndefined();
    expect(writeBudgetRequestProblem(at(1, { limit: 0 }))).toMatch(/limit/);
    expect(writeBudgetRequestProblem(at(1, { windowMs: 0 }))).toMatch(/windowMs/);
    expect(writeBudgetRequestProblem(at(Number.NaN))).toMatch(/now/);
    expect(writeBudgetRequestProblem(at(1, { horizonMs: -1 }))).toMatch(/horizonMs/);
  });
});
