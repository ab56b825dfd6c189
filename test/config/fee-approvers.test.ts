/**
 * The check behind verifyFeeApproval (src/config/fee-approvers.ts) and its activity, without a
 * server: each way an approval can be wrong is refused, naming the field; no approvers file leaves
 * approvals self-declared; a file set but broken refuses every approval (fail closed); the file's
 * format errors name the field.
 */
import { createPrivateKey } from 'node:crypto';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createFeeApprovalActivities } from '../../src/activities/fee-approval.js';
import {
  checkFeeApproval,
  generateApproverKey,
  parseFeeApprovers,
  readFeeApprovers,
  signFeeApproval,
} from '../../src/config/fee-approvers.js';
import { tempDir } from '../support/temp-dir.js';

const alice = generateApproverKey();
const key = createPrivateKey(alice.privateKeyPem);
const approvers = parseFeeApprovers(
  JSON.stringify({ version: 1, approvers: { alice: alice.publicKey } }),
  'f',
);
const campaign = { account: 'prod', reference: 'c1', approvedBy: 'alice', maxMonthlyFee: 10 };
const now = Date.parse('2026-11-28T12:00:00.000Z');
const signed = (over: Partial<typeof campaign> = {}, at = now) =>
  signFeeApproval({ ...campaign, ...over, key, now: new Date(at) });

describe('checkFeeApproval', () => {
  it('verifies a good signature; no approvers file: unverified, allowed', () => {
    expect(checkFeeApproval({ ...campaign, signedApproval: signed() }, approvers, now)).toEqual({
      result: 'verified',
      approver: 'alice',
    });
    expect(checkFeeApproval(campaign, undefined, now).result).toBe('unverified');
  });

  it.each([
    ['unsigned', () => ({ ...campaign }), /signedApproval: required/],
    ['another account', () => ({ ...campaign, signedApproval: signed({ account: 'qa' }) }), /signature/],
    ['another reference', () => ({ ...campaign, signedApproval: signed({ reference: 'c2' }) }), /signature/],
    [
      'a raised maxMonthlyFee',
      () => ({ ...campaign, maxMonthlyFee: 99, signedApproval: signed() }),
      /signature/,
    ],
    [
      'no maxMonthlyFee',
      () => ({ ...campaign, maxMonthlyFee: undefined, signedApproval: signed() }),
      /signature/,
    ],
    [
      'another approvedBy',
      () => ({ ...campaign, approvedBy: 'bob', signedApproval: signed() }),
      /bob is not an approver/,
    ],
    [
      'expired',
      () => ({ ...campaign, signedApproval: signed({}, now - 16 * 60_000) }),
      /more than 15 minutes/,
    ],
    [
      'from the future',
      () => ({ ...campaign, signedApproval: signed({}, now + 5 * 60_000) }),
      /in the future/,
    ],
    [
      'a changed issuedAt',
      () => ({ ...campaign, signedApproval: { ...signed(), issuedAt: new Date(now - 1000).toISOString() } }),
      /signature/,
    ],
    ['a short nonce', () => ({ ...campaign, signedApproval: { ...signed(), nonce: 'abc' } }), /nonce/],
    [
      'a garbage signature',
      () => ({ ...campaign, signedApproval: { ...signed(), signature: '!!' } }),
      /signature/,
    ],
  ])('refuses %s', (_what, input, reason) => {
    const answer = checkFeeApproval(input(), approvers, now);
    expect(answer.result).toBe('refused');
    expect(answer.result === 'refused' && answer.reason).toMatch(reason);
  });
});

describe('the approvers file', () => {
  it.each([
    [{ version: 2, approvers: { alice: alice.publicKey } }, /version/],
    [{ version: 1, approvers: {} }, /approvers: at least one approver/],
    [{ version: 1, approvers: { alice: 'short' } }, /approvers\.alice: expected a base64 Ed25519/],
    [{ version: 1, approvers: { 'a b': alice.publicKey } }, /approvers\.a b: not an approver name/],
    [{ version: 1, approvers: { alice: alice.publicKey }, extra: 1 }, /extra/],
  ])('refuses %j naming the field', (doc, reason) => {
    expect(() => parseFeeApprovers(JSON.stringify(doc), 'TCR_FEE_APPROVERS_FILE (x)')).toThrow(reason);
  });

  it('refuses a group- or world-writable file; the activity then refuses every approval (fail closed)', async () => {
    const file = join(tempDir('fee-approvers-'), 'approvers.json');
    writeFileSync(file, JSON.stringify({ version: 1, approvers: { alice: alice.publicKey } }));
    chmodSync(file, 0o664);
    expect(() => readFeeApprovers(file)).toThrow(/TCR_FEE_APPROVERS_FILE .*writable by group or others/);
    const { verifyFeeApproval } = createFeeApprovalActivities({ approversFile: file, now: () => now });
    expect(await verifyFeeApproval({ ...campaign, signedApproval: signed() })).toMatchObject({
      result: 'refused',
      reason: expect.stringMatching(/approvers file cannot be used/),
    });
    chmodSync(file, 0o644);
    expect(await verifyFeeApproval({ ...campaign, signedApproval: signed() })).toMatchObject({
      result: 'verified',
    });
  });
});
