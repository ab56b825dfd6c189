/**
 * Fault patterns run in linear time (V8's linear engine, src/simulator/faults.ts): a pattern that
 * backtracks catastrophically on the usual engine cannot hang the simulator, and what the linear
 * engine cannot run is refused when the fault is armed, with a 400 naming pathPattern.
 */
import { afterEach, expect, test } from 'vitest';
import { SimulatorControlError } from '../../src/simulator/control-client.js';
import { compilePathPattern } from '../../src/simulator/faults.js';
import { type Api, startApi } from './helpers.js';

const apis: Api[] = [];
afterEach(async () => {
  for (const api of apis.splice(0)) await api.close();
});
async function setup(): Promise<Api> {
  const api = await startApi();
  apis.push(api);
  return api;
}

/** `(a+)+$` against `a` x n then a character that fails it: 2^n steps for a backtracking engine. */
const CATASTROPHIC = '(a+)+$';

test('a catastrophically backtracking pattern is matched in linear time against a long path', async () => {
  // On the backtracking engine the request below would block the simulator, and this test's process
  // with it, for 2^4000 steps: check first that the pattern is compiled for the linear engine, so a
  // regression fails here rather than hanging.
  expect(compilePathPattern(CATASTROPHIC).flags).toContain('l');
  const api = await setup();
  await api.control.addFault({ kind: 'rate-limit', method: 'GET', pathPattern: CATASTROPHIC, count: 1 });
  const miss = await api.call('GET', `/enum/${'a'.repeat(4_000)}!`);
  expect(miss.status).not.toBe(429); // answered, and the pattern did not match
  expect(await api.control.faults()).toHaveLength(1);
  const hit = await api.call('GET', `/enum/${'a'.repeat(4_000)}`);
  expect(hit.status).toBe(429); // the same pattern matches where it should
  expect(await api.control.faults()).toEqual([]);
});

test('the documented patterns, and those tests and drills arm, are accepted and match as before', async () => {
  const cases: [string, string, boolean][] = [
    ['^/v2/campaignBuilder$', '/v2/campaignBuilder', true],
    ['^/v2/campaignBuilder$', '/v2/campaignBuilder/C1', false],
    ['^/v2/brand/[^/]+$', '/v2/brand/B123', true],
    ['^/v2/brand/[^/]+$', '/v2/brand/B123/evidence', false],
    ['^/v2/(brand\\/nonBlocking|campaignBuilder)$', '/v2/brand/nonBlocking', true],
    ['^/v2/(brand\\/nonBlocking|campaignBuilder)$', '/v2/brandX', false],
    ['^/v2/', '/v2/enum/mno', true],
    ['mno', '/v2/enum/mno', true],
  ];
  for (const [pattern, path, matches] of cases) {
    expect(compilePathPattern(pattern).test(path), `${pattern} on ${path}`).toBe(matches);
    expect(new RegExp(pattern).test(path), `${pattern} on ${path} (usual engine)`).toBe(matches);
  }
  const api = await setup();
  for (const [pattern] of cases)
    await api.control.addFault({ kind: 'latency', pathPattern: pattern, latencyMs: 0 });
});

test('a pattern the linear engine cannot run is refused at arming, naming pathPattern', async () => {
  const api = await setup();
  // Not lookbehinds: Node 24's linear engine runs them (in linear time), Node 20's refuses them.
  for (const pattern of ['(a)\\1', '(?=a)b', '(?!a)b', '[a-z]{1,500}x', '(']) {
    const refused = await api.control
      .addFault({ kind: 'latency', pathPattern: pattern, latencyMs: 0 })
      .catch((error: unknown) => error);
    expect(refused, pattern).toBeInstanceOf(SimulatorControlError);
    expect((refused as SimulatorControlError).status, pattern).toBe(400);
    const [error] = (refused as SimulatorControlError).body as { description: string; fields: string[] }[];
    expect(error?.fields, pattern).toEqual(['pathPattern']);
    expect(error?.description, pattern).toMatch(
      pattern === '('
        ? /^pathPattern: not a valid regular expression/
        : /^pathPattern: not runnable in linear time/,
    );
  }
  expect(await api.control.faults()).toEqual([]);
});
