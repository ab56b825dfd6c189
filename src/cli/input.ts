/**
 * Input files and requests at the CLI's edge: JSON files read and parsed, request objects checked
 * with the same zod schemas the workflows' update validators use, so a bad file or flag set is
 * refused here with every field error (exit 3) and nothing is started or sent.
 */

import { readFileSync } from 'node:fs';
import type { z } from 'zod';
import { messageOf } from '../common/error-message.js';
import type { EntityRef } from '../config/entity-lookup.js';
import { fieldErrorsOf } from '../registry/field-errors.js';
import { InputValidationError, UsageError } from './errors.js';

/** Reads a JSON file; an unreadable or malformed file is a validation error naming the file. */
export function readJsonFile(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new InputValidationError(path, [{ path: '', message: `cannot read the file (${code})` }]);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new InputValidationError(path, [{ path: '', message: `not valid JSON: ${messageOf(error)}` }]);
  }
}

/** Parses `value` with `schema`, or throws InputValidationError with every field error. */
export function validate<S extends z.ZodType>(schema: S, value: unknown, source: string): z.output<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new InputValidationError(source, fieldErrorsOf(parsed.error, schema));
  return parsed.data;
}

/** Names that would reach Object.prototype or a constructor instead of setting a field. */
const FORBIDDEN_FIELD_NAMES = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * `--set field=value` (value kept as a string) and `--set-json field=JSON` (numbers, booleans,
 * arrays) into one object. A dotted field sets a nested property (`--set-json a.b=1`).
 */
export function fieldsFromFlags(
  sets: string[] | undefined,
  jsonSets: string[] | undefined,
  help: string,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const assign = (flag: string, field: string, value: unknown) => {
    const parts = field.split('.');
    for (const part of parts) {
      if (part === '') throw new UsageError(`${flag} ${field}: empty field name`, help);
      if (FORBIDDEN_FIELD_NAMES.has(part))
        throw new UsageError(`${flag} ${field}: '${part}' is not allowed as a field name`, help);
    }
    let target = out;
    for (const part of parts.slice(0, -1)) {
      const next = target[part];
      if (typeof next === 'object' && next !== null && !Array.isArray(next))
        target = next as Record<string, unknown>;
      else {
        const created: Record<string, unknown> = {};
        target[part] = created;
        target = created;
      }
    }
    target[parts[parts.length - 1]!] = value;
  };
  const split = (flag: string, entry: string): [string, string] => {
    const eq = entry.indexOf('=');
    if (eq <= 0) throw new UsageError(`${flag} expects field=value, got '${entry}'`, help);
    return [entry.slice(0, eq), entry.slice(eq + 1)];
  };
  for (const entry of sets ?? []) {
    const [field, value] = split('--set', entry);
    assign('--set', field, value);
  }
  for (const entry of jsonSets ?? []) {
    const [field, raw] = split('--set-json', entry);
    let value: unknown;
    try {
      value = JSON.parse(raw) as unknown;
    } catch {
      throw new UsageError(`--set-json ${field}: not valid JSON: ${raw}`, help);
    }
    assign('--set-json', field, value);
  }
  return out;
}

/** `brand/x` or `x` → `x` (and the same for campaigns). */
export function referenceOf(arg: string, kind: 'brand' | 'campaign'): EntityRef {
  const prefix = `${kind}/`;
  if (!arg.startsWith(prefix)) return arg;
  // `{kind}/{account}/{reference}` names the account; `{kind}/{reference}` does not.
  const rest = arg.slice(prefix.length);
  const slash = rest.indexOf('/');
  return slash < 0 ? rest : { account: rest.slice(0, slash), reference: rest.slice(slash + 1) };
}
