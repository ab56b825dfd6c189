/**
 * The campaign's registry steps, called by the loop only (from `reconcile`, and from the operations it
 * runs): adopt by reference, await the brand, check, create (billed once), share, read and reconcile
 * a created campaign. `advance` runs steps while the campaign moves on.
 */
import {
  CancellationScope,
  condition,
  getExternalWorkflowHandle,
  isCancellation,
  patched,
} from '@temporalio/workflow';
import type { CampaignContent, UpstreamPartnerCheck } from '../../contracts/campaign.js';
import type { CampaignCreatedResult, SharingSnapshot } from '../../contracts/campaign-activity-types.js';
import {
  brandWorkflowId,
  campaignWorkflowId,
  legacyEntityWorkflowId,
  parkedEventsWorkflowId,
} from '../../contracts/ids.js';
import { watchBrandReadinessSignal } from '../../contracts/signals.js';
import { subUsecaseIssues } from '../../registry/rules.js';
import { describeMnoRefusals, mnoViews } from '../campaign-mno.js';
import type { AuditCause } from '../entity/audit.js';
import { parkedAccount } from '../entity/claim-parked.js';
import type { CallResult } from '../entity/registry-call.js';
import { type RegistryFailure, requestRefusalClasses } from '../entity/registry-failure.js';
import {
  type BackoffSchedule,
  backoffDelay,
  DAY_MS,
  GROWING_POLL,
  HOUR_MS,
  type WakeCause,
} from '../entity/wait.js';
import { PATCHES } from '../patches.js';
import type { CampaignApply } from './apply.js';
import type { CampaignContext } from './context.js';
import {
  adoptExistingShare,
  deriveDcaComplete,
  deriveDeactivated,
  deriveReadiness,
  madeByThisShare,
  needsBrandWordOnExpiry,
  politicalDeactivation,
  unknownPartnerRefusal,
} from './derive.js';
import { preCreationPhases } from './phases.js';

/** How long a Temporal cancellation of a created campaign tries to turn its renewal off. */
export const RENEWAL_OFF_AT_END = '2 minutes';

/**
 * When an unacknowledged brand-readiness watch is sent again (patch brand-watch-resent): 1 minute
 * doubling to hourly for a day (brands are usually ordered right after their campaigns), then every
 * 6 hours (a brand never ordered costs 4 signals a day, and the 'brand' needs-action says so).
 */
export const WATCH_RESEND: BackoffSchedule = {
  ...GROWING_POLL,
  tail: { afterMs: DAY_MS, everyMs: 6 * HOUR_MS },
};

/** Steps one reconciliation runs at most (each moves the campaign one phase on). */
const MAX_STEPS = 10;

export type ShareResult = { kind: 'done' } | { kind: 'refused' | 'failed'; failure: RegistryFailure };

export function campaignSteps(ctx: CampaignContext, apply: CampaignApply) {
  const { input, brandReadyDeadlineMs, reads, writes, account, self, state, status, queue, books } = ctx;
  const { guarded, audit, final, applyAction, setPhase, read, spec, claimParked } = ctx;
  const { refuse, applySnapshot, applyCreated, applySharing, applyReadiness, checkReadiness } = apply;

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

  /**
   * Asks the brand workflow to tell this campaign when it is ready; true once the signal reached it
   * (the brand keeps the watcher, or answers at once when ready). The brand under this campaign's
   * account; a campaign under a legacy id (opened by an earlier release) watches the legacy brand id,
   * as it did (recorded histories replay the same signal).
   */
  const sendWatch = (): Promise<boolean> => {
    const brand =
      self === campaignWorkflowId(account, input.reference)
        ? brandWorkflowId(account, input.brandReference)
        : legacyEntityWorkflowId('brand', input.brandReference);
    return getExternalWorkflowHandle(brand)
      .signal(watchBrandReadinessSignal, { watcherWorkflowId: self })
      .then(
        () => true,
        (error: unknown) => {
          if (isCancellation(error)) throw error;
          return false; // no brand workflow (yet), or it has ended
        },
      );
  };

  /** This run's watch: acknowledged (the signal reached the brand), or being re-sent. */
  const watch = { acknowledged: false, resending: false };

  /**
   * Re-sends the watch while the campaign awaits its brand (WATCH_RESEND), with no registry call: a
   * campaign ordered before its brand learns its readiness within the hour (6 hours after a day)
   * after the brand workflow starts, not at its next 2-day poll. Ends when the signal is
   * acknowledged, the campaign leaves awaiting-brand or the workflow is cancelled.
   */
  const resendWatch = async (): Promise<void> => {
    watch.resending = true;
    try {
      for (let attempt = 0; !watch.acknowledged; attempt++) {
        const left = await condition(
          () => status.phase !== 'awaiting-brand',
          backoffDelay(WATCH_RESEND, attempt),
        );
        if (left) return;
        watch.acknowledged = await sendWatch();
      }
      state.watchingBrand = true;
    } catch {
      // Cancelled with the workflow: its cancellation path ends the campaign.
    } finally {
      watch.resending = false;
    }
  };

  const watchBrand = async () => {
    // Behind its patch: campaigns recorded before it sent the watch once, marked before it succeeded.
    if (patched(PATCHES.brandWatchResent)) {
      // Each run sends it once (the brand keeps a watcher once), then re-sends it until acknowledged.
      if (watch.acknowledged || watch.resending) return;
      watch.acknowledged = await sendWatch();
      if (watch.acknowledged) state.watchingBrand = true;
      else void resendWatch();
      return;
    }
    if (state.watchingBrand) return;
    state.watchingBrand = true;
    await sendWatch();
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

  /**
   * The upstream partner as the registry's lists show it (the worker's cached `/enum/cnp` and
   * `/enum/dca`). `reuse`: a listed partner checked before is not read again. Undefined on a fault.
   */
  const checkPartner = async (
    upstreamCnpId: string,
    reuse: boolean,
  ): Promise<CallResult<UpstreamPartnerCheck>> => {
    const known = status.partner;
    if (reuse && known?.upstreamCnpId === upstreamCnpId && known.listed) return { ok: true, value: known };
    const got = await read('check upstream partner', () =>
      reads.checkUpstreamPartner({ account, upstreamCnpId }),
    );
    if (got.ok) status.partner = got.value;
    return got;
  };

  /**
   * Applies the registry's share. An ACCEPTED one asks first whether its partner is a DCA (spec:
   * "once a DCA accepts, the campaign may run"). False on a fault (nothing applied).
   */
  const applySharingChecked = async (
    record: SharingSnapshot | null,
    cause: AuditCause,
  ): Promise<{ ok: true } | { ok: false; failure: RegistryFailure }> => {
    let partnerIsDca: boolean | undefined;
    if (record?.sharingStatus === 'ACCEPTED' && status.phase !== 'running' && spec()) {
      const partner = await checkPartner(record.upstreamCnpId || status.upstreamCnpId, true);
      if (!partner.ok) return partner;
      partnerIsDca = partner.value.dca;
    }
    applySharing(record, cause, partnerIsDca);
    return { ok: true };
  };

  /** Reads the share and applies it (`applySharingChecked`). */
  const readAndApplySharing = async (
    cause: AuditCause,
  ): Promise<{ ok: true; record: SharingSnapshot | null } | { ok: false }> => {
    const campaignId = status.campaignId!;
    const sharing = await read('read campaign sharing', () =>
      reads.getCampaignSharing({ account, campaignId }),
    );
    if (!sharing.ok || !(await applySharingChecked(sharing.value, cause)).ok) return { ok: false };
    return { ok: true, record: sharing.value };
  };

  /** Before any money: the order's partner must be one the registry lists. */
  const partnerListed = async (cause: AuditCause): Promise<boolean | 'fault'> => {
    const checked = await checkPartner(status.upstreamCnpId, false);
    if (!checked.ok) return 'fault';
    const partner = checked.value;
    if (partner.listed) {
      books.clearAction('partner');
      return true;
    }
    const { reason, action } = unknownPartnerRefusal(partner.upstreamCnpId, partner.checkedAt);
    status.refusal = { reason, details: [] };
    audit(cause, 'refused', reason);
    books.setAction('partner', action, reason);
    setPhase('refused', cause, `unknown upstream partner ${partner.upstreamCnpId}`);
    return false;
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
    if (spec()) {
      const listed = await partnerListed(cause);
      if (listed !== true) return;
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
      const applied = await applySharingChecked(existing.value, cause);
      return applied.ok ? { kind: 'done' } : { kind: 'failed', failure: applied.failure };
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
    // The refusal may be of the share this very call made: an attempt that committed and whose answer
    // was lost (a timeout, a 5xx after the commit, a worker killed mid-call) is retried, and the registry
    // refuses the retry because the share it made is PENDING. The share read above showed none to adopt,
    // so one there now with this partner is that attempt's: adopt it instead of asking an operator.
    if (patched(PATCHES.shareRefusalReadsBack)) {
      const after = await read('read campaign sharing', () =>
        reads.getCampaignSharing({ account, campaignId }),
      );
      if (!after.ok) return { kind: 'failed', failure: after.failure };
      if (after.value && madeByThisShare(after.value, upstreamCnpId)) {
        status.upstreamCnpId = upstreamCnpId;
        delete state.decisionDeadline;
        audit(
          cause,
          resubmission ? 'resubmitted' : 'shared',
          `${upstreamCnpId} (the registry refused a retry: ${call.failure.message})`,
        );
        const applied = await applySharingChecked(after.value, cause);
        return applied.ok ? { kind: 'done' } : { kind: 'failed', failure: applied.failure };
      }
    }
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

  /**
   * An adopted campaign (tcr import) with no partner of its own: the registry's share names it. Nothing
   * is shared from here; a campaign never shared waits for the operator's shareWith.
   */
  const adoptShare = async (cause: AuditCause): Promise<void> => {
    const campaignId = status.campaignId!;
    const sharing = await read('read campaign sharing', () =>
      reads.getCampaignSharing({ account, campaignId }),
    );
    if (!sharing.ok) return;
    if (!sharing.value) {
      books.setAction(
        'share',
        'shareWith a partner',
        'adopted: the registry shows no share of this campaign',
      );
      return;
    }
    if (sharing.value.upstreamCnpId) status.upstreamCnpId = sharing.value.upstreamCnpId;
    books.clearAction('share');
    await applySharingChecked(sharing.value, cause);
  };

  /** PUT autoRenewal=false on the created campaign (an update, nothing billed). */
  const putRenewalOff = () =>
    guarded.call('turn renewal off', () =>
      writes.updateCampaign({ account, campaignId: status.campaignId!, patch: { autoRenewal: false } }),
    );

  /**
   * winding-down: renewal off at the registry (PUT autoRenewal=false; an update, nothing billed), until
   * the registry answers autoRenewal false. A fault is retried by the loop (needs-action while it
   * lasts); a registry that answers autoRenewal still true raises needs-action `renewal-on`, never
   * silently done. Returns the call's result (undefined when renewal was already off).
   */
  const turnRenewalOff = async (cause: AuditCause): Promise<CallResult<unknown> | undefined> => {
    if (status.renewalOff) return undefined;
    const call = await putRenewalOff();
    if (!call.ok) {
      audit(cause, 'registry-refused', `autoRenewal=false: ${call.failure.message}`);
      return call;
    }
    applySnapshot(call.value, cause);
    renewalOffIfRead(cause);
    if (!status.renewalOff)
      books.setAction(
        'renewal-on',
        'turn auto-renewal off in the registry portal (the campaign keeps renewing and being billed), then acknowledge',
        `the registry answered autoRenewal ${String(call.value.autoRenewal)} to PUT autoRenewal=false`,
      );
    return call;
  };

  /**
   * A Temporal cancellation (Web UI, `temporal workflow cancel`) of a created campaign ends the
   * workflow: nothing watches the campaign after it, so renewal goes off at the registry first (patch
   * campaign-cancel-renewal-off). Bounded, so a cancel never hangs: a registry that has not taken the
   * PUT within RENEWAL_OFF_AT_END lets the cancellation end anyway. The registry's answer is recorded
   * but decides no phase (the workflow is ending). Returns why renewal may still be on, if it may.
   */
  const renewalOffAtEnd = async (): Promise<string | undefined> => {
    if (status.renewalOff) return undefined;
    if (state.snapshot?.autoRenewal === false) {
      status.renewalOff = true;
      return undefined;
    }
    let call: Awaited<ReturnType<typeof putRenewalOff>>;
    try {
      call = await CancellationScope.withTimeout(RENEWAL_OFF_AT_END, putRenewalOff);
    } catch (error) {
      if (!isCancellation(error)) throw error;
      audit('operator', 'registry-refused', `autoRenewal=false: no answer within ${RENEWAL_OFF_AT_END}`);
      return `the registry did not take PUT autoRenewal=false within ${RENEWAL_OFF_AT_END} of the cancellation`;
    }
    if (!call.ok) {
      audit('operator', 'registry-refused', `autoRenewal=false: ${call.failure.message}`);
      return `PUT autoRenewal=false failed: ${call.failure.message}`;
    }
    state.snapshot = call.value;
    if (call.value.autoRenewal !== null && call.value.autoRenewal !== undefined)
      status.autoRenewal = call.value.autoRenewal;
    if (call.value.nextRenewalOrExpirationDate)
      status.nextRenewalOrExpirationDate = call.value.nextRenewalOrExpirationDate;
    if (call.value.autoRenewal !== false)
      return `the registry answered autoRenewal ${String(call.value.autoRenewal)} to PUT autoRenewal=false`;
    status.renewalOff = true;
    const until = status.nextRenewalOrExpirationDate;
    audit('operator', 'renewal-off', until ? `expires ${until}` : undefined);
    return undefined;
  };

  /** winding-down: the registry's record shows renewal off: the cancel's intent holds. */
  const renewalOffIfRead = (cause: AuditCause) => {
    if (status.phase !== 'winding-down' || status.renewalOff || state.snapshot?.autoRenewal !== false) return;
    status.renewalOff = true;
    books.clearAction('renewal-on');
    const until = status.nextRenewalOrExpirationDate;
    audit(cause, 'renewal-off', until ? `expires ${until}` : undefined);
  };

  /** Set while an adopted campaign's first reconciliation runs: the list's record is that fresh. */
  let adoptedRecordFresh = false;

  /** The steady reconciliation of a created campaign. */
  const reconcileCreated = async (cause: AuditCause): Promise<void> => {
    if ((!adoptedRecordFresh && !(await readCampaign(cause))) || final()) return;
    switch (status.phase) {
      case 'sharing':
        // Adopted without a partner: read the share on every wake (it may have been shared since).
        if (!status.upstreamCnpId) await adoptShare(cause);
        else if (!books.hasAction('share')) await share(status.upstreamCnpId, cause, false);
        break;
      case 'share-pending':
      case 'awaiting-dca':
        if (!(await readAndApplySharing(cause)).ok) return;
        break;
      case 'winding-down':
        renewalOffIfRead(cause);
        await turnRenewalOff(cause);
        return;
      default:
        break;
    }
    const dca = deriveDcaComplete({ phase: status.phase }, state.snapshot, state.dcaEventSeen, !spec());
    if (dca.phase !== status.phase) {
      status.dcaComplete = true;
      delete state.decisionDeadline;
      books.clearAction('decision-overdue');
      books.clearAction('dca-unconfirmed');
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
      await claimParked(parkedEventsWorkflowId('campaign', status.campaignId!, parkedAccount(account)));
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
      await step(cause);
      if (final() || guarded.faulted || status.phase === before || stopFor()) return;
    }
  };

  const reconcile = (cause: WakeCause | 'start') => advance(cause, () => queue.hasPending);

  /** The first reconciliation of an adopted campaign: its record is the list's, read just now. */
  const reconcileAdopted = async (): Promise<void> => {
    adoptedRecordFresh = true;
    try {
      await reconcile('start');
    } finally {
      adoptedRecordFresh = false;
    }
  };

  return {
    create,
    share,
    advance,
    reconcile,
    reconcileAdopted,
    readAndApplySharing,
    turnRenewalOff,
    renewalOffAtEnd,
  };
}

export type CampaignSteps = ReturnType<typeof campaignSteps>;
