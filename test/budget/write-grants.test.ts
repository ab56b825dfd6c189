/**
 * The write budget's grant rule (src/workflows/budget/grant-rules.ts), on its own: the first `limit` grants
 * of an idle log go at once, the next waits a window plus the margin after the one `limit` places
 * back, no span of window + margin ever holds more than `limit` grants (random request streams with
 * handed-back instants), and a handed-back instant can be granted again. While interactive writes
 * come, background grants leave the headroom of every window to them, and only then. A background
 * request's horizon keeps a backlog from holding the next window: what lies beyond it is not granted
 * and is asked for again. Writes reported sent move the next window to their actual sends, once each,
 * and whatever the callers report, send late or leave unreported, no 21 arrivals at the registry
 * fall within 10 s (a model of sends and network delays, random streams).
 */
import { describe, expect, it } from 'vitest';
import type { SentWrite, WriteBudgetRequest } from '../../src/contracts/write-budget.js';
import {
  insertGrant,
  nextWriteGrant,
  restartQuietMs,
  WriteGrantLog,
  withinWindow,
  withoutUnusedGrant,
  writeBudgetRequestProblem,
} from '../../src/workflows/budget/grant-rules.js';

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

  it("leaves the last window's interactive writes and the headroom free of background grants while they come, and grants an interactive write there at once", () => {
    const hold = { headroom: 2, headroomHoldMs: 60_000 };
    const log = new WriteGrantLog();
    // An operator's write: the headroom is held from now on.
    expect(log.grant(at(1_000_000, { ...hold, interactive: true }))).toBe(1_000_050);
    // A backlog asks for 40: background grants leave that write and 2 more free, so the window holds
    // it and 16 more; the next 17 a window later.
    const background = Array.from({ length: 40 }, (_, i) => log.grant(at(1_000_001 + i, hold)));
    expect(background.slice(0, 16)).toEqual(Array.from({ length: 16 }, (_, i) => 1_000_051 + i));
    expect(background[16]).toBeGreaterThanOrEqual(1_000_050 + 10_250);
    // Operators' writes behind that backlog go at their own lead, not after the backlog's window:
    // the rest of the window is theirs.
    for (const now of [1_000_500, 1_000_600, 1_000_700])
      expect(log.grant(at(now, { ...hold, interactive: true }))).toBe(now + 50);
    // The window is then full for everyone, interactive writes too.
    expect(log.grant(at(1_000_800, { ...hold, interactive: true }))).toBeGreaterThanOrEqual(
      1_000_050 + 10_250,
    );
    expect(withinWindow(log.instants(), 20, 10_250)).toBe(true);
  });

  it('sizes the room it leaves by the interactive writes of the last window, up to half the window', () => {
    const hold = { headroom: 2, headroomHoldMs: 600_000 };
    // Four interactive writes in the last window (two operators' corrections, each an update and a
    // revet): background grants leave them and 2 more free, so a window holds those 4 and 10 more.
    const log = new WriteGrantLog();
    for (const now of [1_000_000, 1_000_300, 1_005_000, 1_005_300])
      log.grant(at(now, { ...hold, interactive: true }));
    const background = Array.from({ length: 20 }, (_, i) => log.grant(at(1_005_400 + i, hold)));
    expect(background.filter((t) => t < 1_000_050 + 10_250)).toHaveLength(10);
    // A flood of interactive writes (fifteen in the window) still leaves background half of it.
    const flooded = new WriteGrantLog();
    for (let i = 0; i < 15; i++) flooded.grant(at(2_000_000 + i, { ...hold, interactive: true }));
    const after = Array.from({ length: 20 }, (_, i) => flooded.grant(at(2_000_100 + i, hold)));
    // The window already holds 15: background gets nothing in it, and then at most 10 a window.
    expect(after.filter((t) => t < 2_000_050 + 10_250)).toHaveLength(0);
    expect(withinWindow(flooded.instants(), 20, 10_250)).toBe(true);
    // The interactive instants are carried by continue-as-new.
    expect(new WriteGrantLog(log.carried()).carried()).toEqual(log.carried());
    expect(log.carried().interactiveGrants).toHaveLength(4);
  });

  it('gives background work the whole window when no interactive write came within the hold', () => {
    const hold = { headroom: 2, headroomHoldMs: 60_000 };
    // Never an interactive write: a bulk run alone has all 20.
    const bulk = new WriteGrantLog();
    const alone = Array.from({ length: 20 }, (_, i) => bulk.grant(at(1_000_000 + i, hold)));
    expect(alone.at(-1)).toBe(1_000_069);
    // The last interactive write more than the hold ago (carried across a continue-as-new): the same.
    const later = new WriteGrantLog({ lastInteractive: 1_000_000 - 60_000 });
    const after = Array.from({ length: 20 }, (_, i) => later.grant(at(1_000_000 + i, hold)));
    expect(after.at(-1)).toBe(1_000_069);
    // Within the hold: 18.
    const held = new WriteGrantLog({ lastInteractive: 1_000_000 - 50_000 });
    const within = Array.from({ length: 20 }, (_, i) => held.grant(at(1_000_000 + i, hold)));
    expect(within.filter((t) => t < 1_001_000)).toHaveLength(18);
    expect(held.carried()).toMatchObject({ lastInteractive: 1_000_000 - 50_000 });
  });

  it('never lets a span hold more than the limit, or background grants fill the headroom, in mixed random streams', () => {
    let seed = 777;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const hold = { headroom: 3, headroomHoldMs: 20_000 };
    for (let run = 0; run < 30; run++) {
      const log = new WriteGrantLog();
      let now = 9_000_000;
      // Background grants made while the headroom is held (after the first interactive request).
      const background: number[] = [];
      let held = false;
      // Fewer requests than the log keeps (MAX_WRITE_LIMIT): these callers ask much faster than the
      // budget grants, so their reservations run far ahead of now; real ones are bounded by the write
      // activities waiting on them (a few per worker process and account).
      for (let i = 0; i < 190; i++) {
        now += Math.floor(random() * 300);
        const interactive = random() < 0.1;
        const t = log.grant(at(now, { ...hold, interactive }));
        expect(t).toBeGreaterThanOrEqual(now + base.leadMs);
        if (held && !interactive) insertGrant(background, t);
        held ||= interactive;
      }
      expect(background.length).toBeGreaterThan(100);
      expect(withinWindow(background, 20 - hold.headroom, 10_250)).toBe(true);
      expect(withinWindow(log.instants(), 20, 10_250)).toBe(true);
    }
  });

  it('refuses requests whose numbers make no budget', () => {
    expect(writeBudgetRequestProblem(at(1))).toBeUndefined();
    expect(writeBudgetRequestProblem(at(1, { limit: 0 }))).toMatch(/limit/);
    expect(writeBudgetRequestProblem(at(1, { windowMs: 0 }))).toMatch(/windowMs/);
    expect(writeBudgetRequestProblem(at(Number.NaN))).toMatch(/now/);
    expect(writeBudgetRequestProblem(at(1, { headroom: 20 }))).toMatch(/headroom/);
    expect(writeBudgetRequestProblem(at(1, { headroom: 1.5 }))).toMatch(/headroom/);
    expect(writeBudgetRequestProblem(at(1, { headroomHoldMs: -1 }))).toMatch(/headroomHoldMs/);
    expect(writeBudgetRequestProblem(at(1, { count: 20 }))).toBeUndefined();
    expect(writeBudgetRequestProblem(at(1, { count: 0 }))).toMatch(/count/);
    expect(writeBudgetRequestProblem(at(1, { count: 21 }))).toMatch(/count/);
    expect(writeBudgetRequestProblem(at(1, { unusedInstants: [Number.NaN] }))).toMatch(/unusedInstants/);
    expect(writeBudgetRequestProblem(at(1, { count: 2, horizonMs: 1_000 }))).toBeUndefined();
    expect(writeBudgetRequestProblem(at(1, { count: 2, horizonMs: -1 }))).toMatch(/horizonMs/);
    expect(writeBudgetRequestProblem(at(1, { horizonMs: 1_000 }))).toMatch(/horizonMs needs a count/);
    expect(writeBudgetRequestProblem(at(1, { count: 1, horizonMs: 0, interactive: true }))).toMatch(
      /horizonMs/,
    );
  });

  it('grants a counted request as that many requests one after another, its hand-backs first', () => {
    const counted = new WriteGrantLog();
    const single = new WriteGrantLog();
    const first = counted.grantAll(at(1_000_000, { count: 15 })).instants;
    expect(first).toEqual(Array.from({ length: 15 }, () => single.grant(at(1_000_000))));
    // Ten more: five fit the window, the rest wait for it; two instants handed back make room for two.
    const second = counted.grantAll(
      at(1_000_100, { count: 10, unusedInstants: [first[0]!, first[1]!] }),
    ).instants;
    const expected = [
      single.grant(at(1_000_100, { unused: first[0]! })),
      single.grant(at(1_000_100, { unused: first[1]! })),
      ...Array.from({ length: 8 }, () => single.grant(at(1_000_100))),
    ];
    expect(second).toEqual(expected);
    expect(second.filter((t) => t === 1_000_150)).toHaveLength(7);
    expect(second.filter((t) => t === 1_000_050 + 10_250)).toHaveLength(3);
    expect(withinWindow(counted.instants(), 20, 10_250)).toBe(true);
  });

  it('grants a background request no instant beyond its horizon, records none of the rest, and says when to ask again', () => {
    const log = new WriteGrantLog();
    const horizon = { horizonMs: 1_000 };
    // An idle window: 20 of 25 granted at once; the other 5 would wait a window and a margin.
    const first = log.grantAll(at(1_000_000, { count: 25, ...horizon }));
    expect(first.instants).toEqual(Array.from({ length: 20 }, () => 1_000_050));
    // They ask again a second before their instant would come (lead 50 ms included).
    expect(first.retryAt).toBe(1_000_050 + 10_250 - 50 - 1_000);
    expect(log.instants()).toHaveLength(20);
    // Asked too early, they are told the same again; at retryAt all 5 are granted.
    expect(log.grantAll(at(1_005_000, { count: 5, ...horizon }))).toEqual({
      instants: [],
      retryAt: first.retryAt,
    });
    const again = log.grantAll(at(first.retryAt!, { count: 5, ...horizon }));
    expect(again.instants).toEqual(Array.from({ length: 5 }, () => 1_000_050 + 10_250));
    expect(again.retryAt).toBeUndefined();
    expect(withinWindow(log.instants(), 20, 10_250)).toBe(true);
  });

  it("keeps the next window's headroom free for the operators who come after the first one behind a backlog", () => {
    const hold = { headroom: 2, headroomHoldMs: 300_000 };
    // A backlog (far more writes than a window) spent the idle window at once.
    const run = (horizonMs: number | undefined) => {
      const log = new WriteGrantLog();
      const extra = horizonMs === undefined ? {} : { horizonMs };
      log.grantAll(at(1_000_000, { count: 20, ...hold, ...extra }));
      // The next 20 of the backlog ask at once (20 write slots waiting).
      log.grantAll(at(1_000_100, { count: 20, ...hold, ...extra }));
      // An operator comes 2 s into the window: nothing can go before the window frees.
      const firstOperator = log.grant(at(1_002_000, { ...hold, interactive: true }));
      // The second operator comes 3 s later.
      const secondOperator = log.grant(at(1_005_000, { ...hold, interactive: true }));
      return { firstOperator, secondOperator };
    };
    const windowFrees = 1_000_050 + 10_250;
    // Without a horizon, the backlog held the whole next window: the second operator waits for the
    // one after it.
    expect(run(undefined).secondOperator).toBeGreaterThanOrEqual(windowFrees + 10_250);
    // With one, the backlog holds nothing of it yet: both operators get the window's first instants.
    expect(run(1_000)).toEqual({ firstOperator: windowFrees, secondOperator: windowFrees });
  });

  it('starts the next window after the reported sends, each moved once by the lateness it did not use', () => {
    const reported = new WriteGrantLog();
    const unreported = new WriteGrantLog();
    const first = reported.grantAll(at(1_000_000, { count: 20 })).instants;
    unreported.grantAll(at(1_000_000, { count: 20 }));
    // Every write of the window left 3 ms after its instant (of the 100 ms it was allowed).
    const sent: SentWrite[] = first.map((instant) => ({ instant, lateByMs: 3 }));
    const next = reported.grantAll(at(1_001_000, { count: 20, lateMs: 100, sent })).instants;
    const unreportedNext = unreported.grantAll(at(1_001_000, { count: 20 })).instants;
    expect(unreportedNext).toEqual(Array.from({ length: 20 }, () => 1_000_050 + 10_250));
    expect(next).toEqual(Array.from({ length: 20 }, () => 1_000_050 - 97 + 10_250));
    // The same reports again (a repeated request), or of instants never granted, move nothing more.
    const third = reported.grantAll(
      at(1_002_000, { count: 1, lateMs: 100, sent: [...sent, { instant: 1_000_051, lateByMs: 0 }] }),
    ).instants;
    expect(third).toEqual([next[0]! + 10_250]);
    // A report of more lateness than allowed moves its entry nowhere; a negative one is refused.
    const late = new WriteGrantLog();
    const [instant] = late.grantAll(at(1_000_000, { count: 1, limit: 1 })).instants;
    expect(
      late.grantAll(
        at(1_000_100, { count: 1, limit: 1, lateMs: 100, sent: [{ instant: instant!, lateByMs: 900 }] }),
      ).instants,
    ).toEqual([instant! + 10_250]);
    expect(writeBudgetRequestProblem(at(1, { lateMs: 100, sent: [{ instant: 1, lateByMs: -1 }] }))).toMatch(
      /sent/,
    );
  });

  it('never lets 21 writes arrive within 10 s, whatever the callers report (sends, delays and hand-backs modelled)', () => {
    let seed = 4242;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const lateMs = 100;
    // What the margin (250 ms) leaves beyond the lateness: network spread and clock skew.
    const spreadMs = 149;
    for (let run = 0; run < 40; run++) {
      const log = new WriteGrantLog();
      const arrivals: number[] = [];
      // Per caller: its sends not yet reported, and the instants it will hand back.
      const callers = Array.from({ length: 3 }, () => ({
        sends: [] as { instant: number; sentAt: number }[],
        handBacks: [] as number[],
      }));
      let now = 7_000_000;
      for (let i = 0; i < 400; i++) {
        now += Math.floor(random() * 600);
        const caller = callers[Math.floor(random() * callers.length)]!;
        // A caller reports what it sent before now (some callers never report).
        const reports = caller === callers[2] ? [] : caller.sends.filter((w) => w.sentAt <= now);
        caller.sends = caller.sends.filter((w) => w.sentAt > now);
        const sent = reports.slice(-20).map((w) => ({ instant: w.instant, lateByMs: w.sentAt - w.instant }));
        const interactive = random() < 0.2;
        const request = at(now, {
          count: 1 + Math.floor(random() * 6),
          headroom: 2,
          headroomHoldMs: 30_000,
          ...(interactive ? { interactive: true } : { horizonMs: 1_000 }),
          ...(caller.handBacks.length > 0 ? { unusedInstants: caller.handBacks.splice(0) } : {}),
          ...(sent.length > 0 ? { lateMs, sent } : {}),
        });
        expect(writeBudgetRequestProblem(request)).toBeUndefined();
        for (const instant of log.grantAll(request).instants) {
          if (random() < 0.1) {
            caller.handBacks.push(instant);
            continue;
          }
          const sentAt = instant + random() * lateMs;
          caller.sends.push({ instant, sentAt });
          arrivals.push(sentAt + random() * spreadMs);
        }
      }
      arrivals.sort((a, b) => a - b);
      // No span under 10 s holds 21 arrivals.
      expect(withinWindow(arrivals, 20, 10_000)).toBe(true);
    }
  });
});

describe('a restarted budget, reservation ids and deadlines (issue 36, item 4)', () => {
  const rules = { restartRules: true };
  /**
   * A backlog on two logs: the first grants what its counted, background requests ask until it is
   * "terminated" at `killAt`; a second log, restarted (or, without the rules, started afresh), takes
   * over with the rest. Every grant of both is a write that goes. Returns every grant.
   */
  function restartMidBurst(options: { restartRules: boolean; restarted: boolean }) {
    const request = (now: number, count: number) =>
      at(now, { count, horizonMs: 1_000, headroom: 2, headroomHoldMs: 300_000 });
    const first = new WriteGrantLog({}, { restartRules: options.restartRules, restarted: false });
    const granted: number[] = [];
    let now = 1_000_000;
    let left = 60;
    const drive = (log: WriteGrantLog, until: number) => {
      while (left > 0 && now < until) {
        const { instants, retryAt } = log.grantAll(request(now, Math.min(left, 20)));
        granted.push(...instants);
        left -= instants.length;
        now = retryAt !== undefined ? Math.max(now + 1, retryAt) : now + 10;
      }
    };
    drive(first, 1_000_500);
    const second = new WriteGrantLog({}, options);
    drive(second, Number.POSITIVE_INFINITY);
    return granted.sort((a, b) => a - b);
  }

  it("a run started without carried grants grants nothing before the old window could have closed: the two runs' grants never crowd a window", () => {
    const grants = restartMidBurst({ restartRules: true, restarted: true });
    expect(grants).toHaveLength(60);
    expect(withinWindow(grants, 20, 10_250)).toBe(true);
    // Without the rules (as before the patch) the new run grants a second window at once.
    expect(withinWindow(restartMidBurst({ restartRules: false, restarted: true }), 20, 10_250)).toBe(false);
  });

  it('keeps quiet from its first request for two windows and margins plus the most lead, and carries that quiet', () => {
    const log = new WriteGrantLog({}, { ...rules, restarted: true });
    const quietUntil = 1_000_000 + restartQuietMs(at(1_000_000));
    expect(quietUntil).toBe(1_000_000 + 2_000 + 2 * 10_250);
    // An interactive request is held to the reach (a window and margin past its lead): ask again.
    const early = log.grantAll(at(1_000_000, { count: 1, interactive: true }));
    expect(early.instants).toEqual([]);
    expect(early.retryAt).toBe(quietUntil - 50 - 10_250);
    // A new run carrying the log keeps the quiet window.
    const next = new WriteGrantLog(log.carried(), rules);
    expect(next.grantAll(at(early.retryAt!, { count: 1, interactive: true })).instants).toEqual([quietUntil]);
    // The first run of an id (firstOfId) or a continued one grants at once.
    expect(new WriteGrantLog({}, { ...rules, restarted: false }).grant(at(1_000_000))).toBe(1_000_050);
  });

  it('answers a repeated reservation id with its first answer and records nothing more, across runs too', () => {
    const log = new WriteGrantLog({}, rules);
    const first = log.grantAll(at(1_000_000, { id: 'r-1', count: 3 }));
    expect(first.instants).toEqual([1_000_050, 1_000_050, 1_000_050]);
    const again = log.grantAll(at(1_000_200, { id: 'r-1', count: 3 }));
    expect(again.instants).toEqual(first.instants);
    expect(again.repeated).toBe(true);
    expect(log.instants()).toHaveLength(3);
    const carried = new WriteGrantLog(log.carried(), rules);
    expect(carried.grantAll(at(1_000_300, { id: 'r-1', count: 3 })).instants).toEqual(first.instants);
    expect(carried.instants()).toHaveLength(3);
    // Another id is a new grant.
    expect(carried.grantAll(at(1_000_300, { id: 'r-2', count: 1 })).instants).toEqual([1_000_350]);
  });

  it('refuses a request whose deadline another caller has passed (unless its id was answered)', () => {
    const log = new WriteGrantLog({}, rules);
    log.grantAll(at(1_000_000, { id: 'a', count: 1, deadline: 1_020_000 }));
    log.grantAll(at(1_030_000, { id: 'b', count: 1, deadline: 1_050_000 }));
    expect(log.refusal(at(1_000_100, { id: 'c', count: 1, deadline: 1_020_100 }))).toMatch(/deadline/);
    expect(log.refusal(at(1_000_100, { id: 'a', count: 1, deadline: 1_020_000 }))).toBeUndefined();
    expect(log.refusal(at(1_030_100, { id: 'd', count: 1, deadline: 1_050_100 }))).toBeUndefined();
    // Without the rules (a run before the patch) nothing is refused.
    const old = new WriteGrantLog();
    old.grant(at(1_030_000));
    expect(old.refusal(at(1_000_100, { deadline: 1_020_100 }))).toBeUndefined();
    expect(writeBudgetRequestProblem(at(1, { id: '' }))).toMatch(/id/);
    expect(writeBudgetRequestProblem(at(1, { leadMs: 2_001 }))).toMatch(/leadMs/);
  });
});
