/**
 * campaignWorkflow: one campaign's whole life at the registry, id `campaign/{reference}`.
 *
 * awaiting-brand (brand workflow 'ready', confirmed by GET /brand) → checking (campaign builder, use
 * case, sub-use-case count, per-MNO qualification; reads only, nothing billed) → refused |
 * [awaiting-fee-approval] → creating (POST /campaignBuilder, billed once: the registry is searched by
 * referenceId first, so a re-order or a restart adopts) → sharing → share-pending → ACCEPTED:
 * awaiting-dca → running; DECLINED: share-declined (operator: resubmit or shareWith). Then it stays
 * as the campaign's entity: suspensions, nudges, renewal dates, political deactivation, a slow
 * reconciliation poll, continue-as-new; it ends `expired` when the registry reports EXPIRED,
 * `deactivated` (political) once the registry no longer reports it ACTIVE, or `cancelled`.
 *
 * Built on the entity loop (../entity/loop.ts): handlers validate and enqueue; only the loop calls the
 * registry, one call at a time, every call through the guard (no registry answer fails or ends the
 * workflow: a fault raises needs-action `registry-error` and is retried; only a request refusal of the
 * creation, or checks that say "not supported", lead to `refused`). Decisions are plain functions
 * (./derive.ts); phases and what they allow are one table (./phases.ts); the state is one object
 * (./state.ts).
 */
import {
  ApplicationFailure,
  allHandlersFinished,
  CancellationScope,
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  isCancellation,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type {
  BrandReadiness,
  CampaignCreatedResult,
  CampaignSnapshot,
  SharingSnapshot,
} from '../../contracts/campaign-activity-types.js';
import { subUsecaseIssues } from '../../registry/rules.js';
import type { CampaignUpdate } from '../../registry/schemas.js';
import {
  acknowledgeUpdate,
  approveFeeUpdate,
  type CampaignOperationOutcome,
  campaignStatusQuery,
  cancelCampaignUpdate,
  resubmitUpdate,
  shareWithUpdate,
} from '../campaign-definitions.js';
import type {
  AcknowledgeRequest,
  ApproveFeeRequest,
  CampaignCancelRequest,
  ResubmitRequest,
  ShareWithRequest,
} from '../campaign-messages.js';
import { describeMnoRefusals, mnoViews } from '../campaign-mno.js';
import type {
  CampaignContent,
  CampaignPhase,
  CampaignResult,
  CampaignStatus,
  CampaignWorkflowInput,
  ShareAttempt,
} from '../campaign-types.js';
import type { AuditCause } from '../entity/audit.js';
import { EntityBookkeeping } from '../entity/bookkeeping.js';
import { DeliveryDedupe } from '../entity/delivery-dedupe.js';
import { type OperationResult, runEntityLoop } from '../entity/loop.js';
import { acceptedRequest, OperationQueue, type QueuedOperation } from '../entity/operations.js';
import { guardedPhase, refuseUnlessAllowed } from '../entity/phases.js';
import { type CallResult, GuardedRegistry } from '../entity/registry-call.js';
import { type RegistryFailure, requestRefusalClasses } from '../entity/registry-failure.js';
import { registryStubs, wakePriority } from '../entity/stubs.js';
import {
  type BackoffSchedule,
  DEFAULT_PENDING_POLL,
  DEFAULT_STEADY_POLL_MS,
  HOUR_MS,
  type WakeCause,
  Wakeup,
} from '../entity/wait.js';
import { brandWorkflowId, parkedEventsByReferenceWorkflowId, parkedEventsWorkflowId } from '../ids.js';
import {
  checkAcknowledgeRequest,
  checkApproveFeeRequest,
  checkCampaignCancelRequest,
  checkResubmitRequest,
  checkShareWithRequest,
} from '../request-checks.js';
import { AccountKey, BrandReferenceKey, CampaignIdKey } from '../search-attributes.js';
import {
  brandReadySignal,
  claimParkedEventsSignal,
  registryEventSignal,
  watchBrandReadinessSignal,
} from '../signals.js';
import {
  type ActionChange,
  acknowledgeable,
  adoptExistingShare,
  deriveDcaComplete,
  deriveDeactivated,
  deriveReadiness,
  deriveSharing,
  deriveSnapshot,
  needsBrandWordOnExpiry,
  politicalDeactivation,
  suspensionAction,
} from './derive.js';
import { type CampaignOperation, campaignPhaseTable, preCreationPhases } from './phases.js';
import { type CampaignState, initialCampaignState } from './state.js';

export const DEFAULT_CAMPAIGN_CONTINUE_AS_NEW_HISTORY_LENGTH = 10_000;
export const DEFAULT_BRAND_READY_DEADLINE_MS = 7 * 24 * HOUR_MS;
export const DEFAULT_DECISION_DEADLINE_MS = 7 * 24 * HOUR_MS;
const SHARE_HISTORY_LIMIT = 20;
const NUDGES_LIMIT = 20;

/** Steps one reconciliation runs at most (each moves the campaign one phase on). */
const MAX_STEPS = 10;

type Failed = Extract<CallResult<unknown>, { ok: false }>;

/** A first run's input must carry the campaign fields (the order API always sends them). */
function withCampaign(
  input: CampaignWorkflowInput,
): CampaignWorkflowInput & { campaign: NonNullable<CampaignWorkflowInput['campaign']> } {
  if (!input.campaign)
    throw ApplicationFailure.nonRetryable(
      'a campaign workflow starts with its campaign fields (CampaignWorkflowInput.campaign)',
      'InvalidWorkflowInput',
    );
  return { ...input, campaign: input.campaign };
}

export async function campaignWorkflow(input: CampaignWorkflowInput): Promise<CampaignResult> {
  const opts = input.options ?? {};
  const brandPoll = opts.brandPoll ?? DEFAULT_PENDING_POLL;
  const pendingPoll = opts.pendingPoll ?? DEFAULT_PENDING_POLL;
  const steadyPollMs = opts.steadyPollMs ?? DEFAULT_STEADY_POLL_MS;
  const brandReadyDeadlineMs = opts.brandReadyDeadlineMs ?? DEFAULT_BRAND_READY_DEADLINE_MS;
  const decisionDeadlineMs = opts.decisionDeadlineMs ?? DEFAULT_DECISION_DEADLINE_MS;
  const registry = registryStubs(input.account);
  const { reads, writes } = registry;
  const account = input.account;
  const self = workflowInfo().workflowId;
  const state: CampaignState = input.carried ?? initialCampaignState(withCampaign(input));
  if (input.carried) state.status.runs = ++state.loop.runs;
  const status = state.status;
  const table = campaignPhaseTable(() => status.campaignStatus);
  const wakeup = new Wakeup();
  const queue = new OperationQueue<CampaignOperation>(state.queue, wakeup);
  const dedupe = new DeliveryDedupe(state.deliveries, opts.dedupeLimit);
  const books = new EntityBookkeeping(status, CampaignIdKey, () => status.campaignId, opts.auditLimit);
  const guarded = new GuardedRegistry(state.faults, books);
  const audit = books.audit.bind(books);
  const final = () => table[status.phase].final;

  const applyAction = (key: string, change: ActionChange | undefined) => {
    if (!change) return;
    if (change.set) books.setAction(key, change.action, change.reason, change.registryErrors);
    else books.clearAction(key);
  };
  const clearAllActions = () => {
    for (const key of status.needsAction.map((a) => a.key)) books.clearAction(key);
  };

  const setPhase = (proposed: CampaignPhase, cause: AuditCause, detail?: string) => {
    const phase = guardedPhase(table, status.phase, proposed);
    if (status.phase !== phase) {
      audit(cause, 'phase', detail, status.phase, phase);
      status.phase = phase;
      state.loop.pollAttempt = 0;
    }
    books.syncSearchAttributes();
  };

  const read = <T>(site: string, fn: () => Promise<T>) => guarded.read(site, fn);

  const claimParked = async (parkedWorkflowId: string) => {
    try {
      await getExternalWorkflowHandle(parkedWorkflowId).signal(claimParkedEventsSignal, {
        ownerWorkflowId: self,
      });
      audit('start', 'claimed-parked-events', parkedWorkflowId);
    } catch (error) {
      if (isCancellation(error)) throw error;
      // Nothing parked under this key.
    }
  };

  // -------------------------------------------------------------------------------------------
  // Applying what the registry says
  // -------------------------------------------------------------------------------------------

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
    applyAction(`suspended-${mnoId}`, suspensionAction(mnoId, name, description));
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

  const applySharing = (record: SharingSnapshot | null, cause: AuditCause) => {
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
    });
    if (decision.note) audit(cause, decision.note.event, decision.note.detail);
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

  // -------------------------------------------------------------------------------------------
  // Steps (called by the loop only: from `reconcile` and from the operations it runs)
  // -------------------------------------------------------------------------------------------

  /** A re-order or a restart: the registry already has the campaign under this reference; adopt it. */
  const lookUpByReference = async (cause: AuditCause): Promise<boolean> => {
    if (state.lookedUpByReference || status.created) return true;
    const found = await read('find campaign by reference', () =>
      reads.findCampaignByReference({ account, referenceId: input.reference }),
    );
    if (!found.ok) return false;
    state.lookedUpByReference = true;
    const existing = found.value;
    if (existing) {
      if (existing.brandId) status.brandId = existing.brandId;
      applyCreated(
        { campaignId: existing.campaignId, mnoMetadata: existing.mnoMetadata ?? {}, alreadyExisted: true },
        cause,
      );
      applySnapshot(existing, cause);
    }
    return true;
  };

  const watchBrand = async () => {
    if (state.watchingBrand) return;
    state.watchingBrand = true;
    await getExternalWorkflowHandle(brandWorkflowId(input.brandReference))
      .signal(watchBrandReadinessSignal, { watcherWorkflowId: self })
      .catch((error: unknown) => {
        if (isCancellation(error)) throw error;
        // No brand workflow (yet): the readiness poll covers it.
      });
  };

  const awaitBrand = async (cause: AuditCause): Promise<void> => {
    state.brandDeadline ??= Date.now() + brandReadyDeadlineMs;
    const check = await checkReadiness();
    if (!check.ok) return;
    applyReadiness(check.value);
    const decision = deriveReadiness(
      { phase: status.phase, campaignStatus: status.campaignStatus },
      check.value,
      {
        now: Date.now(),
        brandDeadline: state.brandDeadline,
        hasBrandAction: books.hasAction('brand'),
      },
    );
    if (decision.brand?.set) audit('timer', 'brand-not-ready', decision.brand.reason);
    applyAction('brand', decision.brand);
    if (decision.phase !== status.phase) setPhase(decision.phase, cause, decision.detail);
    else await watchBrand();
  };

  type CheckVerdict =
    | { kind: 'fault' }
    | { kind: 'refused'; reason: string; details: string[] }
    | { kind: 'passed' };

  /** Reads only: use case limits, campaign builder, per-MNO qualification. */
  const runChecks = async (content: CampaignContent, brandId: string): Promise<CheckVerdict> => {
    const details: string[] = [];
    const limits = await read('read use case limits', () =>
      reads.getUseCaseLimits({ account, usecase: content.usecase }),
    );
    if (!limits.ok) return { kind: 'fault' };
    if (!limits.value.exists)
      return { kind: 'refused', reason: `unknown use case ${content.usecase}`, details: [] };
    for (const issue of subUsecaseIssues(
      { usecase: content.usecase, subUsecases: content.subUsecases },
      {
        [content.usecase]: {
          ...(limits.value.minSubUsecases !== undefined
            ? { minSubUsecases: limits.value.minSubUsecases }
            : {}),
          ...(limits.value.maxSubUsecases !== undefined
            ? { maxSubUsecases: limits.value.maxSubUsecases }
            : {}),
        },
      },
    ))
      details.push(`${issue.path.join('.')}: ${issue.message}`);
    const builder = await read('check campaign builder', () =>
      reads.checkCampaignBuilder({ account, brandId, usecase: content.usecase }),
    );
    if (!builder.ok) return { kind: 'fault' };
    if (builder.value.monthlyFee !== undefined) status.expectedMonthlyFee = builder.value.monthlyFee;
    if (!builder.value.supported) details.push(...builder.value.reasons.map((r) => `usecase: ${r}`));
    if (builder.value.mnoMetadata) {
      status.mno = mnoViews(builder.value.mnoMetadata, content, undefined, state.mnoIDs);
      if (builder.value.supported && status.mno.length > 0 && !status.mno.some((m) => m.qualify))
        return {
          kind: 'refused',
          reason: 'no MNO would accept the campaign',
          details: [...details, ...describeMnoRefusals(status.mno)],
        };
    }
    if (details.length > 0)
      return { kind: 'refused', reason: 'the campaign cannot be created as ordered', details };
    return { kind: 'passed' };
  };

  const check = async (cause: AuditCause): Promise<void> => {
    const content = state.content;
    const brandId = status.brandId;
    if (!content || !brandId) {
      // Unreachable by construction (checking follows a ready brand, before creation).
      setPhase('awaiting-brand', cause);
      return;
    }
    const verdict = await runChecks(content, brandId);
    if (verdict.kind === 'fault') return;
    if (verdict.kind === 'refused') {
      refuse(cause, verdict.reason, verdict.details);
      return;
    }
    delete status.refusal;
    books.clearAction('refused');
    if (status.requireFeeApproval && !state.feeApproved) {
      books.setAction(
        'fee-approval',
        'approveFee, or cancel',
        `creating the campaign is billed; expected monthly fee ${status.expectedMonthlyFee ?? 'unknown (shown by the registry after creation)'}`,
      );
      setPhase('awaiting-fee-approval', cause);
      return;
    }
    setPhase('creating', cause);
  };

  /** The billed creation. Idempotent by referenceId (the activity looks up before it creates). */
  const create = async (cause: AuditCause): Promise<CallResult<CampaignCreatedResult>> => {
    const content = state.content;
    const brandId = status.brandId;
    if (!content || !brandId) throw new Error('creating without the order or the brand'); // unreachable by construction
    const creation = { ...content, brandId, referenceId: input.reference };
    const call = await guarded.call('create campaign', () => writes.createCampaign({ account, creation }), {
      billed: true,
    });
    if (call.ok) applyCreated(call.value, cause);
    else if (requestRefusalClasses.includes(call.failure.class))
      refuse(
        cause,
        `the registry refused the campaign: ${call.failure.message}`,
        [
          ...call.failure.errors.map((e) => `${e.fields.join(', ') || '(campaign)'}: ${e.description}`),
          ...describeMnoRefusals(status.mno),
        ],
        call.failure.errors,
      );
    return call;
  };

  type ShareResult = { kind: 'done' } | { kind: 'refused' | 'failed'; failure: RegistryFailure };

  /**
   * Shares with `upstreamCnpId` unless the registry already shows that share (see
   * `adoptExistingShare`). `resubmission`: a DECLINED share with the same partner is shared again.
   */
  const share = async (
    upstreamCnpId: string,
    cause: AuditCause,
    resubmission: boolean,
  ): Promise<ShareResult> => {
    const campaignId = status.campaignId!;
    const existing = await read('read campaign sharing', () =>
      reads.getCampaignSharing({ account, campaignId }),
    );
    if (!existing.ok) return { kind: 'failed', failure: existing.failure };
    if (existing.value && adoptExistingShare(existing.value, upstreamCnpId, resubmission)) {
      const partner = existing.value.upstreamCnpId;
      if (partner && partner !== status.upstreamCnpId) {
        audit(
          cause,
          'partner',
          `the registry shows the share with ${partner}`,
          status.upstreamCnpId,
          partner,
        );
        status.upstreamCnpId = partner;
      }
      applySharing(existing.value, cause);
      return { kind: 'done' };
    }
    const call = await guarded.call('share campaign', () =>
      writes.shareCampaign({ account, campaignId, upstreamCnpId }),
    );
    if (call.ok) {
      status.upstreamCnpId = upstreamCnpId;
      delete state.decisionDeadline;
      audit(cause, resubmission ? 'resubmitted' : 'shared', upstreamCnpId);
      applySharing(call.value, cause);
      return { kind: 'done' };
    }
    if (!requestRefusalClasses.includes(call.failure.class)) return { kind: 'failed', failure: call.failure };
    audit(cause, 'registry-refused', `share with ${upstreamCnpId}: ${call.failure.message}`);
    books.setAction(
      'share',
      'shareWith another partner, or resubmit',
      call.failure.message,
      call.failure.errors,
    );
    if (status.phase !== 'share-declined') setPhase('sharing', cause);
    return { kind: 'refused', failure: call.failure };
  };

  /** Reads the campaign (and, for a POLITICAL expiry, the brand's word) and applies it. */
  const readCampaign = async (cause: AuditCause): Promise<boolean> => {
    const campaignId = status.campaignId!;
    const got = await read('read campaign', () => reads.getCampaign({ account, campaignId }));
    if (!got.ok) return false;
    const s = got.value;
    let brandSaysAffected: boolean | undefined;
    if (needsBrandWordOnExpiry(s, status.usecase, state.politicalExpiryEventSeen)) {
      const readiness = await checkReadiness();
      if (!readiness.ok) return false;
      brandSaysAffected = readiness.value.politicalCampaignsAffected;
    }
    const political = politicalDeactivation(s, {
      usecase: status.usecase,
      eventSeen: state.politicalExpiryEventSeen,
      brandSaysAffected,
    });
    applySnapshot(s, cause, political);
    return true;
  };

  /** The steady reconciliation of a created campaign. */
  const reconcileCreated = async (cause: AuditCause): Promise<void> => {
    if (!(await readCampaign(cause)) || final()) return;
    switch (status.phase) {
      case 'sharing':
        if (!books.hasAction('share')) await share(status.upstreamCnpId, cause, false);
        break;
      case 'share-pending':
      case 'awaiting-dca': {
        const campaignId = status.campaignId!;
        const sharing = await read('read campaign sharing', () =>
          reads.getCampaignSharing({ account, campaignId }),
        );
        if (!sharing.ok) return;
        applySharing(sharing.value, cause);
        break;
      }
      default:
        break;
    }
    const dca = deriveDcaComplete({ phase: status.phase }, state.snapshot, state.dcaEventSeen);
    if (dca.phase !== status.phase) {
      status.dcaComplete = true;
      delete state.decisionDeadline;
      books.clearAction('decision-overdue');
      setPhase(dca.phase, cause, dca.detail);
    }
    if (
      (status.phase === 'running' || status.phase === 'deactivated') &&
      !status.deactivated &&
      status.usecase === 'POLITICAL'
    ) {
      const readiness = await checkReadiness();
      if (!readiness.ok) return;
      if (readiness.value.politicalCampaignsAffected) {
        status.deactivated = true;
        audit(cause, 'deactivated', 'the brand political vet expired');
      }
    }
    const deactivation = deriveDeactivated({ phase: status.phase }, status.deactivated);
    applyAction('deactivated', deactivation.action);
    setPhase(deactivation.phase, cause);
  };

  /** One step of the phase; returns when it has acted (the phase may have moved on). */
  const step = async (cause: AuditCause): Promise<void> => {
    if (preCreationPhases.includes(status.phase) && !(await lookUpByReference(cause))) return;
    if (status.created && !state.claimedParked) {
      state.claimedParked = true;
      await claimParked(parkedEventsWorkflowId('campaign', status.campaignId!));
    }
    switch (status.phase) {
      case 'awaiting-brand':
        await awaitBrand(cause);
        return;
      case 'checking':
        await check(cause);
        return;
      case 'creating':
        await create(cause);
        return;
      case 'refused':
      case 'awaiting-fee-approval':
        return;
      default:
        await reconcileCreated(cause);
    }
  };

  /**
   * Runs steps while the campaign moves on (awaiting-brand → checking → creating → sharing →
   * share-pending in one go), stopping at a fault, a final phase, or when `stopFor` says an operation
   * must run first.
   */
  const advance = async (cause: AuditCause, stopFor: () => boolean): Promise<void> => {
    for (let i = 0; i < MAX_STEPS; i++) {
      const before = status.phase;
      await step(i === 0 ? cause : stepCause(cause));
      if (final() || guarded.faulted || status.phase === before || stopFor()) return;
    }
  };
  const stepCause = (cause: AuditCause): AuditCause => (cause === 'start' ? 'poll' : cause);

  const reconcile = (cause: WakeCause | 'start') => advance(cause, () => queue.hasPending);

  // -------------------------------------------------------------------------------------------
  // Operations (run by the loop, in order)
  // -------------------------------------------------------------------------------------------

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
        ...failedBy(state.faults.last.failure),
        outcome: 'failed',
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

  /** The operation running now: a Temporal cancellation that interrupts it still answers it. */
  let inFlight: QueuedOperation<CampaignOperation> | undefined;
  const executeTracked = async (op: QueuedOperation<CampaignOperation>): Promise<OperationResult> => {
    inFlight = op;
    const result = await execute(op);
    inFlight = undefined;
    return result;
  };

  const execute = async (op: QueuedOperation<CampaignOperation>): Promise<OperationResult> => {
    if (!table[status.phase].allows.includes(op.kind))
      return { outcome: 'refused', detail: `${op.kind} is not possible in phase ${status.phase}` };
    switch (op.kind) {
      case 'approveFee': {
        const { approvedBy } = acceptedRequest<ApproveFeeRequest>(op);
        state.feeApproved = true;
        status.feeApprovedBy = approvedBy;
        books.clearAction('fee-approval');
        audit(
          'operator',
          'fee-approved',
          `by ${approvedBy}; expected monthly fee ${status.expectedMonthlyFee ?? 'unknown'}`,
        );
        setPhase('creating', 'operator');
        const call = await create('operator');
        if (call.ok) return { outcome: 'done', ids: { campaignId: call.value.campaignId } };
        return failedBy(call.failure);
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
          // The changed order is checked again from the start (the brand, then the checks).
          setPhase('awaiting-brand', 'operator');
          await advance('operator', cancelPending);
          return preCreationOutcome();
        }
        const campaignId = status.campaignId!;
        const updated = await guarded.call('update campaign', () =>
          writes.updateCampaign({ account, campaignId, patch: changes as CampaignUpdate }),
        );
        if (!updated.ok) {
          audit('operator', 'registry-refused', `update: ${updated.failure.message}`);
          return { ...failedBy(updated.failure), ids: { campaignId } };
        }
        audit('operator', 'campaign-updated', Object.keys(changes).join(', '));
        applySnapshot(updated.value, 'operator');
        if (final()) return { outcome: 'done', ids: { campaignId } };
        const shared = await share(status.upstreamCnpId, 'operator', true);
        return shared.kind === 'done'
          ? { outcome: 'done', ids: { campaignId } }
          : { ...failedBy(shared.failure), ids: { campaignId } };
      }
      case 'shareWith': {
        const { upstreamCnpId } = acceptedRequest<ShareWithRequest>(op);
        const shared = await share(upstreamCnpId, 'operator', false);
        return shared.kind === 'done'
          ? { outcome: 'done', ...(ids() ? { ids: ids()! } : {}) }
          : { ...failedBy(shared.failure), ...(ids() ? { ids: ids()! } : {}) };
      }
      case 'cancel': {
        const { reason } = acceptedRequest<CampaignCancelRequest>(op);
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
        audit('operator', 'acknowledged', key);
        return { outcome: 'done', ...(had ? {} : { detail: `${key} was already cleared` }) };
      }
    }
  };

  // -------------------------------------------------------------------------------------------
  // Messages: validate, enqueue, await the outcome
  // -------------------------------------------------------------------------------------------

  const submit = async (kind: CampaignOperation, request: unknown): Promise<CampaignOperationOutcome> =>
    (await queue.awaitOutcome(
      queue.enqueue(kind, request, { first: kind === 'cancel' }),
    )) as CampaignOperationOutcome;
  const allowed = (kind: CampaignOperation) => {
    if (status.phase === 'share-pending' && kind !== 'acknowledge') throw new Error(pendingShareRefusal());
    refuseUnlessAllowed(table, status.phase, kind);
  };
  const pendingShareRefusal = () =>
    `a share with ${status.sharing?.upstreamCnpId ?? status.upstreamCnpId} is PENDING: the registry does not allow changing or rescinding it until the partner decides`;

  setHandler(
    campaignStatusQuery,
    (): CampaignStatus => ({ ...status, pendingOperations: queue.pendingKinds() }),
  );

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
    if (!final())
      switch (event.eventType) {
        case 'CAMPAIGN_DCA_COMPLETE':
          state.dcaEventSeen = true;
          break;
        case 'CAMPAIGN_EXPIRED':
          if (/political/i.test(event.description ?? '')) state.politicalExpiryEventSeen = true;
          break;
        case 'MNO_CAMPAIGN_OPERATION_SUSPENDED':
          if (event.mnoId !== undefined)
            recordSuspension(String(event.mnoId), 'webhook', event.mnoName, event.description);
          else
            books.setAction(
              'suspended-unknown',
              'find which MNO suspended the campaign',
              event.description || 'an MNO suspended the campaign',
            );
          break;
        case 'CAMPAIGN_NUDGE': {
          const nudgeIntent = event.nudgeIntent || 'UNKNOWN';
          status.nudges.push({
            nudgeIntent,
            at: new Date(Date.now()).toISOString(),
            ...(event.description ? { description: event.description } : {}),
          });
          while (status.nudges.length > NUDGES_LIMIT) status.nudges.shift();
          books.setAction(
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

  // The brand's workflow tells us when the brand reaches ready (a hint; the readiness read decides).
  setHandler(brandReadySignal, () => wakeup.bump('workflow'));

  setHandler(approveFeeUpdate, (request) => submit('approveFee', request), {
    validator: (request) => {
      allowed('approveFee');
      const parsed = checkApproveFeeRequest(request);
      const max = parsed.maxMonthlyFee;
      if (max !== undefined && status.expectedMonthlyFee !== undefined && status.expectedMonthlyFee > max)
        throw new Error(
          `maxMonthlyFee: the expected monthly fee ${status.expectedMonthlyFee} is above the approved maximum ${max}`,
        );
      if (queue.pendingKinds().includes('approveFee')) throw new Error('an approveFee is already queued');
    },
  });

  setHandler(resubmitUpdate, (request) => submit('resubmit', request), {
    validator: (request) => {
      allowed('resubmit');
      checkResubmitRequest(request);
      if (status.created && status.phase !== 'share-declined' && !books.hasAction('share'))
        throw new Error(
          `resubmit applies before creation or after a declined or refused share; the campaign is ${status.phase}`,
        );
    },
  });

  setHandler(shareWithUpdate, (request) => submit('shareWith', request), {
    validator: (request) => {
      allowed('shareWith');
      const parsed = checkShareWithRequest(request);
      if (status.phase !== 'share-declined' && !books.hasAction('share'))
        throw new Error(
          `shareWith applies after a declined or refused share; the campaign is ${status.phase}`,
        );
      if (status.phase === 'share-declined' && status.sharing?.upstreamCnpId === parsed.upstreamCnpId)
        throw new Error(
          `upstreamCnpId: ${parsed.upstreamCnpId} declined this campaign; change it with resubmit to share with the same partner again`,
        );
    },
  });

  setHandler(cancelCampaignUpdate, (request) => submit('cancel', request), {
    validator: (request) => {
      allowed('cancel');
      checkCampaignCancelRequest(request);
      if (cancelPending()) throw new Error('a cancel is already queued');
    },
  });

  setHandler(acknowledgeUpdate, (request) => submit('acknowledge', request), {
    validator: (request) => {
      if (final()) throw new Error(`the workflow is ${status.phase} (final): acknowledge is not possible`);
      const { key } = checkAcknowledgeRequest(request);
      if (!books.hasAction(key)) throw new Error(`key: no needs-action entry ${key}`);
      if (!acknowledgeable(key))
        throw new Error(`key: ${key} is cleared by acting on it (see its action), not by acknowledging`);
    },
  });

  // -------------------------------------------------------------------------------------------
  // Run
  // -------------------------------------------------------------------------------------------

  if (!input.carried) {
    upsertSearchAttributes([
      { key: BrandReferenceKey, value: input.brandReference },
      { key: AccountKey, value: account },
    ]);
    audit(
      'start',
      'started',
      `account ${account}, brand ${input.brandReference}, partner ${input.upstreamCnpId}`,
    );
  }
  books.syncSearchAttributes();

  /** Poll schedules by phase: the brand's while awaiting it (hourly-ish once overdue), else pending. */
  const polls = {
    get pending(): BackoffSchedule {
      if (status.phase !== 'awaiting-brand') return pendingPoll;
      if (state.brandDeadline !== undefined && Date.now() >= state.brandDeadline)
        return { initialMs: steadyPollMs, maxMs: steadyPollMs };
      return brandPoll;
    },
    steadyMs: steadyPollMs,
  };

  const deadline = (): number | undefined => {
    const now = Date.now();
    if (status.phase === 'awaiting-brand')
      return state.brandDeadline !== undefined && state.brandDeadline > now ? state.brandDeadline : undefined;
    if (
      (status.phase === 'share-pending' || status.phase === 'awaiting-dca') &&
      state.decisionDeadline !== undefined &&
      !books.hasAction('decision-overdue')
    )
      return state.decisionDeadline;
    return undefined;
  };

  const onDeadline = () => {
    if (status.phase !== 'share-pending' && status.phase !== 'awaiting-dca') return;
    if (state.decisionDeadline === undefined || books.hasAction('decision-overdue')) return;
    const what = table[status.phase].waitsFor;
    audit('timer', 'decision-overdue', what);
    books.setAction(
      'decision-overdue',
      'contact the upstream partner / DCA',
      `no decision by ${new Date(state.decisionDeadline).toISOString()}: ${what}`,
    );
  };

  try {
    // Events the ingress parked for this campaign before the workflow existed. Claimed on every run.
    await claimParked(parkedEventsByReferenceWorkflowId('campaign', input.reference));
    await runEntityLoop({
      table,
      phase: () => status.phase,
      queue,
      wakeup,
      guarded,
      loop: state.loop,
      polls,
      execute: (op) => registry.at('operator', () => executeTracked(op)),
      reconcile: (cause) =>
        registry.at(
          wakePriority(cause, ['awaiting-brand', 'checking', 'creating'].includes(status.phase)),
          () => reconcile(cause),
        ),
      deadline,
      onDeadline,
      setWaitingFor: (w) => {
        if (w) status.waitingFor = w;
        else delete status.waitingFor;
      },
      continueAsNewAt: opts.continueAsNewAtHistoryLength ?? DEFAULT_CAMPAIGN_CONTINUE_AS_NEW_HISTORY_LENGTH,
      continueAsNew: () => {
        audit(
          'timer',
          'continue-as-new',
          `history length ${workflowInfo().historyLength}, run ${state.loop.runs}`,
        );
        state.deliveries = dedupe.toJSON();
        // The campaign fields travel only inside the state, and only until the campaign is created.
        const { campaign: _atStart, ...next } = input;
        return continueAsNew<typeof campaignWorkflow>({ ...next, carried: state });
      },
    });
  } catch (error) {
    if (!isCancellation(error)) throw error;
    // A Temporal cancellation (Web UI, `temporal workflow cancel`): the same path as the operator's
    // cancel, after a billed create in flight has finished and been recorded.
    await CancellationScope.nonCancellable(async () => {
      if (inFlight) {
        const op = inFlight;
        inFlight = undefined;
        queue.complete({
          id: op.id,
          operation: op.kind,
          outcome: 'cancelled',
          phase: 'cancelled',
          detail: 'cancelled through Temporal',
        });
      }
      cancel('cancelled through Temporal', 'operator');
    });
  }
  // Operations still queued when a final phase was reached get their answer, and every handler
  // returns it before the workflow ends.
  queue.drain(status.phase, 'cancelled', `the campaign is ${status.phase}`);
  delete status.waitingFor;
  await CancellationScope.nonCancellable(() => condition(allHandlersFinished));
  return {
    phase: status.phase,
    ...(status.campaignId ? { campaignId: status.campaignId } : {}),
    billed: status.created,
    status: { ...status, pendingOperations: [] },
  };
}
