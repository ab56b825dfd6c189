/**
 * brandWorkflow: one brand's whole life at the registry, id `brand/{reference}`.
 *
 * registering (billed once: the registry is searched by referenceId before any POST) →
 * [awaiting-contact-verification: PUBLIC_PROFIT; GOVERNMENT from 2027-01-21 by workflow time] →
 * identity: VERIFIED / VETTED_VERIFIED → ready; UNVERIFIED → needs-correction (correctBrand + revet,
 * or appeal → appeal-pending); SELF_DECLARED sole proprietors → awaiting-sole-proprietor-verification.
 * Then it stays as the brand's entity: events, operator operations, vets (child workflows), a slow
 * reconciliation, continue-as-new; it ends `deleted` when the registry confirms the brand is gone,
 * or `cancelled`.
 *
 * Built on the entity loop (../entity/loop.ts): handlers validate and enqueue; only the loop calls the
 * registry, one call at a time. Decisions are plain functions (./derive.ts); phases and what they
 * allow are one table (./phases.ts); the state is one object (./state.ts).
 */
import {
  ApplicationFailure,
  allHandlersFinished,
  CancellationScope,
  type ChildWorkflowHandle,
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  isCancellation,
  ParentClosePolicy,
  setHandler,
  sleep,
  startChild,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { BrandSnapshot } from '../../contracts/activity-types.js';
import {
  brandUpdateGroups,
  groupsOfPatch,
  nextGroup3UpdateAllowedAt,
} from '../../registry/brand-update-groups.js';
import type { BrandUpdate } from '../../registry/schemas.js';
import {
  appealUpdate,
  brandStatusQuery,
  cancelUpdate,
  correctBrandUpdate,
  importVetUpdate,
  orderVetUpdate,
  revetUpdate,
  stopVetSignal,
  vetProgressSignal,
} from '../brand-definitions.js';
import type {
  AppealRequest,
  CancelRequest,
  CorrectBrandRequest,
  ImportVetRequest,
  OrderVetRequest,
} from '../brand-messages.js';
import type { BrandPhase, BrandResult, BrandStatus, BrandWorkflowInput, VetStatus } from '../brand-types.js';
import type { AuditCause } from '../entity/audit.js';
import { EntityBookkeeping } from '../entity/bookkeeping.js';
import { DeliveryDedupe } from '../entity/delivery-dedupe.js';
import { type OperationResult, runEntityLoop } from '../entity/loop.js';
import {
  acceptedRequest,
  type OperationOutcome,
  OperationQueue,
  type QueuedOperation,
} from '../entity/operations.js';
import { guardedPhase, refuseUnlessAllowed } from '../entity/phases.js';
import { type CallResult, GuardedRegistry } from '../entity/registry-call.js';
import { requestRefusalClasses } from '../entity/registry-failure.js';
import { registryStubs, wakePriority } from '../entity/stubs.js';
import { DEFAULT_PENDING_POLL, DEFAULT_STEADY_POLL_MS, type WakeCause, Wakeup } from '../entity/wait.js';
import { parkedEventsByReferenceWorkflowId, parkedEventsWorkflowId, vetWorkflowId } from '../ids.js';
import {
  checkAppealRequest,
  checkCancelRequest,
  checkCorrectBrandRequest,
  checkImportVetRequest,
  checkOrderVetRequest,
} from '../request-checks.js';
import { AccountKey, BrandIdKey, BrandReferenceKey } from '../search-attributes.js';
import {
  brandReadySignal,
  claimParkedEventsSignal,
  registryEventSignal,
  watchBrandReadinessSignal,
} from '../signals.js';
import {
  DEFAULT_VET_GRACE_MS,
  DEFAULT_VET_RESULT_WINDOW_MS,
  type VetRequest,
  vetWorkflow,
} from '../vet/workflow.js';
import {
  type ActionChange,
  deriveBrandPhase,
  eventConcernsVet,
  hasPoliticalAccessByTaxStatus,
  NOT_FOUND_CONFIRM_MS,
  newlyExpiredVets,
  notFoundVerdict,
  vetAction,
  vetInProgress,
  vetsNeedingEnhancedFollowUp,
} from './derive.js';
import { type BrandOperation, brandPhases } from './phases.js';
import { type BrandState, initialBrandState } from './state.js';

export const DEFAULT_CONTINUE_AS_NEW_HISTORY_LENGTH = 10_000;

/** A first run's input must carry the registration (the order API always sends it). */
function withRegistration(
  input: BrandWorkflowInput,
): BrandWorkflowInput & { registration: NonNullable<BrandWorkflowInput['registration']> } {
  if (!input.registration)
    throw ApplicationFailure.nonRetryable(
      'a brand workflow starts with its registration (BrandWorkflowInput.registration)',
      'InvalidWorkflowInput',
    );
  return { ...input, registration: input.registration };
}
/** How long an ending brand waits for the vets it stopped to close. */
const CHILD_SETTLE_MS = 10 * 60 * 1000;
const WATCHERS_LIMIT = 1_000;
const ALERTS_LIMIT = 20;

export async function brandWorkflow(input: BrandWorkflowInput): Promise<BrandResult> {
  const opts = input.options ?? {};
  const registry = registryStubs(input.account);
  const { reads, writes } = registry;
  const self = workflowInfo().workflowId;
  /** Vet workflows this run started (children send their completion to the run that started them). */
  const childrenOfThisRun = new Map<string, ChildWorkflowHandle<typeof vetWorkflow>>();
  const state: BrandState = input.carried ?? initialBrandState(withRegistration(input));
  if (input.carried) state.status.runs = ++state.loop.runs;
  const status = state.status;
  const wakeup = new Wakeup();
  const queue = new OperationQueue<BrandOperation>(state.queue, wakeup);
  const dedupe = new DeliveryDedupe(state.deliveries, opts.dedupeLimit);
  const books = new EntityBookkeeping(status, BrandIdKey, () => status.brandId, opts.auditLimit);
  const guarded = new GuardedRegistry(state.faults, books);
  const audit = books.audit.bind(books);
  const account = input.account;
  const final = () => brandPhases[status.phase].final;

  const applyAction = (key: string, change: ActionChange) => {
    if (change.set) books.setAction(key, change.action, change.reason, change.registryErrors);
    else books.clearAction(key);
  };

  const setPhase = (proposed: BrandPhase, cause: AuditCause, detail?: string) => {
    const phase = guardedPhase(brandPhases, status.phase, proposed);
    if (status.phase !== phase) {
      audit(cause, 'phase', detail, status.phase, phase);
      status.phase = phase;
      state.loop.pollAttempt = 0;
      if (phase === 'ready' && state.readinessWatchers.length > 0) {
        notifyWatchers(state.readinessWatchers);
        state.readinessWatchers = [];
      }
    }
    books.syncSearchAttributes();
  };

  const notifyWatchers = (watchers: string[]) => {
    for (const watcher of watchers)
      void getExternalWorkflowHandle(watcher)
        .signal(brandReadySignal, { brandReference: input.reference })
        .catch(() => undefined); // a watcher that has gone needs nothing
  };

  /** Records the registry's brand record and derives the phase from it. */
  const applySnapshot = (b: BrandSnapshot, cause: AuditCause) => {
    const previousIdentity = status.identityStatus;
    state.snapshot = b;
    status.brandId = b.brandId;
    status.entityType = b.entityType || status.entityType;
    status.brandStatus = b.status;
    status.identityStatus = b.identityStatus;
    status.optionalAttributes = b.optionalAttributes ?? {};
    if (b.businessContactEmailVerifiedDate) status.contactVerifiedAt = b.businessContactEmailVerifiedDate;
    else delete status.contactVerifiedAt;
    if (previousIdentity !== undefined && previousIdentity !== b.identityStatus)
      audit(cause, 'identity-status', undefined, previousIdentity, b.identityStatus);
    if (final()) return;
    const decision = deriveBrandPhase(b, {
      entityType: status.entityType,
      appealPending: state.appealPending,
      now: Date.now(),
    });
    if (decision.appealOver) state.appealPending = false;
    applyAction('identity', decision.identity);
    setPhase(decision.phase, cause, decision.detail);
  };

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
  // Registry steps (called by the loop only)
  // -------------------------------------------------------------------------------------------

  /** Registers the brand (the client searches by referenceId first: a re-order adopts, never pays twice). */
  const register = async (cause: AuditCause): Promise<CallResult<BrandSnapshot>> => {
    const registration = state.registration;
    if (!registration) throw new Error('registering without a registration'); // unreachable by construction
    const call = await guarded.call('register brand', () => writes.registerBrand({ account, registration }), {
      billed: true,
    });
    if (call.ok) {
      books.clearAction('registration');
      audit(cause, 'registered', call.value.brandId);
      delete state.registration;
      applySnapshot(call.value, cause);
      await claimParked(parkedEventsWorkflowId('brand', call.value.brandId));
    } else if (requestRefusalClasses.includes(call.failure.class)) {
      books.setAction(
        'registration',
        'correctBrand with corrected registration fields, or cancel',
        call.failure.message,
        call.failure.errors,
      );
      setPhase('registration-rejected', cause, call.failure.message);
    }
    return call;
  };

  const readBrand = async (cause: AuditCause): Promise<void> => {
    const brandId = status.brandId!;
    const read = await guarded.read('read brand', () => reads.getBrand({ account, brandId }));
    if (read.ok) {
      delete state.first404At;
      applySnapshot(read.value, cause);
      return;
    }
    if (read.failure.class !== 'not-found') return;
    const now = Date.now();
    state.first404At ??= now;
    let list: 'absent' | 'present' | 'failed' | 'not-asked' = 'not-asked';
    let listed: BrandSnapshot | null = null;
    if (now - state.first404At >= NOT_FOUND_CONFIRM_MS) {
      const found = await guarded.read('confirm brand by reference', () =>
        reads.findBrandByReference({ account, referenceId: input.reference }),
      );
      list = found.ok ? (found.value ? 'present' : 'absent') : 'failed';
      if (found.ok) listed = found.value;
    }
    const verdict = notFoundVerdict({ first404At: state.first404At, now, list });
    if (verdict === 'deleted') {
      status.brandStatus = 'NOT_FOUND';
      setPhase(
        'deleted',
        cause,
        'the registry no longer knows the brand: 404 twice, and absent from its list',
      );
    } else if (verdict === 'present' && listed) {
      delete state.first404At;
      audit(cause, 'brand-found-by-reference', `${brandId} → ${listed.brandId}`);
      applySnapshot(listed, cause);
    } else if (!guarded.faulted) {
      // The list answered (and cleared the fault) but the 404 is not confirmed yet: still a fault.
      guarded.fault('read brand', read.failure);
    }
  };

  const checkVetExpiry = async (cause: AuditCause): Promise<void> => {
    if (!status.vets.some((v) => v.state === 'active')) return;
    const read = await guarded.read('read vets', () =>
      reads.listExternalVets({ account, brandId: status.brandId! }),
    );
    if (!read.ok) return;
    for (const vet of newlyExpiredVets(status.vets, read.value)) {
      audit(cause, 'vet', `#${vet.seq} expired`, vet.state, 'expired');
      vet.state = 'expired';
      const political = vet.vettingClass === 'POLITICAL';
      if (political) status.politicalCampaignsAffected = true;
      status.alerts.push(
        `vet #${vet.seq} (${vet.evpId} ${vet.vettingClass ?? ''}) expired at ${new Date(Date.now()).toISOString()}` +
          (political ? ': the registry deactivates political campaigns after an expired political vet' : ''),
      );
      while (status.alerts.length > ALERTS_LIMIT) status.alerts.shift();
      books.setAction(`vet-${vet.seq}`, 're-apply: order or import a new vet', `vet #${vet.seq} EXPIRED`);
    }
  };

  const startVet = async (
    request: VetRequest,
    cause: AuditCause,
    followUpOf?: number,
  ): Promise<VetStatus> => {
    const seq = ++state.vetSeq;
    const workflowId = vetWorkflowId(input.reference, request.evpId, seq);
    const resultWindowMs = opts.vetResultWindowMs ?? DEFAULT_VET_RESULT_WINDOW_MS;
    const graceMs = opts.vetGraceMs ?? DEFAULT_VET_GRACE_MS;
    const vet: VetStatus = {
      seq,
      workflowId,
      mode: request.mode,
      evpId: request.evpId,
      state: 'ordering',
      deadline: new Date(Date.now() + resultWindowMs + graceMs).toISOString(),
      ...(request.mode === 'order'
        ? { vettingClass: request.vettingClass }
        : { vettingId: request.vettingId }),
      ...(followUpOf !== undefined ? { followUpOf } : {}),
    };
    status.vets.push(vet);
    audit(
      cause,
      request.mode === 'order' ? 'vet-ordered' : 'vet-imported',
      `#${seq} ${request.evpId} ${vet.vettingClass ?? ''}`.trim(),
    );
    const child = await startChild(vetWorkflow, {
      workflowId,
      // The vet outlives a continue-as-new of the brand and reports by workflow id.
      parentClosePolicy: ParentClosePolicy.ABANDON,
      args: [
        {
          brandWorkflowId: self,
          account,
          brandId: status.brandId!,
          seq,
          request,
          resultWindowMs,
          graceMs,
          ...(opts.vetPoll ? { poll: opts.vetPoll } : {}),
        },
      ],
    });
    childrenOfThisRun.set(workflowId, child);
    return vet;
  };

  const reconcile = async (cause: WakeCause | 'start'): Promise<void> => {
    switch (status.phase) {
      case 'registering':
        await register(cause);
        return;
      case 'registration-rejected':
        return;
      default:
        await readBrand(cause);
        if (final()) return;
        await checkVetExpiry(cause);
        for (const vet of vetsNeedingEnhancedFollowUp(status.vets, opts.enhancedVetPolicy)) {
          vet.followUpOrdered = true;
          const policy = opts.enhancedVetPolicy!;
          audit(cause, 'enhanced-vet-policy', `vet #${vet.seq} scored ${vet.score} < ${policy.belowScore}`);
          await startVet({ mode: 'order', evpId: policy.evpId, vettingClass: 'ENHANCED' }, cause, vet.seq);
        }
    }
  };

  // -------------------------------------------------------------------------------------------
  // Operations (run by the loop, in order)
  // -------------------------------------------------------------------------------------------

  const refusedBy = (what: string, call: Extract<CallResult<unknown>, { ok: false }>): OperationResult => {
    audit('operator', 'registry-refused', `${what}: ${call.failure.message}`);
    return {
      outcome: requestRefusalClasses.includes(call.failure.class) ? 'refused' : 'failed',
      detail: call.failure.message,
      ...(call.failure.errors.length > 0 ? { registryErrors: call.failure.errors } : {}),
    };
  };

  const revet = async (): Promise<OperationResult> => {
    const call = await guarded.call('revet', () => writes.revetBrand({ account, brandId: status.brandId! }));
    if (!call.ok) return refusedBy('revet', call);
    state.appealPending = false;
    audit('operator', 'revet', `identity status ${call.value.identityStatus}`);
    applySnapshot(call.value, 'operator');
    return { outcome: 'done', detail: `identity status ${call.value.identityStatus}` };
  };

  const correct = async (patch: BrandUpdate, revetAfter: boolean): Promise<OperationResult> => {
    if (status.phase === 'registration-rejected' || status.phase === 'registering') {
      state.registration = {
        ...state.registration!,
        ...patch,
        referenceId: input.reference,
      } as typeof state.registration & {};
      audit('operator', 'registration-corrected', Object.keys(patch).join(', '));
      books.clearAction('registration');
      setPhase('registering', 'operator');
      const call = await register('operator');
      if (call.ok) return { outcome: 'done', ids: { brandId: call.value.brandId } };
      return refusedBy('register', call);
    }
    const groups = groupsOfPatch(patch);
    if (groups.includes(1)) {
      const active = await guarded.read('count active campaigns', () =>
        reads.countActiveCampaigns({ account, brandId: status.brandId! }),
      );
      if (!active.ok) return refusedBy('count active campaigns', active);
      if (active.value > 0)
        return {
          outcome: 'refused',
          detail: `group 1 fields may change only while the brand has no active campaigns (it has ${active.value})`,
        };
    }
    const call = await guarded.call('update brand', () =>
      writes.updateBrand({ account, brandId: status.brandId!, patch }),
    );
    if (!call.ok) return refusedBy('update', call);
    audit('operator', 'brand-updated', `${Object.keys(patch).join(', ')} (groups ${groups.join(', ')})`);
    if (groups.includes(3)) status.lastGroup3UpdateAt = new Date(Date.now()).toISOString();
    applySnapshot(call.value, 'operator');
    if (revetAfter) {
      if (status.identityStatus === 'UNVERIFIED') return revet();
      audit('operator', 'revet-skipped', `identity status ${status.identityStatus}`);
    }
    return { outcome: 'done', detail: `identity status ${status.identityStatus}` };
  };

  /**
   * Before the brand ends: stops its vets still in progress and waits (at most CHILD_SETTLE_MS) for
   * those this run started to close, so the brand's last workflow task does not race their completion
   * events. Vets started by an earlier run are not this run's children: the stop signal suffices.
   */
  const stopVets = async (reason: string): Promise<void> => {
    for (const vet of status.vets.filter(vetInProgress))
      await getExternalWorkflowHandle(vet.workflowId)
        .signal(stopVetSignal, { reason })
        .catch(() => undefined); // a vet that has ended needs nothing
    const closing = [...childrenOfThisRun.values()].map((child) => child.result().catch(() => undefined));
    if (closing.length > 0) await Promise.race([Promise.all(closing), sleep(CHILD_SETTLE_MS)]);
  };

  const cancel = async (reason: string, cause: AuditCause): Promise<void> => {
    status.cancelReason = reason;
    for (const action of [...status.needsAction]) books.clearAction(action.key);
    setPhase('cancelled', cause, reason);
    queue.drain('cancelled', 'cancelled', 'the brand was cancelled');
    await stopVets(`brand cancelled: ${reason}`);
  };

  const execute = async (op: QueuedOperation<BrandOperation>): Promise<OperationResult> => {
    if (!brandPhases[status.phase].allows.includes(op.kind))
      return { outcome: 'refused', detail: `${op.kind} is not possible in phase ${status.phase}` };
    switch (op.kind) {
      case 'correctBrand': {
        const { patch, revet: revetAfter } = acceptedRequest<CorrectBrandRequest>(op);
        return correct(patch, revetAfter === true);
      }
      case 'revet':
        if (status.identityStatus !== 'UNVERIFIED')
          return { outcome: 'refused', detail: `the brand is ${status.identityStatus}, not UNVERIFIED` };
        return revet();
      case 'appeal': {
        const request = acceptedRequest<AppealRequest>(op);
        const appeal = { ...request, attachmentUuids: request.attachmentUuids ?? [] };
        const call = await guarded.call('appeal', () =>
          writes.appealBrand({ account, brandId: status.brandId!, appeal }),
        );
        if (!call.ok) return refusedBy('appeal', call);
        state.appealPending = status.identityStatus === 'UNVERIFIED';
        audit('operator', 'appealed', appeal.appealCategories.join(', '));
        if (state.snapshot) applySnapshot(state.snapshot, 'operator');
        return { outcome: 'done' };
      }
      case 'orderVet': {
        const order = acceptedRequest<OrderVetRequest>(op);
        const vet = await startVet(
          { mode: 'order', evpId: order.evpId, vettingClass: order.vettingClass },
          'operator',
        );
        return { outcome: 'done', ids: { vetSeq: String(vet.seq), vetWorkflowId: vet.workflowId } };
      }
      case 'importVet': {
        const imp = acceptedRequest<ImportVetRequest>(op);
        const vet = await startVet(
          {
            mode: 'import',
            evpId: imp.evpId,
            vettingId: imp.vettingId,
            ...(imp.vettingToken ? { vettingToken: imp.vettingToken } : {}),
          },
          'operator',
        );
        return { outcome: 'done', ids: { vetSeq: String(vet.seq), vetWorkflowId: vet.workflowId } };
      }
      case 'cancel': {
        const { reason } = acceptedRequest<CancelRequest>(op);
        await cancel(reason, 'operator');
        return { outcome: 'done', ...(status.brandId ? { ids: { brandId: status.brandId } } : {}) };
      }
    }
  };

  // -------------------------------------------------------------------------------------------
  // Messages: validate, enqueue, await the outcome
  // -------------------------------------------------------------------------------------------

  const submit = async (kind: BrandOperation, request: unknown): Promise<OperationOutcome<BrandPhase>> =>
    (await queue.awaitOutcome(
      queue.enqueue(kind, request, { first: kind === 'cancel' }),
    )) as OperationOutcome<BrandPhase>;
  const allowed = (kind: BrandOperation) => refuseUnlessAllowed(brandPhases, status.phase, kind);

  setHandler(brandStatusQuery, (): BrandStatus => ({ ...status, pendingOperations: queue.pendingKinds() }));

  setHandler(correctBrandUpdate, (request) => submit('correctBrand', request), {
    validator: (request) => {
      allowed('correctBrand');
      // The request's own checks first: they name unknown keys, boundedly, and cap every list.
      const parsed = checkCorrectBrandRequest(request);
      if (status.brandId === undefined) return;
      const known = Object.values(brandUpdateGroups).flat();
      const fixed = Object.keys(parsed.patch).filter((f) => !known.includes(f));
      if (fixed.length > 0)
        throw new Error(
          `patch: fields not updatable once registered: ${fixed.slice(0, 10).join(', ')}${fixed.length > 10 ? ` and ${fixed.length - 10} more` : ''}`,
        );
      const groups = groupsOfPatch(parsed.patch);
      const vets = status.vets.filter((v) => v.state !== 'rejected' && v.state !== 'cancelled');
      if (groups.includes(1) && vets.length > 0)
        throw new Error(
          `patch: group 1 fields (${brandUpdateGroups[1].join(', ')}) may change only while the brand has no external vets (it has ${vets.length})`,
        );
      if (groups.includes(3) && status.lastGroup3UpdateAt) {
        const next = nextGroup3UpdateAllowedAt(new Date(status.lastGroup3UpdateAt));
        if (Date.now() < next.getTime())
          throw new Error(
            `patch: group 3 fields (${brandUpdateGroups[3].join(', ')}) were updated at ${status.lastGroup3UpdateAt}; next update allowed from ${next.toISOString()}`,
          );
      }
    },
  });

  setHandler(revetUpdate, () => submit('revet', undefined), {
    validator: () => {
      allowed('revet');
      if (status.identityStatus !== 'UNVERIFIED')
        throw new Error(`revet applies to UNVERIFIED brands; this brand is ${status.identityStatus}`);
    },
  });

  setHandler(appealUpdate, (request) => submit('appeal', request), {
    validator: (request) => {
      allowed('appeal');
      checkAppealRequest(request);
    },
  });

  setHandler(orderVetUpdate, (request) => submit('orderVet', request), {
    validator: (request) => {
      allowed('orderVet');
      const parsed = checkOrderVetRequest(request);
      if (
        parsed.vettingClass === 'POLITICAL' &&
        hasPoliticalAccessByTaxStatus(status.entityType, status.optionalAttributes)
      )
        throw new Error(
          `vettingClass: a NON_PROFIT with tax-exempt status ${String(status.optionalAttributes.taxExemptStatus)} already has Political access and may not request a Political vet`,
        );
    },
  });

  setHandler(importVetUpdate, (request) => submit('importVet', request), {
    validator: (request) => {
      allowed('importVet');
      checkImportVetRequest(request);
    },
  });

  setHandler(cancelUpdate, (request) => submit('cancel', request), {
    validator: (request) => {
      allowed('cancel');
      checkCancelRequest(request);
      if (queue.pendingKinds().includes('cancel')) throw new Error('a cancel is already queued');
    },
  });

  setHandler(watchBrandReadinessSignal, ({ watcherWorkflowId }) => {
    if (status.phase === 'ready') notifyWatchers([watcherWorkflowId]);
    else if (
      !state.readinessWatchers.includes(watcherWorkflowId) &&
      state.readinessWatchers.length < WATCHERS_LIMIT
    )
      state.readinessWatchers.push(watcherWorkflowId);
  });

  setHandler(registryEventSignal, (delivery) => {
    if (!dedupe.firstSeen(delivery.deliveryId)) return;
    const event = delivery.event;
    audit('webhook', 'event', event.eventType);
    for (const vet of status.vets)
      if (eventConcernsVet(vet, event))
        getExternalWorkflowHandle(vet.workflowId)
          .signal(registryEventSignal, delivery)
          .catch(() => undefined);
    wakeup.bump('webhook');
  });

  setHandler(vetProgressSignal, (progress) => {
    const vet = status.vets.find((v) => v.seq === progress.seq);
    if (!vet || (vet.state === progress.state && progress.vettingId === vet.vettingId)) return;
    if (vet.state !== progress.state)
      audit(progress.cause, 'vet', `#${vet.seq} ${progress.detail ?? ''}`.trim(), vet.state, progress.state);
    vet.state = progress.state;
    if (progress.vettingId) vet.vettingId = progress.vettingId;
    if (progress.vettingClass) vet.vettingClass = progress.vettingClass;
    if (progress.score !== undefined) vet.score = progress.score;
    if (progress.reasons) vet.reasons = progress.reasons;
    if (progress.vettedDate) vet.vettedDate = progress.vettedDate;
    if (progress.deadline) vet.deadline = progress.deadline;
    if (!final()) applyAction(`vet-${vet.seq}`, vetAction(vet.seq, progress, vet.deadline));
    wakeup.bump(progress.cause === 'start' ? 'workflow' : progress.cause);
  });

  // -------------------------------------------------------------------------------------------
  // Run
  // -------------------------------------------------------------------------------------------

  if (!input.carried) {
    upsertSearchAttributes([
      { key: BrandReferenceKey, value: input.reference },
      { key: AccountKey, value: account },
    ]);
    audit('start', 'started', `account ${account}`);
  }
  books.syncSearchAttributes();

  try {
    // Events the ingress parked for this brand (by reference before the workflow existed, by registry
    // id before visibility showed our TcrBrandId). Claimed on every run, continue-as-new included.
    await claimParked(parkedEventsByReferenceWorkflowId('brand', input.reference));
    if (status.brandId) await claimParked(parkedEventsWorkflowId('brand', status.brandId));
    await runEntityLoop({
      table: brandPhases,
      phase: () => status.phase,
      queue,
      wakeup,
      guarded,
      loop: state.loop,
      polls: {
        pending: opts.pendingPoll ?? DEFAULT_PENDING_POLL,
        steadyMs: opts.steadyPollMs ?? DEFAULT_STEADY_POLL_MS,
      },
      execute: (op) => registry.at('operator', () => execute(op)),
      reconcile: (cause) =>
        registry.at(wakePriority(cause, status.phase === 'registering'), () => reconcile(cause)),
      setWaitingFor: (w) => {
        if (w) status.waitingFor = w;
        else delete status.waitingFor;
      },
      continueAsNewAt: opts.continueAsNewAtHistoryLength ?? DEFAULT_CONTINUE_AS_NEW_HISTORY_LENGTH,
      continueAsNew: () => {
        audit(
          'timer',
          'continue-as-new',
          `history length ${workflowInfo().historyLength}, run ${state.loop.runs}`,
        );
        state.deliveries = dedupe.toJSON();
        // The registration travels only inside the state, and only until the brand is registered.
        const { registration: _atStart, ...next } = input;
        return continueAsNew<typeof brandWorkflow>({ ...next, carried: state });
      },
    });
  } catch (error) {
    if (!isCancellation(error)) throw error;
    // A Temporal cancellation (Web UI, `temporal workflow cancel`): the same path as the operator's
    // cancel, after any billed write in flight has finished and been recorded.
    await CancellationScope.nonCancellable(() => cancel('cancelled through Temporal', 'operator'));
  }
  if (status.phase === 'deleted') await stopVets('the registry no longer knows the brand');
  // Operations still queued get their answer, and every handler returns it before the workflow ends
  // (an update left unfinished would answer its caller "not found").
  queue.drain(status.phase, 'cancelled', `the brand is ${status.phase}`);
  delete status.waitingFor;
  await CancellationScope.nonCancellable(() => condition(allHandlersFinished));
  return {
    phase: status.phase,
    ...(status.brandId ? { brandId: status.brandId } : {}),
    registered: status.brandId !== undefined,
    status: { ...status, pendingOperations: [] },
  };
}
