/**
 * The approveFee path's check of the approver's signature (patch `fee-approval-signed`, issue 35):
 * the verifyFeeApproval activity (src/activities/fee-approval.ts, on the workflow's task queue) checks
 * the signature against the workers' approvers file and the statement against this campaign (its
 * account and reference, never the caller's word); a nonce this workflow took before is refused here.
 * An activity that cannot answer refuses the approval (fail closed): nothing is billed, the campaign
 * stays in awaiting-fee-approval, and the operator can approve again.
 */
import { isCancellation, proxyActivities } from '@temporalio/workflow';
import type { ApproveFeeRequest } from '../../contracts/campaign-operations.js';
import type { FeeApprovalActivities } from '../../contracts/fee-approval.js';
import { priorityKeys } from '../../contracts/priorities.js';
import type { CampaignState } from './state.js';

/** Nonces of signed approvals kept (a campaign takes one approval, a resubmitted one a few more). */
const NONCES_KEPT = 16;

export type FeeApprovalCheck = { ok: true; verified: boolean; note: string } | { ok: false; reason: string };

export async function checkFeeApproval(
  state: CampaignState,
  account: string,
  request: ApproveFeeRequest,
): Promise<FeeApprovalCheck> {
  const nonce = request.signedApproval?.nonce;
  if (nonce !== undefined && state.feeApprovalNonces?.includes(nonce))
    return {
      ok: false,
      reason: 'signedApproval.nonce: this signed approval was used before: sign a new one',
    };
  const { verifyFeeApproval } = proxyActivities<FeeApprovalActivities>({
    startToCloseTimeout: '30 seconds',
    scheduleToCloseTimeout: '2 minutes',
    retry: { initialInterval: '1 second', maximumAttempts: 5 },
    priority: { priorityKey: priorityKeys.operator },
  });
  let answer: Awaited<ReturnType<FeeApprovalActivities['verifyFeeApproval']>>;
  try {
    answer = await verifyFeeApproval({
      account,
      reference: state.status.reference,
      approvedBy: request.approvedBy,
      ...(request.maxMonthlyFee !== undefined ? { maxMonthlyFee: request.maxMonthlyFee } : {}),
      ...(request.signedApproval ? { signedApproval: request.signedApproval } : {}),
    });
  } catch (error) {
    // A Temporal cancellation goes on to the entity loop (it answers the interrupted operation).
    if (isCancellation(error)) throw error;
    return { ok: false, reason: `the approval could not be verified: ${(error as Error).message}` };
  }
  if (answer.result === 'refused') return { ok: false, reason: answer.reason };
  if (answer.result === 'unverified') return { ok: true, verified: false, note: 'self-declared' };
  if (nonce !== undefined) {
    state.feeApprovalNonces ??= [];
    state.feeApprovalNonces.push(nonce);
    while (state.feeApprovalNonces.length > NONCES_KEPT) state.feeApprovalNonces.shift();
  }
  return { ok: true, verified: true, note: 'signature verified' };
}
