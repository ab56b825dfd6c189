/** `tcr import` and `tcr sweep` refuse a bad command line before they connect to anything (exit 2), naming the flag. */
import { describe, expect, it } from 'vitest';
import { tcr } from './support.js';

describe('tcr import and tcr sweep: command lines', () => {
  it.each([
    [['import'], '--account is required'],
    [['import', '--account', 'a b'], "--account: not an account name: 'a b'"],
    [['import', '--account', 'acme', '--brands', '--campaigns'], 'give --brands or --campaigns, not both'],
    [
      ['import', '--account', 'acme', '--read-share', '0.9'],
      "--read-share must be above 0 and at most 0.5, got '0.9'",
    ],
    [
      ['import', '--account', 'acme', '--read-share', 'x'],
      "--read-share must be above 0 and at most 0.5, got 'x'",
    ],
    [
      ['import', '--account', 'acme', '--records-per-page', '0'],
      "--records-per-page must be a positive integer, got '0'",
    ],
    [
      ['import', '--account', 'acme', '--records-per-page', '5000'],
      '--records-per-page must be at most 1000',
    ],
    [['sweep'], '--account is required'],
    [['sweep', '--account', 'acme', '--now', '--pause'], 'give one of --now, --pause, --resume'],
  ])('tcr %j: %s', async (argv, message) => {
    const run = await tcr(argv);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(message);
  });
});
