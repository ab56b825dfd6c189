/**
 * Fuzzing the CLI's --set / --set-json parser (fast-check), bounded for `npm test`: FUZZ_RUNS cases per
 * property (default 1000). bench/ingress/fuzz.bench-run.ts runs the same properties far longer.
 */
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { roundTripProperty, setParserProperty } from './set-properties.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 1000);

it('refuses dangerous or empty field names by name, never touches Object.prototype, never throws otherwise', () => {
  fc.assert(setParserProperty(), { numRuns: RUNS });
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
});

it('reads back what a single --set or --set-json assignment set', () => {
  fc.assert(roundTripProperty(), { numRuns: RUNS });
});
