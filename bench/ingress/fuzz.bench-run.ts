/**
 * The long fuzz run: the properties of test/ingress/fuzz.test.ts (ingress request handling) and
 * test/cli/set-fuzz.test.ts (the CLI's --set parser), each for FUZZ_SECONDS (default 120) instead
 * of a few hundred cases. Not part of `npm test`:
 *   npx vitest run --config bench/ingress/vitest.config.ts bench/ingress/fuzz.bench-run.ts
 * FUZZ_SEED replays a run. Each property prints how many cases it ran.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RunningIngress } from '../../src/ingress/server.js';
import { roundTripProperty, setParserProperty } from '../../test/cli/set-properties.js';
import {
  requestsProperty,
  signedEventsProperty,
  startFuzzIngress,
} from '../../test/ingress/fuzz-properties.js';

const SECONDS = Number(process.env.FUZZ_SECONDS ?? 120);
const seed = process.env.FUZZ_SEED === undefined ? Date.now() : Number(process.env.FUZZ_SEED);

let ingress: RunningIngress;
beforeAll(async () => {
  ingress = await startFuzzIngress();
});
afterAll(async () => {
  await ingress?.close();
});

/** Runs a property until the time is up; fails on the first counterexample. */
async function runFor<Ts extends [unknown, ...unknown[]]>(
  name: string,
  property: fc.IRawProperty<Ts>,
): Promise<void> {
  const details = await fc.check(property, {
    numRuns: Number.MAX_SAFE_INTEGER,
    interruptAfterTimeLimit: SECONDS * 1000,
    seed,
  });
  console.log(
    `${name}: ${details.numRuns} cases in ${SECONDS} s, seed ${seed}${details.failed ? ' FAILED' : ''}`,
  );
  if (details.failed) throw new Error(fc.defaultReportMessage(details) ?? 'failed');
  expect(details.numRuns).toBeGreaterThan(0);
}

it('ingress: arbitrary requests', () => runFor('ingress requests', requestsProperty(ingress)), 3_600_000);
it(
  'ingress: signed events however serialized',
  () => runFor('ingress signed events', signedEventsProperty(ingress)),
  3_600_000,
);
it('cli: --set parser', () => runFor('cli --set parser', setParserProperty()), 3_600_000);
it('cli: --set round trip', () => runFor('cli --set round trip', roundTripProperty()), 3_600_000);
