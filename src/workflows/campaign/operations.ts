/**
 * The campaign's operator operations, run by the loop in order: approve the fee, resubmit, share with
 * another partner, cancel, acknowledge. Each answers with an OperationResult; one that a Temporal
 * cancellation interrupts is answered by the entity loop (../entity/loop.ts, interruptedResult).
 */

import { patched } from '@temporalio/workflow';
import type { CampaignContent, CampaignPhase } from '../../contracts/campaign.js';
import type {
  AcknowledgeRequest,
  ApproveFeeRequest,
  CampaignCancelRequest,
  ConfirmDcaCompleteRequest,
  ResubmitRequest,
  ShareWithRequest,
  UpdateCampaignRequest,
} from '../../contracts/campaign-operations.js';
import type { CampaignUpdate } from '../../registry/schemas.js';
import type { AuditCause } from '../entity/audit.js';
import type { OperationResult } from '../entity/loop.js';
import { acceptedAfterFault, acceptedRequest, type QueuedOperation } from '../entity/operations.js';
import { type RegistryFailure, requestRefusalClasses } from '../entity/registry-failure.js';
import { PATCHES } from '../patches.js';
import type { CampaignApply } from './apply.js';
import type { CampaignContext } from './context.js';
import { movesDeadline } from './derive.js';
import { checkFeeApproval } from './fee-approval.js';
import type { CampaignOperation } from './phases.js';
import type { CampaignSteps } from './steps.js';

export function campaignOperations(ctx: CampaignContext, apply: CampaignApply, steps: CampaignSteps) {
  const { writes, account, state, status, table, queue, dedupe, books, guarded, audit, final } = ctx;
  const { decisionDeadlineMs, clearAllActions, setPhase, spec } = ctx;
  const { applySnapshot } = apply;
  const { create, share, advance, readAndApplySharing, turnRenewalOff } = steps;

  const ids = (): Record<string, string> | undefined =>
    status.campaignId ? { campaignId: status.campaignId } : undefined;

  const failedBy = (failure: RegistryFailure): OperationResult => ({
    outcome: requestRefusalClasses.includes(failure.class) ? 'refused' : 'failed',
    detail: failure.message,
    ...(failure.errors.length > 0 ? { registryErrors: failure.errors } : {}),
  });

  /** The outcome of running the pre-creation steps on the operator's behalf. */
  const preCreationOutcome = (): OperationResult => {
    const campaignIds = ids();
    if (status.phase === 'refused')
      return {
        outcome: 'refused',
        detail: [status.refusal?.reason, ...(status.refusal?.details ?? [])].filter(Boolean).join('; '),
      };
    if (guarded.faulted && state.faults.last)
      return {
        ...acceptedAfterFault('the changed order is recorded', state.faults.last.failure),
        ...(campaignIds ? { ids: campaignIds } : {}),
      };
    return { outcome: 'done', ...(campaignIds ? { ids: campaignIds } : {}) };
  };

  const cancelPending = () => queue.pendingKinds().includes('cancel');

  const cancel = (reason: string, cause: AuditCause) => {
    status.cancelReason = reason;
    clearAllActions();
    setPhase('cancelled', cause, reason);
    queue.drain('cancelled', 'cancelled', 'the campaign was cancelled');
  };

  const phaseNow = (): CampaignPhase => status.phase;

  /**
   * A created campaign's changes at the registry (PUT /campaign/{id}): the record it answers is
   * applied (reads decide). Undefined when the registry took them, else the failed outcome.
   */
  const putChanges = async (changes: CampaignUpdate): Promise<OperationResult | undefined> => {
    const campaignId = status.campaignId!;
    const updated = await guarded.call('update campaign', () =>
      writes.updateCampaign({ account, campaignId, patch: changes }),
    );
    if (!updated.ok) {
      audit('operator', 'registry-refused', `update: ${updated.failure.message}`);
      return { ...failedBy(updated.failure), ids: { campaignId } };
    }
    audit('operator', 'campaign-updated', Object.keys(changes).join(', '));
    applySnapshot(updated.value, 'operator');
    return undefined;
  };

  /**
   * Cancel of a created campaign (the spec has no delete): renewal off at the registry, then watched
   * until the registry reports it EXPIRED. The intent is the phase: a fault is retried by the loop.
   */
  const windDown = async (reason: string): Promise<OperationResult> => {
    const campaignId = status.campaignId!;
    status.cancelReason = reason;
    for (const key of ['fee-approval', 'share', 'partner', 'refused', 'decision-overdue', 'dca-unconfirmed'])
      books.clearAction(key);
    setPhase('winding-down', 'operator', reason);
    const call = await turnRenewalOff('operator');
    if (call && !call.ok)
      return {
        ...acceptedAfterFault('the cancel is recorded (renewal to be turned off)', call.failure),
        ids: { campaignId },
      };
    if (!status.renewalOff)
      return {
        outcome: 'accepted',
        detail: 'the registry still reports autoRenewal true: needs-action renewal-on',
        ids: { campaignId },
      };
    const until = status.nextRenewalOrExpirationDate;
    return {
      outcome: 'done',
      detail: `renewal off at the registry; watched until it expires${until ? ` (${until})` : ''}`,
      ids: { campaignId },
    };
  };

  /** The operator saw in the registry portal that the DCA accepted: read the share, then run. */
  const confirmDcaComplete = async (request: ConfirmDcaCompleteRequest): Promise<OperationResult> => {
    const campaignIds = ids();
    const withIds = campaignIds ? { ids: campaignIds } : {};
    const first = status.dcaConfirmation;
    if (first)
      return {
        outcome: 'done',
        detail: `already confirmed by ${first.by} at ${first.at}${first.note ? `: ${first.note}` : ''}`,
        ...withIds,
      };
    if (status.dcaComplete && status.phase !== 'awaiting-dca')
      return {
        outcome: 'done',
        detail: `the campaign is ${status.phase}: a DCA's acceptance was already known`,
        ...withIds,
      };
    if (status.phase !== 'awaiting-dca')
      return { outcome: 'refused', detail: `confirmDcaComplete is not possible in phase ${status.phase}` };
    // Signals wake, reads decide; the operator's word is a signal too: the share must still be ACCEPTED.
    const read = await readAndApplySharing('operator');
    if (!read.ok)
      return state.faults.last
        ? { ...failedBy(state.faults.last.failure), outcome: 'failed', ...withIds }
        : { outcome: 'failed', detail: 'the share could not be read', ...withIds };
    const after = phaseNow(); // the read may have moved it
    if (after === 'running')
      return { outcome: 'done', detail: 'the registry shows the campaign accepted by a DCA', ...withIds };
    if (after !== 'awaiting-dca' || read.record?.sharingStatus !== 'ACCEPTED')
      return {
        outcome: 'refused',
        detail: `the registry's share is ${read.record?.sharingStatus ?? 'missing'}, no longer ACCEPTED: nothing confirmed (phase ${after})`,
        ...withIds,
      };
    const at = new Date(Date.now()).toISOString();
    status.dcaConfirmation = {
      by: request.confirmedBy,
      at,
      ...(request.note !== undefined ? { note: request.note } : {}),
    };
    status.dcaComplete = true;
    delete state.decisionDeadline;
    books.clearAction('dca-unconfirmed');
    books.clearAction('decision-overdue');
    const note = request.note ? `: ${request.note}` : '';
    audit('operator', 'dca-confirmed', `by ${request.confirmedBy} (registry portal)${note}`);
    setPhase('running', 'operator', `DCA acceptance confirmed by ${request.confirmedBy}`);
    return { outcome: 'done', ...withIds };
  };

  const execute = async (op: QueuedOperation<CampaignOperation>): Promise<OperationResult> => {
    // Idempotent: a second confirmation answers the first (checked before the phase's table).
    if (op.kind === 'confirmDcaComplete')
      return confirmDcaComplete(acceptedRequest<ConfirmDcaCompleteRequest>(op));
    if (!table[status.phase].allows.includes(op.kind))
      return { outcome: 'refused', detail: `${op.kind} is not possible in phase ${status.phase}` };
    switch (op.kind) {
      case 'approveFee': {
        const request = acceptedRequest<ApproveFeeRequest>(op);
        const { approvedBy } = request;
        let how = '';
        if (patched(PATCHES.feeApprovalSigned)) {
          const check = await checkFeeApproval(state, account, request);
          if (!check.ok) {
            // Nothing billed: the campaign stays in awaiting-fee-approval with its needs-action.
            audit('operator', 'fee-approval-refused', `by ${approvedBy}: ${check.reason}`);
            return { outcome: 'refused', detail: check.reason };
          }
          status.feeApprovalVerified = check.verified;
          how = ` (${check.note})`;
        }
        state.feeApproved = true;
        status.feeApprovedBy = approvedBy;
        books.clearAction('fee-approval');
        audit(
          'operator',
          'fee-approved',
          `by ${approvedBy}${how}; expected monthly fee ${status.expectedMonthlyFee ?? 'unknown'}`,
        );
        setPhase('creating', 'operator');
        const call = await create('operator');
        if (call.ok) return { outcome: 'done', ids: { campaignId: call.value.campaignId } };
        if (requestRefusalClasses.includes(call.failure.class)) return failedBy(call.failure);
        return acceptedAfterFault('the fee approval is recorded', call.failure);
      }
      case 'resubmit': {
        const { changes } = acceptedRequest<ResubmitRequest>(op);
        if (!status.created) {
          state.content = { ...state.content!, ...changes } as CampaignContent;
          if (changes.mnoIDs !== undefined) state.mnoIDs = changes.mnoIDs;
          audit('operator', 'order-changed', Object.keys(changes).join(', '));
          books.clearAction('refused');
          books.clearAction('fee-approval');
          delete status.refusal;
          // An approval was given for the order as it was: the changed one (its use case, its fee) is
          // approved again before the billed creation. Behind its patch: histories recorded before it
          // created the changed order on the first approval.
          if (status.requireFeeApproval && state.feeApproved && patched(PATCHES.resubmitNeedsApproval)) {
            state.feeApproved = false;
            audit(
              'operator',
              'fee-approval-withdrawn',
              `by ${status.feeApprovedBy ?? 'unknown'}: the order changed`,
            );
            delete status.feeApprovedBy;
            delete status.feeApprovalVerified;
          }
          // The changed order is checked again from the start (the brand, then the checks).
          setPhase('awaiting-brand', 'operator');
          await advance('operator', cancelPending);
          return preCreationOutcome();
        }
        const campaignId = status.campaignId!;
        const refused = await putChanges(changes as CampaignUpdate);
        if (refused) return refused;
        if (final()) return { outcome: 'done', ids: { campaignId } };
        const shared = await share(status.upstreamCnpId, 'operator', true);
        return shared.kind === 'done'
          ? { outcome: 'done', ids: { campaignId } }
          : { ...failedBy(shared.failure), ids: { campaignId } };
      }
      case 'update': {
        const { changes, answers } = acceptedRequest<UpdateCampaignRequest>(op);
        const campaignId = status.campaignId!;
        const refused = await putChanges(changes as CampaignUpdate);
        if (refused) return refused;
        if (answers !== undefined && books.hasAction(answers)) {
          books.clearAction(answers);
          audit('operator', 'answered', `${answers} by update ${Object.keys(changes).join(', ')}`);
        }
        return { outcome: 'done', ids: { campaignId } };
      }
      case 'shareWith': {
        const { upstreamCnpId } = acceptedRequest<ShareWithRequest>(op);
        if (!status.created) {
          // Refused for an unknown partner: the order's partner changes, and it is checked from the start.
          audit('operator', 'partner', 'changed before creation', status.upstreamCnpId, upstreamCnpId);
          status.upstreamCnpId = upstreamCnpId;
          books.clearAction('partner');
          books.clearAction('refused');
          delete status.refusal;
          setPhase('awaiting-brand', 'operator');
          await advance('operator', cancelPending);
          return preCreationOutcome();
        }
        const shared = await share(upstreamCnpId, 'operator', false);
        return shared.kind === 'done'
          ? { outcome: 'done', ...(ids() ? { ids: ids()! } : {}) }
          : { ...failedBy(shared.failure), ...(ids() ? { ids: ids()! } : {}) };
      }
      case 'cancel': {
        const { reason } = acceptedRequest<CampaignCancelRequest>(op);
        if (status.created && patched(PATCHES.campaignWindDown)) return windDown(reason);
        cancel(reason, 'operator');
        const campaignIds = ids();
        return {
          outcome: 'done',
          ...(status.created ? { detail: 'the campaign stays at the registry (created and billed)' } : {}),
          ...(campaignIds ? { ids: campaignIds } : {}),
        };
      }
      case 'acknowledge': {
        const { key } = acceptedRequest<AcknowledgeRequest>(op);
        const had = books.hasAction(key);
        books.clearAction(key);
        if (spec()) {
          // The deliveries that raised it are forgotten: the same event later is a new one.
          for (const deliveryId of state.raisedBy?.[key] ?? []) dedupe.forget(deliveryId);
          if (state.raisedBy) delete state.raisedBy[key];
          // An overdue decision acknowledged: raised again a full period later, not at once.
          if (had && movesDeadline(key) && state.decisionDeadline !== undefined)
            state.decisionDeadline = Date.now() + decisionDeadlineMs;
        }
        audit('operator', 'acknowledged', key);
        return { outcome: 'done', ...(had ? {} : { detail: `${key} was already cleared` }) };
      }
    }
  };

  return { cancelPending, cancel, execute };
}

export type CampaignOperations = ReturnType<typeof campaignOperations>;
