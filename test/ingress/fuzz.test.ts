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

  it('answers 400 to JSON nested deeper than the canonicalizer can recurse, at the default body limit', async () => {
    const deep = await startFuzzIngress('default');
    try {
      // 30,000 levels in 60 KB: JSON.parse takes it, the canonicalizer's recursion overflows the stack.
      const body = Buffer.from(`${'['.repeat(30_000)}${']'.repeat(30_000)}`);
      const digest = Buffer.alloc(32, 7).toString('base64');
      const headers: [string, string][] = [
        ['Content-Type', 'application/json'],
        ['X-Registry-Signature-256', digest],
      ];
      expect((await rawPost(deep, headers, body)).status).toBe(400);
      const event = { eventType: 'AFTER_DEEP', xmarker: 1 };
      const signed: [string, string][] = [
        ['Content-Type', 'application/json'],
        ['X-Registry-Signature-256', signEvent(SECRET, WEBHOOK_URL, event)],
      ];
      expect((await rawPost(deep, signed, Buffer.from(JSON.stringify(event)))).status).toBe(200);
    } finally {
      await deep.close();
    }
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
