/**
 * What the entity loop answers an operation a throw interrupted (interruptedResult), as a plain
 * function: the outcome's kind, and what it says of each registry call the operation made.
 */
import { describe, expect, it } from 'vitest';
import { interruptedResult } from '../../src/workflows/entity/loop.js';

describe('interruptedResult', () => {
  it('a Temporal cancellation with a call in flight: cancelled, the call abandoned and unknown at the registry', () => {
    const result = interruptedResult(new Error('cancelled'), [{ site: 'update brand', billed: false }], true);
    expect(result.outcome).toBe('cancelled');
    expect(result.detail).toMatch(/^cancelled through Temporal while it ran: the operation did not complete/);
    expect(result.detail).toMatch(
      /"update brand" was in flight and abandoned: whether the registry applied it is unknown/,
    );
  });

  it('a billed call that finished before the cancellation was seen is said to be recorded; earlier calls are named', () => {
    const result = interruptedResult(
      undefined,
      [
        { site: 'read brand', billed: false, ended: 'answered' },
        { site: 'register brand', billed: true, ended: 'answered' },
      ],
      true,
    );
    expect(result.detail).toMatch(
      /"read brand" answered; the billed registry call "register brand" finished \(answered\) and is recorded$/,
    );
  });

  it('no call made: says none was in flight', () => {
    expect(interruptedResult(undefined, [], true).detail).toMatch(/no registry call was in flight$/);
  });

  it('an unexpected error: failed, naming the error', () => {
    const result = interruptedResult(
      new TypeError('x is undefined'),
      [{ site: 'appeal', billed: false, ended: 'failed' }],
      false,
    );
    expect(result.outcome).toBe('failed');
    expect(result.detail).toMatch(
      /^stopped by an unexpected error \(x is undefined\): the operation did not complete; the registry call "appeal" failed$/,
    );
  });
});
