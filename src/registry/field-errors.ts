/**
 * Field errors of a refused order or request: the shape every edge of the product reports. No zod at
 * run time (only its types): the workflows' request checks name unknown fields with this module too.
 */
import type { z } from 'zod';
import { REQUEST_LIMITS } from './request-limits.js';

export interface FieldError {
  /** Dotted path, e.g. `brand.businessContactEmail`. */
  path: string;
  message: string;
}

/**
 * Every issue of a zod parse as a field error. A strict object's unknown keys (one zod issue) become
 * one error per key, `unknown field`, with the nearest known field name when `schema` (the schema
 * that was parsed) shows which names the object knows. At most REQUEST_LIMITS.reportedUnknownFields
 * keys of one object are named; one more error counts the rest.
 */
export function fieldErrorsOf(error: z.ZodError, schema?: z.ZodType): FieldError[] {
  return error.issues.flatMap((issue) => {
    const path = issue.path.map(String);
    if (issue.code === 'unrecognized_keys')
      return unknownFieldErrors(path, issue.keys, schema ? knownKeysAt(schema, path) : []).map((e) => ({
        path: e.path.join('.'),
        message: e.message,
      }));
    return [{ path: path.join('.'), message: issue.message }];
  });
}

/**
 * The errors for `keys`, unknown in the object at `path` whose fields are `known`: each key's path is
 * `path` plus the key as `fieldName` shows it.
 */
export function unknownFieldErrors(
  path: readonly string[],
  keys: readonly string[],
  known: readonly string[],
): { path: string[]; message: string }[] {
  const max = REQUEST_LIMITS.reportedUnknownFields;
  const errors = keys.slice(0, max).map((key) => {
    const suggestion = nearestField(key, known);
    return {
      path: [...path, fieldName(key)],
      message: suggestion ? `unknown field (did you mean ${suggestion}?)` : 'unknown field',
    };
  });
  if (keys.length > max)
    errors.push({
      path: [...path],
      message: `and ${thousands(keys.length - max)} more unknown fields`,
    });
  return errors;
}

/** 9990 as `9,990`, the same everywhere (no locale: the workflows use this too). */
const thousands = (n: number): string => String(n).replace(/\B(?=(\d{3})+$)/g, ',');

const PLAIN_NAME = /^[A-Za-z0-9_$-]{1,64}$/;
const SHOWN_NAME_MAX = 64;

/**
 * A key as an error shows it: as it is when plain (letters, digits, `_ $ -`, at most 64), otherwise
 * JSON-quoted (control characters escaped) and cut to 64 characters with `…`.
 */
export function fieldName(key: string): string {
  if (PLAIN_NAME.test(key)) return key;
  const shown = key.length > SHOWN_NAME_MAX ? `${key.slice(0, SHOWN_NAME_MAX)}…` : key;
  return JSON.stringify(shown);
}

/** The known name `key` most likely misspells: same letters in another case, or one or two edits away. */
export function nearestField(key: string, known: readonly string[]): string | undefined {
  if (key.length > SHOWN_NAME_MAX) return undefined;
  const lower = key.toLowerCase();
  const sameLetters = known.find((name) => name.toLowerCase() === lower);
  if (sameLetters) return sameLetters;
  const limit = Math.min(2, Math.floor(key.length / 3));
  let best: string | undefined;
  let bestDistance = limit + 1;
  for (const name of known) {
    const d = editDistance(lower, name.toLowerCase(), limit);
    if (d < bestDistance) {
      best = name;
      bestDistance = d;
    }
  }
  return best;
}

/** Levenshtein distance of `a` and `b`, or `limit + 1` once it is known to exceed `limit`. */
function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const value = Math.min(
        (previous[j] ?? 0) + 1,
        (current[j - 1] ?? 0) + 1,
        (previous[j - 1] ?? 0) + cost,
      );
      current.push(value);
      rowMin = Math.min(rowMin, value);
    }
    if (rowMin > limit) return limit + 1;
    previous = current;
  }
  return previous[b.length] ?? limit + 1;
}

type Def = {
  type: string;
  shape?: Record<string, z.ZodType>;
  innerType?: z.ZodType;
  in?: z.ZodType;
  element?: z.ZodType;
  valueType?: z.ZodType;
};
const defOf = (schema: z.ZodType): Def => schema._zod.def as unknown as Def;

/** Looks through wrappers (optional, default, pipe, ...) to the schema that parses the value. */
function unwrap(schema: z.ZodType): z.ZodType {
  let current = schema;
  for (let i = 0; i < 20; i++) {
    const def = defOf(current);
    const next = def.innerType ?? (def.type === 'pipe' ? def.in : undefined);
    if (!next) return current;
    current = next;
  }
  return current;
}

/** The field names of the object `schema` expects at `path`, or none when it cannot tell. */
export function knownKeysAt(schema: z.ZodType, path: readonly string[]): string[] {
  let current: z.ZodType | undefined = unwrap(schema);
  for (const segment of path) {
    const def = defOf(current);
    if (def.type === 'object') current = def.shape?.[segment];
    else if (def.type === 'array') current = def.element;
    else if (def.type === 'record') current = def.valueType;
    else current = undefined;
    if (!current) return [];
    current = unwrap(current);
  }
  const def = defOf(current);
  return def.type === 'object' ? Object.keys(def.shape ?? {}) : [];
}

/** `path: message` for each error, `(root)` for the whole value, joined with `; `. */
export function describeFieldErrors(errors: readonly FieldError[]): string {
  return errors.map((e) => `${e.path || '(root)'}: ${e.message}`).join('; ');
}
