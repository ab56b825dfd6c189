/**
 * Signed fee approvals (issue 35, item 3): approver keys (Ed25519), the approvers file the workers
 * verify with (TCR_FEE_APPROVERS_FILE), the canonical statement an approver signs, signing (the order
 * API, `tcr campaign approve-fee --signing-key`) and the check the `verifyFeeApproval` activity runs.
 *
 * One file for every account a worker serves, not one per account: approvers are people of the
 * CSP's operation, not of a registry account; the statement names the account and the reference, so
 * a signature approves one account's campaign only; and one file is one place to add or revoke a
 * key, with no account that can be forgotten (an account without a file would be self-declared).
 * docs/going-live.md, "Who approved a fee".
 */
import {
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  randomBytes,
  sign,
  verify,
} from 'node:crypto';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { canonicalize } from 'json-canonicalize';
import { z } from 'zod';
import { secretFileProblem } from '../common/secret-file.js';
import {
  FEE_APPROVAL_CLOCK_SKEW_MS,
  FEE_APPROVAL_PURPOSE,
  FEE_APPROVAL_VALIDITY_MS,
  FEE_APPROVERS_FILE_VARIABLE,
  type FeeApprovalStatement,
  type SignedApprovalProof,
  type VerifyFeeApprovalInput,
  type VerifyFeeApprovalResult,
} from '../contracts/fee-approval.js';

export const APPROVER_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,199}$/;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

const PublicKeySchema = z
  .string()
  .regex(BASE64, 'expected a base64 Ed25519 public key (32 bytes)')
  .refine((s) => Buffer.from(s, 'base64').length === 32, 'expected a base64 Ed25519 public key (32 bytes)');

export const FeeApproversFileSchema = z.strictObject({
  version: z.literal(1),
  approvers: z.record(z.string(), PublicKeySchema).superRefine((approvers, ctx) => {
    const names = Object.keys(approvers);
    if (names.length === 0) ctx.addIssue({ code: 'custom', message: 'at least one approver' });
    for (const name of names)
      if (!APPROVER_NAME_PATTERN.test(name))
        ctx.addIssue({
          code: 'custom',
          path: [name],
          message: 'not an approver name (letters, digits, . _ @ -; at most 200)',
        });
  }),
});

/** The approvers' public keys by name. */
export type FeeApprovers = ReadonlyMap<string, KeyObject>;

export class FeeApproversError extends Error {
  override readonly name = 'FeeApproversError';
}

/** The Ed25519 public key of a raw 32-byte key in base64. */
export function publicKeyFromBase64(base64: string): KeyObject {
  const x = Buffer.from(base64, 'base64').toString('base64url');
  return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' });
}

/** The raw 32-byte public key, base64 (the approvers file's form). */
export function publicKeyBase64(key: KeyObject): string {
  const jwk = key.export({ format: 'jwk' });
  return Buffer.from(String(jwk.x), 'base64url').toString('base64');
}

/** Parses the approvers file's text; errors name the file and the field. */
export function parseFeeApprovers(text: string, where: string): FeeApprovers {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new FeeApproversError(`${where}: not JSON`);
  }
  const parsed = FeeApproversFileSchema.safeParse(json);
  if (!parsed.success)
    throw new FeeApproversError(
      `${where}: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}`,
    );
  return new Map(
    Object.entries(parsed.data.approvers).map(([name, key]) => [name, publicKeyFromBase64(key)]),
  );
}

/**
 * Reads the approvers file. It holds no secret, but whoever can write it can add an approver: refused
 * when group or others may write it.
 */
export function readFeeApprovers(path: string): FeeApprovers {
  const where = `${FEE_APPROVERS_FILE_VARIABLE} (${path})`;
  let text: string;
  try {
    const mode = statSync(path).mode;
    if ((mode & 0o022) !== 0)
      throw new FeeApproversError(
        `${where}: the file is writable by group or others (mode ${(mode & 0o777).toString(8).padStart(4, '0')}); whoever writes it adds an approver: run chmod 644 ${path}`,
      );
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if (error instanceof FeeApproversError) throw error;
    throw new FeeApproversError(
      `${where}: cannot read the file (${(error as { code?: string }).code ?? 'error'})`,
    );
  }
  return parseFeeApprovers(text, where);
}

/** The approvers file the environment names, or undefined when none is set. */
export function feeApproversFileFromEnv(env: Record<string, string | undefined> = process.env) {
  return env[FEE_APPROVERS_FILE_VARIABLE] || undefined;
}

/** The statement an approval signs (see FeeApprovalStatement), as the bytes that are signed. */
export function feeApprovalStatement(s: Omit<FeeApprovalStatement, 'purpose' | 'kind'>): Buffer {
  const statement: FeeApprovalStatement = {
    purpose: FEE_APPROVAL_PURPOSE,
    kind: 'campaign',
    account: s.account,
    reference: s.reference,
    approvedBy: s.approvedBy,
    maxMonthlyFee: s.maxMonthlyFee,
    issuedAt: s.issuedAt,
    nonce: s.nonce,
  };
  return Buffer.from(canonicalize(statement), 'utf8');
}

export interface SignFeeApprovalInput {
  account: string;
  reference: string;
  approvedBy: string;
  maxMonthlyFee?: number | undefined;
  /** The approver's private key. */
  key: KeyObject;
  /** Signing time (default now). */
  now?: Date;
}

/** Signs an approval of one campaign's fee: the `signedApproval` part of an approveFee request. */
export function signFeeApproval(input: SignFeeApprovalInput): SignedApprovalProof {
  const issuedAt = (input.now ?? new Date()).toISOString();
  const nonce = randomBytes(16).toString('base64url');
  const statement = feeApprovalStatement({
    account: input.account,
    reference: input.reference,
    approvedBy: input.approvedBy,
    maxMonthlyFee: input.maxMonthlyFee ?? null,
    issuedAt,
    nonce,
  });
  return { issuedAt, nonce, signature: sign(null, statement, input.key).toString('base64') };
}

/**
 * The check of the `verifyFeeApproval` activity: `approvers` undefined means no approvers file is
 * configured (unverified, allowed); otherwise the approval must be signed by the approver it names,
 * over this campaign's statement, within its validity.
 */
export function checkFeeApproval(
  input: VerifyFeeApprovalInput,
  approvers: FeeApprovers | undefined,
  nowMs: number = Date.now(),
): VerifyFeeApprovalResult {
  const proof = input.signedApproval;
  if (approvers === undefined)
    return {
      result: 'unverified',
      reason: `no approvers file (${FEE_APPROVERS_FILE_VARIABLE}) is configured: approvedBy is self-declared`,
    };
  const refused = (reason: string): VerifyFeeApprovalResult => ({ result: 'refused', reason });
  if (proof === undefined)
    return refused(
      `signedApproval: required (approvers are configured in ${FEE_APPROVERS_FILE_VARIABLE}): sign the approval (tcr campaign approve-fee --signing-key FILE)`,
    );
  const key = approvers.get(input.approvedBy);
  if (!key)
    return refused(`approvedBy: ${input.approvedBy} is not an approver in ${FEE_APPROVERS_FILE_VARIABLE}`);
  const issued = Date.parse(proof.issuedAt);
  if (!Number.isFinite(issued) || new Date(issued).toISOString() !== proof.issuedAt)
    return refused('signedApproval.issuedAt: expected an ISO 8601 UTC time (toISOString)');
  if (issued > nowMs + FEE_APPROVAL_CLOCK_SKEW_MS)
    return refused(`signedApproval.issuedAt: ${proof.issuedAt} is in the future`);
  if (nowMs - issued > FEE_APPROVAL_VALIDITY_MS)
    return refused(
      `signedApproval.issuedAt: signed at ${proof.issuedAt}, more than ${FEE_APPROVAL_VALIDITY_MS / 60_000} minutes ago: sign it again`,
    );
  if (Buffer.from(proof.nonce, 'base64url').length < 16)
    return refused('signedApproval.nonce: expected at least 16 random bytes, base64url');
  const statement = feeApprovalStatement({
    account: input.account,
    reference: input.reference,
    approvedBy: input.approvedBy,
    maxMonthlyFee: input.maxMonthlyFee ?? null,
    issuedAt: proof.issuedAt,
    nonce: proof.nonce,
  });
  let good = false;
  try {
    good = verify(null, statement, key, Buffer.from(proof.signature, 'base64'));
  } catch {
    good = false;
  }
  if (!good)
    return refused(
      `signedApproval.signature: not ${input.approvedBy}'s signature of this approval (campaign ${input.account}/${input.reference}, maxMonthlyFee ${input.maxMonthlyFee ?? 'none'})`,
    );
  return { result: 'verified', approver: input.approvedBy };
}

/** A new approver key pair: the private key as PKCS#8 PEM, the public key as the approvers file holds it. */
export function generateApproverKey(): { privateKeyPem: string; publicKey: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return {
    privateKeyPem: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
    publicKey: publicKeyBase64(publicKey),
  };
}

/** Writes a private key to a new file (mode 0600, exclusive create: an existing file is never replaced). */
export function writeApproverKeyFile(path: string, privateKeyPem: string): void {
  writeFileSync(path, privateKeyPem, { mode: 0o600, flag: 'wx' });
}

/** Reads an approver's private key (refused unless only its owner can read the file). */
export function readApproverKeyFile(path: string, label: string): KeyObject {
  const access = secretFileProblem(label, path);
  if (access) throw new FeeApproversError(access);
  let key: KeyObject;
  try {
    key = createPrivateKey(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new FeeApproversError(`${label} (${path}): not a private key (${(error as Error).message})`);
  }
  if (key.asymmetricKeyType !== 'ed25519')
    throw new FeeApproversError(`${label} (${path}): expected an Ed25519 key (tcr approvers keygen)`);
  return key;
}
