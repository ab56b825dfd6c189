/**
 * The `verifyFeeApproval` activity (issue 35, item 3): the campaign workflow asks it, before the
 * billed creation an approveFee runs, whether the approval is signed by the approver it names, over
 * this campaign's statement, in time (src/config/fee-approvers.ts). The approvers file
 * (TCR_FEE_APPROVERS_FILE) is read at each check, so adding or revoking a key needs no restart; a
 * file set but unreadable or invalid refuses every approval (fail closed). Registered on the workflow
 * task queue's worker (src/workers/create-workers.ts): workflow code has no crypto.
 */
import { messageOf } from '../common/error-message.js';
import { checkFeeApproval, feeApproversFileFromEnv, readFeeApprovers } from '../config/fee-approvers.js';
import type { FeeApprovalActivities } from '../contracts/fee-approval.js';

export function createFeeApprovalActivities(
  opts: {
    /** The approvers file; default TCR_FEE_APPROVERS_FILE; none: approvals stay self-declared. */
    approversFile?: string | undefined;
    now?: () => number;
  } = {},
): FeeApprovalActivities {
  const file = 'approversFile' in opts ? opts.approversFile : feeApproversFileFromEnv();
  return {
    async verifyFeeApproval(input) {
      const now = opts.now?.() ?? Date.now();
      if (file === undefined) return checkFeeApproval(input, undefined, now);
      try {
        return checkFeeApproval(input, readFeeApprovers(file), now);
      } catch (error) {
        return { result: 'refused', reason: `the approvers file cannot be used: ${messageOf(error)}` };
      }
    },
  };
}
