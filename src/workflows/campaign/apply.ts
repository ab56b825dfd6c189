/**
 * Applying what the registry says to the campaign's state: its record, its creation, its sharing,
 * the brand's readiness, a refusal, an MNO suspension. No registry call here except the readiness
 * read the steps share; decisions are ./derive.ts.
 */

import type { ShareAttempt } from '../../contracts/campaign.js';
import type {
  BrandReadiness,
  CampaignCreatedResult,
  CampaignSnapshot,
  SharingSnapshot,
} from '../../contracts/campaign-activity-types.js';
import { mnoViews } from '../campaign-mno.js';
import type { AuditCause } from '../entity/audit.js';
import type { CallResult } from '../entity/registry-call.js';
import type { CampaignContext } from './context.js';
import { deriveSharing, deriveSnapshot, suspensionAction } from './derive.js';

const SHARE_HISTORY_LIMIT = 20;
const SUSPENSIONS_LIMIT = 50;

type Failed = Extract<CallResult<unknown>, { ok: false }>;

export function campaignApply(ctx: CampaignContext) {
  const { input, decisionDeadlineMs, reads, account, state, status, books, audit } = ctx;
  const { applyAction, clearAllActions, setPhase, read } = ctx;

  const refuse = (
    cause: AuditCause,
    reason: string,
    details: string[],
    registryErrors?: Failed['failure']['errors'],
  ) => {
    status.refusal = { reason, details };
    const text = [reason, ...details].join('; ');
    audit(cause, 'refused', text);
    books.setAction('refused', 'resubmit with changes, or cancel', text, registryErrors);
    setPhase('refused', cause, reason);
  };

  /**
   * Records an MNO's suspension once, with needs-action `suspended-{mnoId}`. `again`: a suspension
   * event after the operator acknowledged an earlier one of this MNO is a new suspension (a read's
   * SUSPENDED status, which stays, is not). Returns whether it was recorded.
   */
  const recordSuspension = (
    mnoId: string,
    cause: AuditCause,
    mnoName?: string,
    description?: string,
    again = false,
  ): boolean => {
    const known = status.suspensions.some((s) => s.mnoId === mnoId);
    if (known && !(again && !books.hasAction(`suspended-${mnoId}`))) return false;
    const name = mnoName ?? status.mno.find((m) => m.mnoId === mnoId)?.mno;
    status.suspensions.push({
      mnoId,
      at: new Date(Date.now()).toISOString(),
      ...(name !== undefined ? { mnoName: name } : {}),
      ...(description !== undefined ? { description } : {}),
    });
    while (status.suspensions.length > SUSPENSIONS_LIMIT) status.suspensions.shift();
    audit(cause, 'mno-suspended', `${name ?? 'MNO'} (${mnoId})`);
    applyAction(`suspended-${mnoId}`, suspensionAction(mnoId, name, description));
    return true;
  };

  const refreshMnoViews = () => {
    if (!state.metadata) return;
    status.mno = mnoViews(state.metadata, undefined, state.snapshot?.mnoOperationStatus, state.mnoIDs);
  };

  const applySnapshot = (s: CampaignSnapshot, cause: AuditCause, politicalVetExpired = false) => {
    state.snapshot = s;
    if (s.mnoMetadata && Object.keys(s.mnoMetadata).length > 0 && !state.metadata)
      state.metadata = s.mnoMetadata;
    const previous = status.campaignStatus;
    if (previous !== undefined && previous !== s.status)
      audit(cause, 'campaign-status', undefined, previous, s.status);
    const decision = deriveSnapshot(
      {
        phase: status.phase,
        campaignStatus: previous,
        deactivated: status.deactivated,
        knownSuspensions: status.suspensions.map((x) => x.mnoId),
      },
      s,
      politicalVetExpired,
    );
    status.campaignStatus = s.status;
    if (s.autoRenewal !== null && s.autoRenewal !== undefined) status.autoRenewal = s.autoRenewal;
    if (s.nextRenewalOrExpirationDate) {
      if (
        status.nextRenewalOrExpirationDate !== undefined &&
        status.nextRenewalOrExpirationDate !== s.nextRenewalOrExpirationDate
      )
        audit(
          cause,
          'renewal-date',
          undefined,
          status.nextRenewalOrExpirationDate,
          s.nextRenewalOrExpirationDate,
        );
      status.nextRenewalOrExpirationDate = s.nextRenewalOrExpirationDate;
    }
    if (s.expirationDate) status.expirationDate = s.expirationDate;
    else delete status.expirationDate;
    if (s.monthlyFee !== null && s.monthlyFee !== undefined) status.monthlyFee = s.monthlyFee;
    refreshMnoViews();
    for (const mnoId of decision.newSuspensions) recordSuspension(mnoId, cause);
    if (decision.clearAll) clearAllActions();
    if (decision.deactivated && !status.deactivated) {
      status.deactivated = true;
      audit(cause, 'deactivated', decision.detail);
    }
    for (const [key, change] of Object.entries(decision.actions)) applyAction(key, change);
    if (decision.phase !== status.phase)
      setPhase(decision.phase, cause, decision.phase === 'deactivated' ? undefined : decision.detail);
    books.syncSearchAttributes();
  };

  const applyCreated = (created: CampaignCreatedResult, cause: AuditCause) => {
    status.campaignId = created.campaignId;
    status.created = true;
    status.alreadyExisted = created.alreadyExisted;
    if (Object.keys(created.mnoMetadata).length > 0) state.metadata = created.mnoMetadata;
    // The registry has the campaign: the order's fields are no longer needed.
    delete state.content;
    refreshMnoViews();
    books.clearAction('refused');
    books.clearAction('fee-approval');
    books.clearAction('brand');
    delete status.refusal;
    audit(cause, created.alreadyExisted ? 'found-existing' : 'created', created.campaignId);
    setPhase('sharing', cause);
  };

  /** `partnerIsDca`: the share's partner is a DCA (looked up when the share reads ACCEPTED; see deriveSharing). */
  const applySharing = (record: SharingSnapshot | null, cause: AuditCause, partnerIsDca?: boolean) => {
    if (record) {
      const attempt: ShareAttempt = {
        upstreamCnpId: record.upstreamCnpId ?? status.upstreamCnpId,
        sharingStatus: record.sharingStatus,
        ...(record.explanation ? { explanation: record.explanation } : {}),
        ...(record.sharedDate ? { sharedDate: record.sharedDate } : {}),
        ...(record.statusDate ? { statusDate: record.statusDate } : {}),
      };
      if (
        status.sharing?.sharingStatus !== attempt.sharingStatus ||
        status.sharing.upstreamCnpId !== attempt.upstreamCnpId
      )
        audit(cause, 'sharing', attempt.upstreamCnpId, status.sharing?.sharingStatus, attempt.sharingStatus);
      status.sharing = attempt;
      const last = status.shareHistory[status.shareHistory.length - 1];
      if (last && last.upstreamCnpId === attempt.upstreamCnpId && last.sharedDate === attempt.sharedDate)
        status.shareHistory[status.shareHistory.length - 1] = attempt;
      else status.shareHistory.push(attempt);
      while (status.shareHistory.length > SHARE_HISTORY_LIMIT) status.shareHistory.shift();
    }
    const decision = deriveSharing({ phase: status.phase, campaignStatus: status.campaignStatus }, record, {
      now: Date.now(),
      decisionDeadline: state.decisionDeadline,
      decisionDeadlineMs,
      upstreamCnpId: status.upstreamCnpId,
      partnerIsDca,
    });
    if (decision.note) audit(cause, decision.note.event, decision.note.detail);
    if (decision.dcaComplete) status.dcaComplete = true;
    if (decision.decisionDeadline === 'clear') delete state.decisionDeadline;
    else if (decision.decisionDeadline !== undefined) state.decisionDeadline = decision.decisionDeadline;
    for (const [key, change] of Object.entries(decision.actions)) applyAction(key, change);
    setPhase(decision.phase, cause, decision.detail);
  };

  const applyReadiness = (r: BrandReadiness) => {
    status.brandReadiness = { workflowPhase: r.workflowPhase, reasons: r.reasons };
    if (r.brandId) status.brandId = r.brandId;
  };

  const checkReadiness = (): Promise<CallResult<BrandReadiness>> =>
    read('check brand readiness', () =>
      reads.checkBrandReadiness({
        account,
        brandReference: input.brandReference,
        at: new Date(Date.now()).toISOString(),
      }),
    );

  return {
    refuse,
    recordSuspension,
    applySnapshot,
    applyCreated,
    applySharing,
    applyReadiness,
    checkReadiness,
  };
}

export type CampaignApply = ReturnType<typeof campaignApply>;
