/**
 * campaignWorkflow: one campaign's whole life at the registry, id `campaign/{reference}`.
 *
 * awaiting-brand (brand workflow 'ready', confirmed by GET /brand) → checking (campaign builder, use
 * case, sub-use-case count, per-MNO qualification; nothing billed) → [awaiting-fee-approval] →
 * creating (POST /campaignBuilder, billed once: idempotent by referenceId) → sharing → share-pending
 * → ACCEPTED: awaiting-dca → running; DECLINED: share-declined (operator: resubmit or shareWith).
 * Then it stays as the campaign's entity: suspensions, nudges, renewal dates, political deactivation,
 * a slow reconciliation poll, continue-as-new, and it ends when the registry reports EXPIRED, or on
 * cancel.
 *
 * Signals wake, reads decide: events only wake the loop (and leave hints such as "DCA complete" or a
 * suspension with its MNO); the loop reads the campaign and its sharing record and derives the phase.
 * Registry calls run under a mutex so operator updates never interleave with the loop.
 * Deterministic: workflow APIs and pure modules only; activities by type.
 */
import {
  allHandlersFinished,
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  patched,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type {
  BrandReadiness,
  CampaignCreatedResult,
  CampaignSnapshot,
  MnoMetadataRecord,
  SharingSnapshot,
} from '../activities/campaign-types.js';
import { subUsecaseIssues } from '../registry/rules.js';
import { type AuditCause, emptyAuditTrail } from './audit.js';
import { campaignActivities } from './campaign-activities.js';
import {
  acknowledgeUpdate,
  approveFeeUpdate,
  campaignStatusQuery,
  cancelCampaignUpdate,
  resubmitUpdate,
  shareWithUpdate,
} from './campaign-definitions.js';
import { describeMnoRefusals, mnoViews } from './campaign-mno.js';
import type {
  CampaignContent,
  CampaignPhase,
  CampaignResult,
  CampaignStatus,
  CampaignWorkflowInput,
  CampaignWorkflowOptions,
  ShareAttempt,
} from './campaign-types.js';
import { terminalCampaignPhases } from './campaign-types.js';
import { DeliveryDedupe } from './delivery-dedupe.js';
import { EntityBookkeeping } from './entity-bookkeeping.js';
import { brandWorkflowId, parkedEventsByReferenceWorkflowId, parkedEventsWorkflowId } from './ids.js';
import { WorkflowMutex } from './mutex.js';
import { type RegistryRefusal, registryRefusal } from './registry-activities.js';
import {
  checkAcknowledgeRequest,
  checkApproveFeeRequest,
  checkCampaignCancelRequest,
  checkResubmitRequest,
  checkShareWithRequest,
} from './request-checks.js';
import { AccountKey, BrandReferenceKey, CampaignIdKey } from './search-attributes.js';
import {
  brandReadySignal,
  claimParkedEventsSignal,
  registryEventSignal,
  watchBrandReadinessSignal,
} from './signals.js';
import {
  backoffDelay,
  DEFAULT_PENDING_POLL,
  DEFAULT_STEADY_POLL_MS,
  HOUR_MS,
  type WakeCause,
  Wakeup,
  waitForWakePollOrDeadline,
} from './wait.js';

export const DEFAULT_CAMPAIGN_CONTINUE_AS_NEW_HISTORY_LENGTH = 10_000;
export const DEFAULT_BRAND_READY_DEADLINE_MS = 7 * 24 * HOUR_MS;
export const DEFAULT_DECISION_DEADLINE_MS = 7 * 24 * HOUR_MS;

function resolveOptions(options: CampaignWorkflowOptions = {}) {
  return {
    brandPoll: options.brandPoll ?? DEFAULT_PENDING_POLL,
    brandReadyDeadlineMs: options.brandReadyDeadlineMs ?? DEFAULT_BRAND_READY_DEADLINE_MS,
    pendingPoll: options.pendingPoll ?? DEFAULT_PENDING_POLL,
    decisionDeadlineMs: options.decisionDeadlineMs ?? DEFAULT_DECISION_DEADLINE_MS,
    steadyPollMs: options.steadyPollMs ?? DEFAULT_STEADY_POLL_MS,
    continueAsNewAt: options.continueAsNewAtHistoryLength ?? DEFAULT_CAMPAIGN_CONTINUE_AS_NEW_HISTORY_LENGTH,
    auditLimit: options.auditLimit,
    dedupeLimit: options.dedupeLimit,
  };
}

const waitDescriptions: Record<CampaignPhase, string> = {
  'awaiting-brand': 'brand workflow ready and confirmed by the registry',
  checking: 'registry: campaign builder and use case checks',
  refused: 'operator: resubmit with changes, or cancel',
  'awaiting-fee-approval': 'operator: approveFee, or cancel',
  creating: 'registry: campaign creation',
  sharing: 'registry: share with the upstream partner',
  'share-pending': 'upstream partner: accept or decline the share',
  'share-declined': 'operator: resubmit with changes (same partner), or shareWith another partner',
  'awaiting-dca': 'registry: CAMPAIGN_DCA_COMPLETE (all DCAs accepted)',
  running: 'registry events (steady reconciliation: expiry, renewal, suspensions)',
  deactivated: 'registry events (steady reconciliation)',
  expired: 'nothing (final)',
  cancelled: 'nothing (final)',
};

export async function campaignWorkflow(input: CampaignWorkflowInput): Promise<CampaignResult> {
  const opts = resolveOptions(input.options);
  const { reads, writes } = campaignActivities(input.account);
  const carried = input.carried;
  const self = workflowInfo().workflowId;
  let content: CampaignContent = carried?.campaign ?? input.campaign;
  const status: CampaignStatus = carried?.status ?? {
    workflowType: 'campaign',
    reference: input.reference,
    account: input.account,
    brandReference: input.brandReference,
    phase: 'awaiting-brand',
    usecase: input.campaign.usecase,
    upstreamCnpId: input.upstreamCnpId,
    requireFeeApproval: input.requireFeeApproval ?? false,
    created: false,
    mno: [],
    shareHistory: [],
    dcaComplete: false,
    suspensions: [],
    nudges: [],
    deactivated: false,
    needsAction: [],
    deliveries: { received: 0, duplicates: 0 },
    runs: 0,
    audit: emptyAuditTrail(),
  };
  status.runs++;
  let snapshot: CampaignSnapshot | undefined = carried?.snapshot;
  let metadata: Record<string, MnoMetadataRecord> | undefined = carried?.metadata;
  let claimedParked = carried?.claimedParked ?? false;
  let feeApproved = carried?.feeApproved ?? false;
  let decisionDeadline = carried?.decisionDeadline;
  let brandDeadline = carried?.brandDeadline;
  let dcaEventSeen = carried?.dcaEventSeen ?? false;
  /** A CAMPAIGN_EXPIRED event said the political vet expired (a hint; the read decides). */
  let politicalExpiryEventSeen = false;
  const dedupe = new DeliveryDedupe(carried?.deliveries, opts.dedupeLimit);
  const wakeup = new Wakeup();
  const mutex = new WorkflowMutex();
  /** Bumped by a pre-creation resubmit: the checks run again with the new content. */
  let revision = 0;
  /** Bumped after every pre-creation pass (checks, and creation when they pass). */
  let checkRuns = 0;
  let pollAttempt = 0;

  /** Final: expired, cancelled, or deactivated with the registry no longer reporting the campaign ACTIVE. */
  const terminal = () =>
    terminalCampaignPhases.includes(status.phase) ||
    (status.phase === 'deactivated' &&
      status.campaignStatus !== undefined &&
      status.campaignStatus !== 'ACTIVE');
  const books = new EntityBookkeeping(status, CampaignIdKey, () => status.campaignId, opts.auditLimit);
  const audit = books.audit.bind(books);
  const syncSearchAttributes = books.syncSearchAttributes.bind(books);
  const hasAction = books.hasAction.bind(books);
  const setAction = books.setAction.bind(books);
  const clearAction = books.clearAction.bind(books);
  const setPhase = (phase: CampaignPhase, cause: AuditCause, detail?: string) => {
    if (status.phase !== phase) {
      audit(cause, 'phase', detail, status.phase, phase);
      status.phase = phase;
      pollAttempt = 0;
    }
    syncSearchAttributes();
  };

  const refuse = (
    cause: AuditCause,
    reason: string,
    details: string[],
    registryErrors?: RegistryRefusal['errors'],
  ) => {
    status.refusal = { reason, details };
    audit(cause, 'refused', [reason, ...details].join('; '));
    setAction('refused', 'resubmit with changes, or cancel', [reason, ...details].join('; '), registryErrors);
    setPhase('refused', cause, reason);
  };

  const recordSuspension = (mnoId: string, cause: AuditCause, mnoName?: string, description?: string) => {
    if (status.suspensions.some((s) => s.mnoId === mnoId)) return;
    const name = mnoName ?? status.mno.find((m) => m.mnoId === mnoId)?.mno;
    status.suspensions.push({
      mnoId,
      at: new Date(Date.now()).toISOString(),
      ...(name !== undefined ? { mnoName: name } : {}),
      ...(description !== undefined ? { description } : {}),
    });
    audit(cause, 'mno-suspended', `${name ?? 'MNO'} (${mnoId})`);
    setAction(
      `suspended-${mnoId}`,
      'contact the MNO / DCA about the suspension; acknowledge when handled',
      `${name ?? 'MNO'} (${mnoId}) suspended the campaign${description ? `: ${description}` : ''}`,
    );
  };

  const refreshMnoViews = () => {
    if (!metadata) return;
    status.mno = mnoViews(metadata, undefined, snapshot?.mnoOperationStatus, content.mnoIDs);
  };

  /**
   * `politicalVetExpired`: the campaign is POLITICAL and its brand's political vet expired (brand
   * workflow's word, an event, or an expiry before the campaign's term ended): the registry
   * deactivated it, which it reports as EXPIRED.
   */
  const applySnapshot = (s: CampaignSnapshot, cause: AuditCause, politicalVetExpired = false) => {
    snapshot = s;
    if (s.mnoMetadata && Object.keys(s.mnoMetadata).length > 0 && !metadata) metadata = s.mnoMetadata;
    if (status.campaignStatus !== undefined && status.campaignStatus !== s.status)
      audit(cause, 'campaign-status', undefined, status.campaignStatus, s.status);
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
    for (const [mnoId, op] of Object.entries(s.mnoOperationStatus ?? {})) {
      if (op === 'SUSPENDED') recordSuspension(mnoId, cause);
    }
    if (s.status === 'EXPIRED' && politicalVetExpired) {
      for (const a of status.needsAction.map((x) => x.key)) clearAction(a);
      status.deactivated = true;
      audit(cause, 'deactivated', 'the brand political vet expired');
      setAction(
        'deactivated',
        'order or import a new political vet for the brand, then order the campaign again',
        `political campaign deactivated by the registry (${s.expirationDate ?? 'today'}): the brand's political vet expired`,
      );
      setPhase('deactivated', cause);
    } else if (s.status === 'EXPIRED') {
      for (const a of status.needsAction.map((x) => x.key)) clearAction(a);
      setPhase('expired', cause, `expired ${s.expirationDate ?? ''}`.trim());
    } else if (s.status !== 'ACTIVE' && !status.deactivated) {
      status.deactivated = true;
      audit(cause, 'deactivated', `registry status ${s.status}`);
    }
  };

  const applyCreated = (created: CampaignCreatedResult, brandId: string | undefined, cause: AuditCause) => {
    status.campaignId = created.campaignId;
    status.created = true;
    status.alreadyExisted = created.alreadyExisted;
    if (brandId) status.brandId = brandId;
    if (Object.keys(created.mnoMetadata).length > 0) metadata = created.mnoMetadata;
    refreshMnoViews();
    clearAction('refused');
    clearAction('fee-approval');
    delete status.refusal;
    audit(cause, created.alreadyExisted ? 'found-existing' : 'created', created.campaignId);
    setPhase('sharing', cause);
  };

  const applySharing = (s: SharingSnapshot | null, cause: AuditCause) => {
    if (!s) {
      if (status.phase === 'share-pending' || status.phase === 'awaiting-dca') {
        audit(cause, 'sharing-missing', 'the registry shows no share: sharing again');
        setPhase('sharing', cause);
      }
      return;
    }
    const attempt: ShareAttempt = {
      upstreamCnpId: s.upstreamCnpId ?? status.upstreamCnpId,
      sharingStatus: s.sharingStatus,
      ...(s.explanation ? { explanation: s.explanation } : {}),
      ...(s.sharedDate ? { sharedDate: s.sharedDate } : {}),
      ...(s.statusDate ? { statusDate: s.statusDate } : {}),
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
    if (status.shareHistory.length > 20) status.shareHistory.shift();
    switch (s.sharingStatus) {
      case 'PENDING':
        clearAction('share');
        clearAction('share-declined');
        decisionDeadline ??= Date.now() + opts.decisionDeadlineMs;
        setPhase('share-pending', cause, attempt.upstreamCnpId);
        break;
      case 'ACCEPTED':
        clearAction('share');
        clearAction('share-declined');
        if (status.phase === 'share-pending' || status.phase === 'sharing') {
          decisionDeadline = Date.now() + opts.decisionDeadlineMs;
          clearAction('decision-overdue');
          setPhase('awaiting-dca', cause, `accepted by ${attempt.upstreamCnpId}`);
        }
        break;
      case 'DECLINED':
        decisionDeadline = undefined;
        clearAction('decision-overdue');
        setAction(
          'share-declined',
          'resubmit with changes (same partner), or shareWith another partner',
          `${attempt.upstreamCnpId} declined: ${s.explanation ?? 'no explanation given'}`,
        );
        setPhase('share-declined', cause, s.explanation ?? undefined);
        break;
      default:
        audit(cause, 'sharing-unknown-status', s.sharingStatus);
    }
  };

  /**
   * Shares with `upstreamCnpId` unless the registry already shows that share PENDING or ACCEPTED
   * (a retry, or a continue-as-new between the PUT and recording it). `resubmission`: a DECLINED
   * share with the same partner is shared again (the campaign was changed).
   */
  const share = async (upstreamCnpId: string, cause: AuditCause, resubmission: boolean) => {
    const campaignId = status.campaignId!;
    const existing = await reads.getCampaignSharing({ account: input.account, campaignId });
    const adopt =
      existing &&
      (existing.sharingStatus === 'PENDING' ||
        existing.sharingStatus === 'ACCEPTED' ||
        (existing.sharingStatus === 'DECLINED' && !resubmission && existing.upstreamCnpId === upstreamCnpId));
    if (existing && adopt) {
      if (existing.upstreamCnpId && existing.upstreamCnpId !== status.upstreamCnpId) {
        audit(
          cause,
          'partner',
          `the registry shows the share with ${existing.upstreamCnpId}`,
          status.upstreamCnpId,
          existing.upstreamCnpId,
        );
        status.upstreamCnpId = existing.upstreamCnpId;
      }
      applySharing(existing, cause);
      return;
    }
    try {
      const record = await writes.shareCampaign({ account: input.account, campaignId, upstreamCnpId });
      status.upstreamCnpId = upstreamCnpId;
      decisionDeadline = undefined;
      audit(cause, resubmission ? 'resubmitted' : 'shared', upstreamCnpId);
      applySharing(record, cause);
    } catch (error) {
      const refusal = registryRefusal(error);
      if (!refusal) throw error;
      audit(cause, 'registry-refused', `share with ${upstreamCnpId}: ${refusal.message}`);
      setAction('share', 'shareWith another partner, or resubmit', refusal.message, refusal.errors);
      if (status.phase !== 'share-declined') setPhase('sharing', cause);
    }
  };

  const applyReadiness = (r: BrandReadiness) => {
    status.brandReadiness = { workflowPhase: r.workflowPhase, reasons: r.reasons };
    if (r.brandId) status.brandId = r.brandId;
  };

  const maybeContinueAsNew = async () => {
    const info = workflowInfo();
    if (!(info.continueAsNewSuggested || info.historyLength >= opts.continueAsNewAt)) return;
    await condition(() => allHandlersFinished() && !mutex.locked);
    audit('timer', 'continue-as-new', `history length ${info.historyLength}, run ${status.runs}`);
    await continueAsNew<typeof campaignWorkflow>({
      ...input,
      carried: {
        status,
        campaign: content,
        deliveries: dedupe.toJSON(),
        claimedParked,
        feeApproved,
        ...(snapshot ? { snapshot } : {}),
        ...(metadata ? { metadata } : {}),
        ...(decisionDeadline !== undefined ? { decisionDeadline } : {}),
        ...(brandDeadline !== undefined ? { brandDeadline } : {}),
        dcaEventSeen,
      },
    });
  };

  const claimParked = async (workflowId: string) => {
    try {
      await getExternalWorkflowHandle(workflowId).signal(claimParkedEventsSignal, { ownerWorkflowId: self });
      audit('start', 'claimed-parked-events', workflowId);
    } catch {
      // Nothing parked under this key.
    }
  };

  // ---------------------------------------------------------------------------------------------
  // Messages
  // ---------------------------------------------------------------------------------------------

  setHandler(campaignStatusQuery, () => status);

  setHandler(registryEventSignal, (delivery) => {
    if (!dedupe.firstSeen(delivery.deliveryId)) {
      status.deliveries.duplicates++;
      return;
    }
    status.deliveries.received++;
    const event = delivery.event;
    if (status.campaignId && event.campaignId && event.campaignId !== status.campaignId) {
      audit('webhook', 'event-ignored', `${event.eventType} for campaign ${event.campaignId}`);
      return;
    }
    audit('webhook', 'event', [event.eventType, event.description].filter(Boolean).join(': '));
    switch (event.eventType) {
      case 'CAMPAIGN_DCA_COMPLETE':
        dcaEventSeen = true;
        break;
      case 'CAMPAIGN_EXPIRED':
        if (/political/i.test(event.description ?? '')) politicalExpiryEventSeen = true;
        break;
      case 'MNO_CAMPAIGN_OPERATION_SUSPENDED':
        if (event.mnoId !== undefined)
          recordSuspension(String(event.mnoId), 'webhook', event.mnoName, event.description);
        else
          setAction(
            'suspended-unknown',
            'find which MNO suspended the campaign',
            event.description ?? 'an MNO suspended the campaign',
          );
        break;
      case 'CAMPAIGN_NUDGE': {
        const nudgeIntent = event.nudgeIntent ?? 'UNKNOWN';
        status.nudges.push({
          nudgeIntent,
          at: new Date(Date.now()).toISOString(),
          ...(event.description ? { description: event.description } : {}),
        });
        if (status.nudges.length > 20) status.nudges.shift();
        setAction(
          `nudge-${nudgeIntent}`,
          'review the nudge; acknowledge when handled',
          `${nudgeIntent}${event.description ? `: ${event.description}` : ''}`,
        );
        break;
      }
      default:
        break;
    }
    wakeup.bump('webhook');
  });

  setHandler(
    approveFeeUpdate,
    async (request) => {
      const { approvedBy } = checkApproveFeeRequest(request);
      feeApproved = true;
      status.feeApprovedBy = approvedBy;
      clearAction('fee-approval');
      audit(
        'operator',
        'fee-approved',
        `by ${approvedBy}; expected monthly fee ${status.expectedMonthlyFee ?? 'unknown'}`,
      );
      wakeup.bump('operator');
      // Return once the billable call has been made (or refused), so the caller sees the campaignId.
      await condition(() => status.created || status.phase === 'refused' || terminal());
      return status;
    },
    {
      validator: (request) => {
        const parsed = checkApproveFeeRequest(request);
        if (status.phase !== 'awaiting-fee-approval')
          throw new Error(
            `approveFee applies in phase awaiting-fee-approval; the campaign is ${status.phase}`,
          );
        const max = parsed.maxMonthlyFee;
        if (max !== undefined && status.expectedMonthlyFee !== undefined && status.expectedMonthlyFee > max)
          throw new Error(
            `maxMonthlyFee: the expected monthly fee ${status.expectedMonthlyFee} is above the approved maximum ${max}`,
          );
      },
    },
  );

  const pendingShareRefusal = () =>
    `a share with ${status.sharing?.upstreamCnpId ?? status.upstreamCnpId} is PENDING: the registry does not allow changing or rescinding it until the partner decides`;

  setHandler(
    resubmitUpdate,
    async (request) => {
      const { changes } = checkResubmitRequest(request);
      if (!status.created) {
        content = { ...content, ...changes } as CampaignContent;
        audit('operator', 'order-changed', Object.keys(changes).join(', '));
        clearAction('refused');
        revision++;
        wakeup.bump('operator');
        const rev = revision;
        const runs = checkRuns;
        // Return once the changed order has been checked again (refused again, awaiting approval, or created).
        await condition(
          () =>
            revision !== rev ||
            terminal() ||
            (checkRuns !== runs && !['awaiting-brand', 'checking', 'creating'].includes(status.phase)),
        );
        return status;
      }
      await mutex.run(async () => {
        try {
          const updated = await writes.updateCampaign({
            account: input.account,
            campaignId: status.campaignId!,
            patch: changes,
          });
          content = { ...content, ...changes } as CampaignContent;
          clearAction('registry-error');
          audit('operator', 'campaign-updated', Object.keys(changes).join(', '));
          applySnapshot(updated, 'operator');
        } catch (error) {
          const refusal = registryRefusal(error);
          if (!refusal) throw error;
          audit('operator', 'registry-refused', `update: ${refusal.message}`);
          setAction('registry-error', 'fix and resubmit', refusal.message, refusal.errors);
          return;
        }
        await share(status.upstreamCnpId, 'operator', true);
      });
      wakeup.bump('operator');
      return status;
    },
    {
      validator: (request) => {
        if (terminal()) throw new Error(`the campaign workflow is ${status.phase}`);
        checkResubmitRequest(request);
        if (status.phase === 'share-pending') throw new Error(pendingShareRefusal());
        if (status.phase === 'checking' || status.phase === 'creating')
          throw new Error(`the campaign is ${status.phase}; resubmit when that step has finished`);
        if (status.created && status.phase !== 'share-declined' && !hasAction('share'))
          throw new Error(
            `resubmit applies before creation or after a declined or refused share; the campaign is ${status.phase}`,
          );
      },
    },
  );

  setHandler(
    shareWithUpdate,
    async (request) => {
      const { upstreamCnpId } = checkShareWithRequest(request);
      await mutex.run(() => share(upstreamCnpId, 'operator', false));
      wakeup.bump('operator');
      return status;
    },
    {
      validator: (request) => {
        if (terminal()) throw new Error(`the campaign workflow is ${status.phase}`);
        const parsed = checkShareWithRequest(request);
        if (status.phase === 'share-pending') throw new Error(pendingShareRefusal());
        if (!status.created) throw new Error(`the campaign is not created yet (phase ${status.phase})`);
        if (status.phase !== 'share-declined' && !hasAction('share'))
          throw new Error(
            `shareWith applies after a declined or refused share; the campaign is ${status.phase}`,
          );
        if (status.phase === 'share-declined' && status.sharing?.upstreamCnpId === parsed.upstreamCnpId)
          throw new Error(
            `upstreamCnpId: ${parsed.upstreamCnpId} declined this campaign; change it with resubmit to share with the same partner again`,
          );
      },
    },
  );

  setHandler(
    cancelCampaignUpdate,
    async (request) => {
      const { reason } = checkCampaignCancelRequest(request);
      status.cancelReason = reason;
      for (const a of status.needsAction.map((x) => x.key)) clearAction(a);
      setPhase('cancelled', 'operator', reason);
      wakeup.bump('operator');
      return status;
    },
    {
      validator: (request) => {
        if (terminal()) throw new Error(`the campaign workflow is already ${status.phase}`);
        checkCampaignCancelRequest(request);
        if (status.phase === 'share-pending') throw new Error(pendingShareRefusal());
        if (status.phase === 'creating')
          throw new Error('the campaign is being created; cancel when that step has finished');
      },
    },
  );

  setHandler(
    acknowledgeUpdate,
    (request) => {
      const { key } = checkAcknowledgeRequest(request);
      clearAction(key);
      audit('operator', 'acknowledged', key);
      return status;
    },
    {
      validator: (request) => {
        const parsed = checkAcknowledgeRequest(request);
        const key = parsed.key;
        if (!hasAction(key)) throw new Error(`key: no needs-action entry ${key}`);
        if (!/^(suspended-|nudge-|decision-overdue$|registry-error$)/.test(key))
          throw new Error(`key: ${key} is cleared by acting on it (see its action), not by acknowledging`);
      },
    },
  );

  // ---------------------------------------------------------------------------------------------
  // Before any billable call
  // ---------------------------------------------------------------------------------------------

  if (!carried) {
    upsertSearchAttributes([
      { key: BrandReferenceKey, value: input.brandReference },
      { key: AccountKey, value: input.account },
    ]);
    audit(
      'start',
      'started',
      `account ${input.account}, brand ${input.brandReference}, partner ${input.upstreamCnpId}`,
    );
    await claimParked(parkedEventsByReferenceWorkflowId('campaign', input.reference));
    // The same order started again after its first workflow ended, or a reset: the registry already
    // has the campaign under this reference; adopt it instead of building (and paying) again.
    const existing = await reads.findCampaignByReference({
      account: input.account,
      referenceId: input.reference,
    });
    if (existing) {
      applyCreated(
        { campaignId: existing.campaignId, mnoMetadata: existing.mnoMetadata ?? {}, alreadyExisted: true },
        existing.brandId ?? undefined,
        'start',
      );
      applySnapshot(existing, 'start');
    }
  }
  syncSearchAttributes();

  // The brand's workflow tells us when the brand reaches ready (a hint; the readiness read decides),
  // so a campaign ordered beside a new brand starts as soon as the brand is ready, not a poll later.
  setHandler(brandReadySignal, () => wakeup.bump('workflow'));
  let watchingBrand = false;
  const watchBrand = async () => {
    if (watchingBrand || !patched('watch-brand-readiness')) return;
    watchingBrand = true;
    await getExternalWorkflowHandle(brandWorkflowId(input.brandReference))
      .signal(watchBrandReadinessSignal, { watcherWorkflowId: self })
      .catch(() => undefined); // no brand workflow (yet): the readiness poll covers it
  };

  /** What woke the last brand readiness check that succeeded (recorded with the phase change). */
  let brandReadyCause: AuditCause = 'start';
  const waitForBrand = async (): Promise<BrandReadiness | undefined> => {
    let attempt = 0;
    let cause: AuditCause = 'start';
    brandDeadline ??= Date.now() + opts.brandReadyDeadlineMs;
    for (;;) {
      if (terminal()) return undefined;
      await maybeContinueAsNew();
      const since = wakeup.current;
      const readiness = await reads.checkBrandReadiness({
        account: input.account,
        brandReference: input.brandReference,
        at: new Date(Date.now()).toISOString(),
      });
      applyReadiness(readiness);
      if (readiness.ready) {
        clearAction('brand');
        brandReadyCause = cause;
        return readiness;
      }
      const overdue = Date.now() >= brandDeadline;
      if (overdue && !hasAction('brand')) {
        audit('timer', 'brand-not-ready', readiness.reasons.join('; '));
        setAction('brand', 'get the brand ready (see its workflow), or cancel', readiness.reasons.join('; '));
      }
      await watchBrand();
      const pollInMs = overdue ? opts.steadyPollMs : backoffDelay(opts.brandPoll, attempt);
      status.waitingFor = {
        what: `${waitDescriptions['awaiting-brand']}: ${readiness.reasons.join('; ')}`,
        nextPollAt: new Date(Date.now() + pollInMs).toISOString(),
        ...(!overdue ? { until: new Date(brandDeadline).toISOString() } : {}),
      };
      cause = await waitForWakePollOrDeadline({
        wakeup,
        since,
        pollInMs,
        ...(!overdue ? { deadline: brandDeadline } : {}),
        interrupt: terminal,
      });
      if (cause === 'poll') attempt++;
    }
  };

  /** Reads only: use case limits, campaign builder, per-MNO qualification. Refusal reasons, or none. */
  const runChecks = async (brandId: string): Promise<{ reason: string; details: string[] } | undefined> => {
    const details: string[] = [];
    const limits = await reads.getUseCaseLimits({ account: input.account, usecase: content.usecase });
    if (!limits.exists) return { reason: `unknown use case ${content.usecase}`, details: [] };
    for (const issue of subUsecaseIssues(
      { usecase: content.usecase, subUsecases: content.subUsecases },
      {
        [content.usecase]: {
          ...(limits.minSubUsecases !== undefined ? { minSubUsecases: limits.minSubUsecases } : {}),
          ...(limits.maxSubUsecases !== undefined ? { maxSubUsecases: limits.maxSubUsecases } : {}),
        },
      },
    ))
      details.push(`${issue.path.join('.')}: ${issue.message}`);
    const builder = await reads.checkCampaignBuilder({
      account: input.account,
      brandId,
      usecase: content.usecase,
    });
    if (builder.monthlyFee !== undefined) status.expectedMonthlyFee = builder.monthlyFee;
    if (!builder.supported) details.push(...builder.reasons.map((r) => `usecase: ${r}`));
    if (builder.mnoMetadata) {
      status.mno = mnoViews(builder.mnoMetadata, content, undefined, content.mnoIDs);
      if (builder.supported && status.mno.length > 0 && !status.mno.some((m) => m.qualify))
        return {
          reason: 'no MNO would accept the campaign',
          details: [...details, ...describeMnoRefusals(status.mno)],
        };
    }
    if (details.length > 0) return { reason: 'the campaign cannot be created as ordered', details };
    return undefined;
  };

  while (!status.created && !terminal()) {
    const rev = revision;
    setPhase('awaiting-brand', 'start');
    const readiness = await waitForBrand();
    if (!readiness?.brandId) break;
    if (revision !== rev) continue;
    setPhase('checking', brandReadyCause, `brand ${readiness.brandId} ready`);
    status.waitingFor = { what: waitDescriptions.checking };
    const refusal = await runChecks(readiness.brandId);
    checkRuns++;
    if (refusal) {
      refuse('poll', refusal.reason, refusal.details);
      status.waitingFor = { what: waitDescriptions.refused };
      await condition(() => revision !== rev || terminal());
      continue;
    }
    delete status.refusal;
    clearAction('refused');
    if (status.requireFeeApproval && !feeApproved) {
      setAction(
        'fee-approval',
        'approveFee, or cancel',
        `creating the campaign is billed; expected monthly fee ${status.expectedMonthlyFee ?? 'unknown (shown by the registry after creation)'}`,
      );
      setPhase('awaiting-fee-approval', 'poll');
      status.waitingFor = { what: waitDescriptions['awaiting-fee-approval'] };
      await condition(() => feeApproved || revision !== rev || terminal());
      if (!feeApproved || revision !== rev) continue;
    }
    if (terminal()) break;
    setPhase('creating', feeApproved && status.requireFeeApproval ? 'operator' : 'poll');
    status.waitingFor = { what: waitDescriptions.creating };
    const creation = { ...content, brandId: readiness.brandId, referenceId: input.reference };
    try {
      const created = await mutex.run(() => writes.createCampaign({ account: input.account, creation }));
      applyCreated(created, readiness.brandId, 'poll');
      checkRuns++;
    } catch (error) {
      const refusal = registryRefusal(error);
      if (!refusal) throw error;
      const mnoDetails = describeMnoRefusals(status.mno);
      refuse(
        'poll',
        `the registry refused the campaign: ${refusal.message}`,
        [
          ...refusal.errors.map((e) => `${e.fields.join(', ') || '(campaign)'}: ${e.description}`),
          ...mnoDetails,
        ],
        refusal.errors,
      );
      checkRuns++;
      status.waitingFor = { what: waitDescriptions.refused };
      await condition(() => revision !== rev || terminal());
    }
  }

  if (status.campaignId && !claimedParked) {
    claimedParked = true;
    await claimParked(parkedEventsWorkflowId('campaign', status.campaignId));
  }

  // ---------------------------------------------------------------------------------------------
  // The entity loop: reconcile, then wait for an event, an operator action, the next poll or a deadline.
  // ---------------------------------------------------------------------------------------------

  const reconcile = async (cause: WakeCause | 'start') => {
    const auditCause: AuditCause = cause;
    const campaignId = status.campaignId!;
    try {
      const s = await reads.getCampaign({ account: input.account, campaignId });
      clearAction('registry-error');
      let politicalVetExpired = false;
      if (s.status === 'EXPIRED' && status.usecase === 'POLITICAL') {
        const early =
          !!s.expirationDate &&
          !!s.nextRenewalOrExpirationDate &&
          s.expirationDate < s.nextRenewalOrExpirationDate;
        const readiness = early
          ? undefined
          : await reads.checkBrandReadiness({
              account: input.account,
              brandReference: input.brandReference,
              at: new Date(Date.now()).toISOString(),
            });
        politicalVetExpired =
          early || politicalExpiryEventSeen || (readiness?.politicalCampaignsAffected ?? false);
      }
      applySnapshot(s, auditCause, politicalVetExpired);
    } catch (error) {
      const refusal = registryRefusal(error);
      if (!refusal) throw error;
      audit(auditCause, 'registry-refused', `read campaign: ${refusal.message}`);
      setAction('registry-error', 'check the campaign at the registry', refusal.message, refusal.errors);
      return;
    }
    if (terminal()) return;
    switch (status.phase) {
      case 'sharing':
        if (!hasAction('share')) await share(status.upstreamCnpId, auditCause, false);
        break;
      case 'share-pending':
      case 'awaiting-dca':
        applySharing(await reads.getCampaignSharing({ account: input.account, campaignId }), auditCause);
        break;
      default:
        break;
    }
    if (status.phase === 'awaiting-dca') {
      const registered = Object.values(snapshot?.mnoOperationStatus ?? {}).some((op) => op === 'REGISTERED');
      if (dcaEventSeen || registered) {
        status.dcaComplete = true;
        decisionDeadline = undefined;
        clearAction('decision-overdue');
        setPhase(
          'running',
          auditCause,
          dcaEventSeen ? 'CAMPAIGN_DCA_COMPLETE, share ACCEPTED' : 'MNO operation status REGISTERED',
        );
      }
    }
    if (
      (status.phase === 'running' || status.phase === 'deactivated') &&
      !status.deactivated &&
      status.usecase === 'POLITICAL'
    ) {
      const readiness = await reads.checkBrandReadiness({
        account: input.account,
        brandReference: input.brandReference,
        at: new Date(Date.now()).toISOString(),
      });
      if (readiness.politicalCampaignsAffected) {
        status.deactivated = true;
        audit(auditCause, 'deactivated', 'the brand political vet expired');
      }
    }
    if (status.deactivated && status.phase === 'running') {
      setAction(
        'deactivated',
        'order or import a new political vet for the brand; then resubmit',
        'political campaign deactivated by the registry',
      );
      setPhase('deactivated', auditCause);
    }
  };

  const pollDelay = (): number => {
    switch (status.phase) {
      case 'share-pending':
      case 'awaiting-dca':
        return backoffDelay(opts.pendingPoll, pollAttempt);
      default:
        return opts.steadyPollMs;
    }
  };

  let cause: WakeCause | 'start' = 'start';
  while (!terminal() && status.created) {
    await maybeContinueAsNew();
    const since = wakeup.current;
    await mutex.run(() => reconcile(cause));
    if (terminal()) break;
    const pollInMs = pollDelay();
    const decisionPhase = status.phase === 'share-pending' || status.phase === 'awaiting-dca';
    const deadline =
      decisionPhase && decisionDeadline !== undefined && !hasAction('decision-overdue')
        ? decisionDeadline
        : undefined;
    status.waitingFor = {
      what: waitDescriptions[status.phase],
      nextPollAt: new Date(Date.now() + pollInMs).toISOString(),
      ...(deadline !== undefined ? { until: new Date(deadline).toISOString() } : {}),
    };
    cause = await waitForWakePollOrDeadline({
      wakeup,
      since,
      pollInMs,
      ...(deadline !== undefined ? { deadline } : {}),
      interrupt: terminal,
    });
    if (cause === 'poll') pollAttempt++;
    if (cause === 'timer' && decisionPhase && deadline !== undefined) {
      audit('timer', 'decision-overdue', waitDescriptions[status.phase]);
      setAction(
        'decision-overdue',
        'contact the upstream partner / DCA',
        `no decision by ${new Date(deadline).toISOString()}: ${waitDescriptions[status.phase]}`,
      );
    }
  }

  delete status.waitingFor;
  await condition(allHandlersFinished);
  return { phase: status.phase, ...(status.campaignId ? { campaignId: status.campaignId } : {}), status };
}
