import { expect, test } from 'vitest';
import { parseSimulatorArgs } from '../../src/simulator/cli.js';
import { DEFAULT_ACCOUNT } from '../../src/simulator/index.js';

test('defaults: port 8480, default account, spec rate limits', () => {
  expect(parseSimulatorArgs([])).toEqual({
    host: '127.0.0.1',
    port: 8480,
    stateFile: undefined,
    timeScale: 1,
    accounts: [DEFAULT_ACCOUNT],
    rateLimits: { getsPerSecond: 20, writesPer10Seconds: 20 },
  });
});

test('flags: accounts, state file, time scale, limits off', () => {
  const options = parseSimulatorArgs([
    '--port',
    '0',
    '--account',
    'A:k:s:with:colons',
    '--account',
    'B:k2:s2',
    '--state-file',
    'x.json',
    '--time-scale',
    '3600',
    '--no-rate-limits',
  ]);
  expect(options).toMatchObject({
    port: 0,
    stateFile: 'x.json',
    timeScale: 3600,
    rateLimits: false,
    accounts: [
      { cspId: 'A', apiKey: 'k', apiSecret: 's:with:colons' },
      { cspId: 'B', apiKey: 'k2', apiSecret: 's2' },
    ],
  });
  expect(parseSimulatorArgs(['--help'])).toBe('help');
  expect(() => parseSimulatorArgs(['--account', 'nocolon'])).toThrow(/cspId:apiKey:apiSecret/);
  expect(() => parseSimulatorArgs(['--bogus'])).toThrow();
});
