/**
 * Property (fuzz) checks of the CLI's `--set` / `--set-json` parser (fieldsFromFlags), shared by the
 * bounded run in `npm test` (test/cli/set-fuzz.test.ts) and the long run under bench/
 * (bench/ingress/fuzz.bench-run.ts).
 */
import fc from 'fast-check';
import { UsageError } from '../../src/cli/errors.js';
import { fieldsFromFlags } from '../../src/cli/input.js';

const FORBIDDEN = ['__proto__', 'constructor', 'prototype'];

/** Field segments: mostly ordinary names, often the dangerous ones and inherited names, sometimes anything. */
const segment = fc.oneof(
  { weight: 4, arbitrary: fc.stringMatching(/^[A-Za-z][A-Za-z0-9_]{0,8}$/) },
  { weight: 2, arbitrary: fc.constantFrom(...FORBIDDEN) },
  {
    weight: 1,
    arbitrary: fc.constantFrom('toString', 'hasOwnProperty', 'valueOf', '__defineGetter__', 'length', '0'),
  },
  { weight: 1, arbitrary: fc.constant('') },
  { weight: 1, arbitrary: fc.string({ maxLength: 6 }).filter((s) => !s.includes('.') && !s.includes('=')) },
);
const field = fc.array(segment, { minLength: 1, maxLength: 4 }).map((parts) => parts.join('.'));
const jsonText = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v) ?? 'null'),
  fc.constant('{"__proto__":{"polluted":1}}'),
  fc.string({ maxLength: 12 }),
);
const entry = fc.oneof(
  fc.tuple(fc.constant('--set' as const), field, fc.string({ maxLength: 12 })),
  fc.tuple(fc.constant('--set-json' as const), field, jsonText),
);

const prototypeKeys = () => Object.getOwnPropertyNames(Object.prototype).sort().join(',');

/**
 * Any list of entries: either a UsageError that names the flag and the field, or an object of own
 * data properties; Object.prototype never changes, and every entry refused for a field name has a
 * forbidden or empty segment.
 */
export function setParserProperty() {
  const before = prototypeKeys();
  return fc.property(fc.array(entry, { maxLength: 6 }), (entries) => {
    const sets = entries.filter(([flag]) => flag === '--set').map(([, f, v]) => `${f}=${v}`);
    const jsonSets = entries.filter(([flag]) => flag === '--set-json').map(([, f, v]) => `${f}=${v}`);
    let out: Record<string, unknown> | undefined;
    try {
      out = fieldsFromFlags(sets, jsonSets, 'help');
    } catch (error) {
      if (!(error instanceof UsageError)) throw new Error(`not a UsageError: ${String(error)}`);
      const message = error.message;
      if (!/^--set(-json)? /.test(message)) throw new Error(`message names no flag: ${message}`);
      if (message.includes('is not allowed as a field name') || message.includes('empty field name')) {
        const named = entries.find(([flag, f]) => message.startsWith(`${flag} ${f}:`));
        if (!named) throw new Error(`message names no field: ${message}`);
        const parts = named[1].split('.');
        if (!parts.some((p) => p === '' || FORBIDDEN.includes(p)))
          throw new Error(`refused an allowed field: ${message}`);
      }
    }
    if (prototypeKeys() !== before) throw new Error('Object.prototype changed');
    if (({} as Record<string, unknown>).polluted !== undefined) throw new Error('Object.prototype polluted');
    const refusable = entries.some(([, f]) => f.split('.').some((p) => p === '' || FORBIDDEN.includes(p)));
    if (refusable && out !== undefined) throw new Error('accepted a forbidden or empty field name');
    if (out === undefined) return;
    if (Object.getPrototypeOf(out) !== Object.prototype) throw new Error('result has another prototype');
    // The last assignment applied (every --set, then every --set-json) wins at its path: every segment
    // is an own property, and a --set value is the string.
    const last = [
      ...entries.filter(([f]) => f === '--set'),
      ...entries.filter(([f]) => f === '--set-json'),
    ].at(-1);
    if (last === undefined) return;
    const [flag, f, v] = last;
    let target: unknown = out;
    for (const part of f.split('.')) {
      if (typeof target !== 'object' || target === null || !Object.hasOwn(target, part))
        throw new Error(`${flag} ${f}: '${part}' is not an own property of the result`);
      target = (target as Record<string, unknown>)[part];
    }
    if (flag === '--set' && target !== v) throw new Error(`--set ${f} did not set ${JSON.stringify(v)}`);
  });
}

/** A single valid assignment reads back: the string for --set, the parsed JSON for --set-json. */
export function roundTripProperty() {
  const safe = fc
    .array(fc.stringMatching(/^[a-z][a-zA-Z0-9]{0,8}$/), { minLength: 1, maxLength: 4 })
    .filter((parts) => !parts.some((p) => FORBIDDEN.includes(p)));
  return fc.property(safe, fc.string(), fc.jsonValue(), (parts, text, json) => {
    const path = parts.join('.');
    const read = (o: Record<string, unknown>) =>
      parts.reduce<unknown>((t, p) => (t as Record<string, unknown>)[p], o);
    const asString = read(fieldsFromFlags([`${path}=${text}`], undefined, 'h'));
    if (asString !== text) throw new Error(`--set ${path} read back ${JSON.stringify(asString)}`);
    const asJson = read(fieldsFromFlags(undefined, [`${path}=${JSON.stringify(json)}`], 'h'));
    if (JSON.stringify(asJson) !== JSON.stringify(JSON.parse(JSON.stringify(json))))
      throw new Error(`--set-json ${path} read back ${JSON.stringify(asJson)}`);
  });
}
