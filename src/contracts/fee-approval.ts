/**
 * A signed fee approval (issue 35, item 3): what an approver signs, what the campaign workflow's
 * `verifyFeeApproval` activity checks, and what it answers. Type-only and constants: the workflow
 * imports this module; the signing and the check (node:crypto, the approvers file) are
 * src/config/fee-approvers.ts. docs/going-live.md, "Who approved a fee".
 */

/** The environment variable naming the approvers file the workers verify signed approvals with. */
export const FEE_APPROVERS_FILE_VARIABLE = 'TCR_FEE_APPROVERS_FILE';

/** What the statement says it is (a signature over anything else is not an approval). */
export const FEE_APPROVAL_PURPOSE = 'tcr-campaign-fee-approval';

/** A signed approval is taken for this long after its issuedAt (checked by the worker's clock). */
export const FEE_APPROVAL_VALIDITY_MS = 15 * 60_000;
/** An issuedAt at most this far in the signer's future (clock skew between hosts). */
export const FEE_APPROVAL_CLOCK_SKEW_MS = 2 * 60_000;

/** The signature part of an approveFee request: beside approvedBy and maxMonthlyFee. */
export interface SignedApprovalProof {
  /** When the approver signed (ISO 8601, UTC). */
  issuedAt: string;
  /** Random, at least 16 bytes, base64url: the workflow refuses a nonce it has seen. */
  nonce: string;
  /** Ed25519 signature over the canonical statement (RFC 8785), base64. */
  signature: string;
}

/**
 * The statement an approver signs, as canonical JSON (RFC 8785): which campaign (kind, account,
 * reference: the workflow the approval is for), who, the maximum fee approved (null: none given),
 * when, and a nonce.
 */
export interface FeeApprovalStatement {
  purpose: typeof FEE_APPROVAL_PURPOSE;
  kind: 'campaign';
  account: string;
  reference: string;
  approvedBy: string;
  maxMonthlyFee: number | null;
  issuedAt: string;
  nonce: string;
}

export interface VerifyFeeApprovalInput {
  /** The workflow's own account and reference (never the caller's word). */
  account: string;
  reference: string;
  approvedBy: string;
  maxMonthlyFee?: number | undefined;
  signedApproval?: SignedApprovalProof | undefined;
}

/**
 * `verified`: the signature is an approver's over this campaign's statement, in time. `unverified`:
 * no approvers file is configured (the approval is self-declared, as before). `refused`: approvers
 * are configured and the approval is unsigned, badly signed, for another campaign, or expired.
 */
export type VerifyFeeApprovalResult =
  | { result: 'verified'; approver: string }
  | { result: 'unverified'; reason: string }
  | { result: 'refused'; reason: string };

export interface FeeApprovalActivities {
  verifyFeeApproval(input: VerifyFeeApprovalInput): Promise<VerifyFeeApprovalResult>;
}
