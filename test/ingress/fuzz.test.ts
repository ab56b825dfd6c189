/**
 * Fuzzing the ingress's request handling (fast-check), bounded for `npm test`: FUZZ_RUNS requests
 * per property (default 150). bench/ingress/fuzz.bench-run.ts runs the same properties far longer.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningIngress } from '../../src/ingress/server.js';
import { signEvent } from '../../src/ingress/signature.js';
import {
  rawPost,
  requestsProperty,
  SECRET,
  signedEventsProperty,
  startFuzzIngress,
  WEBHOOK_URL,
} from './fuzz-properties.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 150);

describe('ingress under fuzzed requests', () => {
  let ingress: RunningIngress;
  beforeAll(async () => {
    ingress = await startFuzzIngress();
  });
  afterAll(async () => {
    await ingress?.close();
  });

  it('answers every request (200 only when signed; 400, 401, 413 or 415 otherwise; never 5xx)', async () => {
    await fc.assert(requestsProperty(ingress), { numRuns: RUNS });
  });

  it('acknowledges a signed event however it is serialized, and refuses it under another signature', async () => {
    await fc.assert(signedEventsProperty(ingress), { numRuns: RUNS });
  });

  it('is still serving after the run', async () => {
    const event = { eventType: 'AFTER_FUZZ', xmarker: Date.now() };
    const answer = await rawPost(
      ingress,
      [
        ['Content-Type', 'application/json'],
        ['X-Registry-Signature-256', signEvent(SECRET, WEBHOOK_URL, event)],
      ],
      Buffer.from(JSON.stringify(event)),
    );
    expect(answer.status).toBe(200);
  });
});
