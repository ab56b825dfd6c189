import { setFlagsFromString } from 'node:v8';
import { z } from 'zod';

/**
 * Fault patterns run on V8's linear-time regular-expression engine (the `l` flag), so a pattern
 * written to backtrack, such as `(a+)+$` against a long path, cannot hang the simulator: every
 * match costs time proportional to the path's length times the pattern's. The engine takes the
 * JavaScript syntax the documented patterns use (anchors, classes, groups, alternation, `*` `+` `?`
 * and small `{n,m}`) and refuses, when the fault is armed, what it cannot run in linear time:
 * backreferences, lookaheads (and on Node 20 lookbehinds) and large counted repetitions. The other ways were worse: a glob
 * subset breaks `[^/]+` and alternations that tests and drills arm; refusing nested quantifiers
 * still lets `.*.*.*.*x` run in polynomial time on a long path; a vm timeout per match costs about
 * 200 µs for each armed fault on every request. The engine is behind a V8 flag, set here before any
 * pattern is compiled (it only makes the `l` flag available; other expressions are unaffected).
 */
setFlagsFromString('--enable-experimental-regexp-engine');
/** A variable, not a literal: the flag is unknown to TypeScript and to an engine without the V8 flag. */
const LINEAR_FLAG = 'l';
const LINEAR = (() => {
  try {
    new RegExp('', LINEAR_FLAG);
    return true;
  } catch {
    return false;
  }
})();

/** The pattern on the linear-time engine; a SyntaxError says why it cannot be armed. */
export function compilePathPattern(pattern: string): RegExp {
  if (!LINEAR)
    throw new SyntaxError('this Node.js has no linear-time regular expressions, so no pattern can be armed');
  try {
    return new RegExp(pattern, LINEAR_FLAG);
  } catch (error) {
    const reason = error instanceof Error ? error.message.replace(/^Invalid regular expression: /, '') : '';
    throw new SyntaxError(
      /linear time/.test(reason)
        ? `not runnable in linear time (backreferences, lookaheads and large {n,m} are refused): ${reason}`
        : `not a valid regular expression: ${reason}`,
    );
  }
}

/** The longest `pathPattern` accepted: a pattern runs against every request while its fault is armed. */
export const MAX_PATH_PATTERN_LENGTH = 200;
/** The most faults armed at once. */
export const MAX_FAULTS = 100;

const method = z.string().max(16).optional();
const pathPattern = z.string().max(MAX_PATH_PATTERN_LENGTH).optional();
const count = z.number().int().positive().default(1);

/**
 * Injected faults. HTTP faults match registry API requests by method and a path pattern (a JavaScript
 * regular expression tested against the path in linear time, e.g. `^/v2/campaignBuilder$`); webhook faults match by
 * event type. Each fault fires `count` times, then disappears.
 */
export const FaultSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('latency'),
    method,
    pathPattern,
    count,
    latencyMs: z.number().int().nonnegative(),
  }),
  z.object({
    kind: z.enum(['error-before-commit', 'error-after-commit']),
    method,
    pathPattern,
    count,
    status: z.number().int().min(400).max(599).default(500),
  }),
  z.object({
    kind: z.literal('timeout-after-commit'),
    method,
    pathPattern,
    count,
    /** The connection is destroyed, without a response, this many real milliseconds after the commit. */
    delayMs: z.number().int().nonnegative().default(5000),
  }),
  z.object({
    kind: z.literal('rate-limit'),
    method,
    pathPattern,
    count,
    retryAfterSeconds: z.number().int().positive().default(1),
  }),
  z.object({
    kind: z.enum(['webhook-drop', 'webhook-duplicate', 'webhook-bad-signature']),
    eventType: z.string().max(100).optional(),
    cspId: z.string().max(100).optional(),
    count,
  }),
]);

export type FaultInput = z.input<typeof FaultSchema>;
export type Fault = z.output<typeof FaultSchema> & { id: string; remaining: number };
export type FaultKind = Fault['kind'];
type WebhookFault = Extract<Fault, { kind: 'webhook-drop' | 'webhook-duplicate' | 'webhook-bad-signature' }>;
const isWebhookFault = (f: Fault): f is WebhookFault => f.kind.startsWith('webhook-');
/** The fault variant whose kind union contains K. */
export type FaultOf<K extends FaultKind> = Fault extends infer F
  ? F extends { kind: infer FK }
    ? K extends FK
      ? F
      : never
    : never
  : never;

export class Faults {
  private list: Fault[] = [];
  /** Each pattern compiled once, when its fault is added. */
  private readonly patterns = new Map<string, RegExp>();
  private nextId = 1;

  /**
   * Throws a SyntaxError for a pattern that is invalid or cannot run in linear time, and a RangeError
   * when MAX_FAULTS are armed.
   */
  add(input: z.output<typeof FaultSchema>): Fault {
    if (this.list.length >= MAX_FAULTS) throw new RangeError(`at most ${MAX_FAULTS} faults can be armed`);
    const pattern =
      'pathPattern' in input && input.pathPattern !== undefined
        ? compilePathPattern(input.pathPattern)
        : undefined;
    const fault = { ...input, id: `F${this.nextId++}`, remaining: input.count } as Fault;
    if (pattern) this.patterns.set(fault.id, pattern);
    this.list.push(fault);
    return fault;
  }

  all(): Fault[] {
    return this.list.map((f) => ({ ...f }));
  }

  clear(): void {
    this.list = [];
    this.patterns.clear();
  }

  /** Takes (consumes one use of) the first HTTP fault of `kind` that matches the request. */
  takeHttp<K extends FaultKind>(kind: K, method: string, path: string): FaultOf<K> | undefined {
    const fault = this.list.find((f) => {
      if (f.kind !== kind || f.kind.startsWith('webhook-') || 'eventType' in f) return false;
      const scope = f as { method?: string; pathPattern?: string };
      if (scope.method && scope.method.toUpperCase() !== method.toUpperCase()) return false;
      if (scope.pathPattern && !this.patterns.get(f.id)?.test(path)) return false;
      return true;
    });
    return fault ? (this.consume(fault) as FaultOf<K>) : undefined;
  }

  takeWebhook(kind: FaultKind, cspId: string, eventType: string): Fault | undefined {
    const fault = this.list.find(
      (f) =>
        f.kind === kind &&
        isWebhookFault(f) &&
        (!f.eventType || f.eventType === eventType) &&
        (!f.cspId || f.cspId === cspId),
    );
    return fault ? this.consume(fault) : undefined;
  }

  private consume(fault: Fault): Fault {
    fault.remaining -= 1;
    if (fault.remaining <= 0) {
      this.list = this.list.filter((f) => f !== fault);
      this.patterns.delete(fault.id);
    }
    return fault;
  }
}
