/**
 * brandWorkflow: one brand's whole life at the registry, id `brand/{reference}`.
 *
 * register (idempotent by referenceId) → search attributes → claim parked events →
 * [contact verification: PUBLIC_PROFIT; GOVERNMENT from 2027-01-21 by workflow time] →
 * identity status: VERIFIED / VETTED_VERIFIED → 'ready'; UNVERIFIED → 'needs-correction' (operator:
 * correctBrand + revet, or appeal); SELF_DECLARED → 'awaiting-sole-proprietor-verification'.
 * Then it stays as the brand's entity: later events, operator updates and vets (child workflows),
 * a slow reconciliation poll, continue-as-new when history grows, and it ends when the registry
 * reports the brand no longer ACTIVE, or on cancel.
 *
 * Signals wake, reads decide: events only wake the loop, which reads `GET /brand/{id}` and derives the
 * phase from what the registry says. Registry calls run under a mutex so concurrent updates never
 * interleave. Deterministic: workflow APIs and pure modules only; activities by type.
 */
import {
  ApplicationFailure,
  allHandlersFinished,
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  ParentClosePolicy,
  patched,
  setHandler,
  startChild,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { BrandSnapshot } from '../activities/types.js';
import {
  brandUpdateGroups,
  groupsOfPatch,
  nextGroup3UpdateAllowedAt,
} from '../registry/brand-update-groups.js';
import { contactVerificationRequired } from '../registry/rules.js';
import type { EntityType } from '../registry/schemas.js';
import { type AuditCause, emptyAuditTrail } from './audit.js';
import {
  appealUpdate,
  brandStatusQuery,
  cancelUpdate,
  correctBrandUpdate,
  importVetUpdate,
  orderVetUpdate,
  revetUpdate,
  vetProgressSignal,
} from './brand-definitions.js';
import type {
  BrandPhase,
  BrandResult,
  BrandStatus,
  BrandWorkflowInput,
  BrandWorkflowOptions,
  VetStatus,
} from './brand-types.js';
import { terminalBrandPhases } from './brand-types.js';
import { DeliveryDedupe } from './delivery-dedupe.js';
import { EntityBookkeeping } from './entity-bookkeeping.js';
import { parkedEventsByReferenceWorkflowId, parkedEventsWorkflowId, vetWorkflowId } from './ids.js';
import { WorkflowMutex } from './mutex.js';
import { type RegistryRefusal, registryActivities, registryRefusal } from './registry-activities.js';
import {
  checkAppealRequest,
  checkCancelRequest,
  checkCorrectBrandRequest,
  checkImportVetRequest,
  checkOrderVetRequest,
} from './request-checks.js';
import { AccountKey, BrandIdKey, BrandReferenceKey } from './search-attributes.js';
import {
  brandReadySignal,
  claimParkedEventsSignal,
  registryEventSignal,
  watchBrandReadinessSignal,
} from './signals.js';
import { DEFAULT_VET_GRACE_MS, DEFAULT_VET_RESULT_WINDOW_MS, type VetRequest, vetWorkflow } from './vet.js';
import {
  backoffDelay,
  DEFAULT_PENDING_POLL,
  DEFAULT_STEADY_POLL_MS,
  type WakeCause,
  Wakeup,
  waitForWakePollOrDeadline,
} from './wait.js';

export const DEFAULT_CONTINUE_AS_NEW_HISTORY_LENGTH = 10_000;

/** 501(c)(3), (4), (5) or (6) in any common spelling: such non-profits may not request a Political vet. */
const political501cPattern = /501\s*\(?\s*c\s*\)?\s*\(?\s*([3-6])\s*\)?/i;

export function hasPoliticalAccessByTaxStatus(
  entityType: string,
  optionalAttributes: Record<string, unknown>,
): boolean {
  const tax = optionalAttributes.taxExemptStatus;
  return entityType === 'NON_PROFIT' && typeof tax === 'string' && political501cPattern.test(tax);
}

function resolveOptions(options: BrandWorkflowOptions = {}) {
  return {
    steadyPollMs: options.steadyPollMs ?? DEFAULT_STEADY_POLL_MS,
    pendingPoll: options.pendingPoll ?? DEFAULT_PENDING_POLL,
    vetResultWindowMs: options.vetResultWindowMs ?? DEFAULT_VET_RESULT_WINDOW_MS,
    vetGraceMs: options.vetGraceMs ?? DEFAULT_VET_GRACE_MS,
    vetPoll: options.vetPoll ?? DEFAULT_PENDING_POLL,
    enhancedVetPolicy: options.enhancedVetPolicy,
    continueAsNewAt: options.continueAsNewAtHistoryLength ?? DEFAULT_CONTINUE_AS_NEW_HISTORY_LENGTH,
    auditLimit: options.auditLimit,
    dedupeLimit: options.dedupeLimit,
  };
}

const waitDescriptions: Record<BrandPhase, string> = {
  registering: 'registry: brand registration',
  'registration-rejected': 'operator: correctBrand with corrected registration fields, or cancel',
  'awaiting-contact-verification': 'registry: business contact e-mail verification',
  'awaiting-sole-proprietor-verification': 'registry: sole proprietor verification',
  'needs-correction': 'operator: correctBrand + revet, or appeal',
  'appeal-pending': 'registry: appeal review',
  ready: 'registry events (steady reconciliation)',
  deleted: 'nothing (final)',
  cancelled: 'nothing (final)',
};

const activeVetStates = ['ordering', 'pending', 'under-review'];

export async function brandWorkflow(input: BrandWorkflowInput): Promise<BrandResult> {
  const opts = resolveOptions(input.options);
  const { reads, writes } = registryActivities(input.account);
  const carried = input.carried;
  const self = workflowInfo().workflowId;
  let registration = { ...input.registration, referenceId: input.reference };
  const status: BrandStatus = carried?.status ?? {
    workflowType: 'brand',
    reference: input.reference,
    account: input.account,
    phase: 'registering',
    entityType: input.registration.entityType,
    optionalAttributes: {},
    vets: [],
    needsAction: [],
    alerts: [],
    politicalCampaignsAffected: false,
    audit: emptyAuditTrail(),
  };
  let brand: BrandSnapshot | undefined = carried?.brand;
  let vetSeq = carried?.vetSeq ?? 0;
  let claimedParked = carried?.claimedParked ?? false;
  let appealPending = carried?.appealPending ?? false;
  const runs = (carried?.runs ?? 0) + 1;
  const dedupe = new DeliveryDedupe(carried?.deliveries, opts.dedupeLimit);
  const wakeup = new Wakeup();
  const mutex = new WorkflowMutex();
  let registrationRevisions = 0;
  let registrationAttempts = 0;
  let pollAttempt = 0;

  const terminal = () => terminalBrandPhases.includes(status.phase);
  const books = new EntityBookkeeping(status, BrandIdKey, () => status.brandId, opts.auditLimit);
  const audit = books.audit.bind(books);
  const syncSearchAttributes = books.syncSearchAttributes.bind(books);
  const setAction = books.setAction.bind(books);
  const clearAction = books.clearAction.bind(books);
  /** Campaign workflows to tell when the brand reaches ready (bounded; carried across continue-as-new). */
  let readinessWatchers: string[] = carried?.readinessWatchers ?? [];
  const notifyReadinessWatchers = (watchers: string[]) => {
    for (const watcher of watchers)
      void getExternalWorkflowHandle(watcher)
        .signal(brandReadySignal, { brandReference: input.reference })
        .catch(() => undefined); // a watcher that has gone needs nothing
  };
  const setPhase = (phase: BrandPhase, cause: AuditCause, detail?: string) => {
    if (status.phase !== phase) {
      audit(cause, 'phase', detail, status.phase, phase);
      status.phase = phase;
      // What the new phase waits for; the main loop adds when it polls next.
      status.waitingFor = { what: waitDescriptions[phase] };
      pollAttempt = 0;
      if (phase === 'ready' && readinessWatchers.length > 0) {
        notifyReadinessWatchers(readinessWatchers);
        readinessWatchers = [];
      }
    }
    syncSearchAttributes();
  };
  const refused = (key: string, refusal: RegistryRefusal, cause: AuditCause, what: string) => {
    audit(cause, 'registry-refused', `${what}: ${refusal.message}`);
    setAction(key, `fix and retry: ${what}`, refusal.message, refusal.errors);
  };

  /** Derives the phase from what the registry says about the brand. */
  const applyBrand = (b: BrandSnapshot, cause: AuditCause) => {
    const previousIdentity = status.identityStatus;
    brand = b;
    status.brandId = b.brandId;
    status.entityType = b.entityType || status.entityType;
    status.brandStatus = b.status;
    status.identityStatus = b.identityStatus;
    status.optionalAttributes = b.optionalAttributes ?? {};
    if (b.businessContactEmailVerifiedDate) status.contactVerifiedAt = b.businessContactEmailVerifiedDate;
    else delete status.contactVerifiedAt;
    if (previousIdentity !== undefined && previousIdentity !== b.identityStatus) {
      audit(cause, 'identity-status', undefined, previousIdentity, b.identityStatus);
    }
    if (status.phase === 'cancelled') return;
    if (b.status !== 'ACTIVE') {
      setPhase('deleted', cause, `registry status ${b.status}`);
      return;
    }
    const contactPending =
      contactVerificationRequired(status.entityType as EntityType, new Date(Date.now())) &&
      !b.businessContactEmailVerifiedDate;
    if (contactPending) {
      clearAction('identity');
      setPhase('awaiting-contact-verification', cause);
    } else if (b.identityStatus === 'UNVERIFIED') {
      if (appealPending) {
        clearAction('identity');
        setPhase('appeal-pending', cause);
      } else {
        setAction(
          'identity',
          'correctBrand + revet, or appeal',
          'the registry reports the brand UNVERIFIED: information unverified, incorrect, incomplete or changed',
        );
        setPhase('needs-correction', cause);
      }
    } else if (b.identityStatus === 'SELF_DECLARED') {
      clearAction('identity');
      if (b.entityType === 'SOLE_PROPRIETOR' && b.mobilePhoneVerifiedDate)
        setPhase('ready', cause, 'sole proprietor verified (mobile phone one-time password)');
      else setPhase('awaiting-sole-proprietor-verification', cause);
    } else {
      appealPending = false;
      clearAction('identity');
      setPhase('ready', cause, b.identityStatus);
    }
  };

  const findVet = (seq: number) => status.vets.find((v) => v.seq === seq);

  const startVet = async (
    request: VetRequest,
    cause: AuditCause,
    followUpOf?: number,
  ): Promise<VetStatus> => {
    const seq = ++vetSeq;
    const workflowId = vetWorkflowId(input.reference, request.evpId, seq);
    const vet: VetStatus = {
      seq,
      workflowId,
      mode: request.mode,
      evpId: request.evpId,
      state: 'ordering',
      deadline: new Date(Date.now() + opts.vetResultWindowMs + opts.vetGraceMs).toISOString(),
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
    await startChild(vetWorkflow, {
      workflowId,
      // The vet outlives a continue-as-new of the brand and reports by workflow id.
      parentClosePolicy: ParentClosePolicy.ABANDON,
      args: [
        {
          brandWorkflowId: self,
          account: input.account,
          brandId: status.brandId!,
          seq,
          request,
          resultWindowMs: opts.vetResultWindowMs,
          graceMs: opts.vetGraceMs,
          poll: opts.vetPoll,
        },
      ],
    });
    return vet;
  };

  const doRevet = async () => {
    try {
      const b = await writes.revetBrand({ account: input.account, brandId: status.brandId! });
      appealPending = false;
      clearAction('registry-error');
      audit('operator', 'revet', `identity status ${b.identityStatus}`);
      applyBrand(b, 'operator');
    } catch (error) {
      const refusal = registryRefusal(error);
      if (!refusal) throw error;
      refused('registry-error', refusal, 'operator', 'revet');
    }
  };

  // ---------------------------------------------------------------------------------------------
  // Messages
  // ---------------------------------------------------------------------------------------------

  setHandler(brandStatusQuery, () => status);

  setHandler(watchBrandReadinessSignal, ({ watcherWorkflowId }) => {
    if (status.phase === 'ready') notifyReadinessWatchers([watcherWorkflowId]);
    else if (!readinessWatchers.includes(watcherWorkflowId) && readinessWatchers.length < 1_000)
      readinessWatchers.push(watcherWorkflowId);
  });

  setHandler(registryEventSignal, (delivery) => {
    if (!dedupe.firstSeen(delivery.deliveryId)) return;
    const event = delivery.event;
    audit('webhook', 'event', event.eventType);
    if (event.eventType === 'BRAND_IDENTITY_STATUS_UPDATE') appealPending = false;
    if (event.evpId || event.vettingId) {
      for (const vet of status.vets) {
        if (!activeVetStates.includes(vet.state)) continue;
        if (event.evpId && event.evpId !== vet.evpId) continue;
        if (event.vettingId && vet.vettingId && event.vettingId !== vet.vettingId) continue;
        getExternalWorkflowHandle(vet.workflowId)
          .signal(registryEventSignal, delivery)
          .catch(() => undefined);
      }
    }
    wakeup.bump('webhook');
  });

  setHandler(vetProgressSignal, (progress) => {
    const vet = findVet(progress.seq);
    if (!vet) return;
    const cause: AuditCause = progress.cause;
    if (vet.state !== progress.state)
      audit(cause, 'vet', `#${vet.seq} ${progress.detail ?? ''}`.trim(), vet.state, progress.state);
    vet.state = progress.state;
    if (progress.vettingId) vet.vettingId = progress.vettingId;
    if (progress.vettingClass) vet.vettingClass = progress.vettingClass;
    if (progress.score !== undefined) vet.score = progress.score;
    if (progress.reasons) vet.reasons = progress.reasons;
    if (progress.vettedDate) vet.vettedDate = progress.vettedDate;
    if (progress.deadline) vet.deadline = progress.deadline;
    const key = `vet-${vet.seq}`;
    if (progress.state === 'failed')
      setAction(
        key,
        'review the vet reasons; correct the brand and order again',
        `vet #${vet.seq} FAILED: ${(progress.reasons ?? []).join('; ') || 'no reasons given'}`,
      );
    else if (progress.state === 'timed-out')
      setAction(
        key,
        'contact the vetting provider or order again',
        `vet #${vet.seq} had no result by ${vet.deadline}`,
      );
    else if (progress.state === 'rejected')
      setAction(
        key,
        'fix and order again',
        `the registry refused vet #${vet.seq}: ${progress.detail ?? ''}`,
        (progress.reasons ?? []).map((d) => ({ description: d, fields: [] })),
      );
    else clearAction(key);
    wakeup.bump(cause === 'start' ? 'poll' : cause);
  });

  const requireBrand = () => {
    if (terminal()) throw new Error(`the brand workflow is ${status.phase}`);
    if (!status.brandId) throw new Error(`the brand is not registered yet (phase ${status.phase})`);
  };

  setHandler(
    correctBrandUpdate,
    async (request) => {
      const { patch, revet } = checkCorrectBrandRequest(request);
      if (status.phase === 'registration-rejected') {
        registration = { ...registration, ...patch, referenceId: input.reference } as typeof registration;
        audit('operator', 'registration-corrected', Object.keys(patch).join(', '));
        const attempts = registrationAttempts;
        registrationRevisions++;
        await condition(() => registrationAttempts !== attempts || terminal());
        return status;
      }
      await mutex.run(async () => {
        const groups = groupsOfPatch(patch);
        if (groups.includes(1)) {
          const active = await reads.countActiveCampaigns({
            account: input.account,
            brandId: status.brandId!,
          });
          if (active > 0)
            throw ApplicationFailure.nonRetryable(
              `group 1 fields may change only while the brand has no active campaigns (it has ${active})`,
              'BrandUpdateRefused',
            );
        }
        try {
          const b = await writes.updateBrand({ account: input.account, brandId: status.brandId!, patch });
          clearAction('registry-error');
          audit(
            'operator',
            'brand-updated',
            `${Object.keys(patch).join(', ')} (groups ${groups.join(', ')})`,
          );
          if (groups.includes(3)) status.lastGroup3UpdateAt = new Date(Date.now()).toISOString();
          applyBrand(b, 'operator');
        } catch (error) {
          const refusal = registryRefusal(error);
          if (!refusal) throw error;
          refused('registry-error', refusal, 'operator', 'update');
          return;
        }
        if (revet) {
          if (status.identityStatus === 'UNVERIFIED') await doRevet();
          else audit('operator', 'revet-skipped', `identity status ${status.identityStatus}`);
        }
      });
      wakeup.bump('operator');
      return status;
    },
    {
      validator: (request) => {
        if (terminal()) throw new Error(`the brand workflow is ${status.phase}`);
        const raw = (request as { patch?: unknown } | undefined)?.patch;
        if (status.phase !== 'registration-rejected' && raw && typeof raw === 'object') {
          const known = Object.values(brandUpdateGroups).flat();
          const unknown = Object.keys(raw).filter((f) => !known.includes(f));
          if (unknown.length > 0) throw new Error(`patch: fields not updatable: ${unknown.join(', ')}`);
        }
        const parsed = checkCorrectBrandRequest(request);
        if (status.phase === 'registration-rejected') return;
        if (!status.brandId) throw new Error(`the brand is not registered yet (phase ${status.phase})`);
        const groups = groupsOfPatch(parsed.patch);
        const vets = status.vets.filter((v) => v.state !== 'rejected');
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
    },
  );

  setHandler(
    revetUpdate,
    async () => {
      await mutex.run(doRevet);
      wakeup.bump('operator');
      return status;
    },
    {
      validator: () => {
        requireBrand();
        if (status.identityStatus !== 'UNVERIFIED')
          throw new Error(`revet applies to UNVERIFIED brands; this brand is ${status.identityStatus}`);
      },
    },
  );

  setHandler(
    appealUpdate,
    async (request) => {
      const appeal = checkAppealRequest(request);
      await mutex.run(async () => {
        try {
          await writes.appealBrand({ account: input.account, brandId: status.brandId!, appeal });
          clearAction('registry-error');
          appealPending = status.identityStatus === 'UNVERIFIED';
          audit('operator', 'appealed', appeal.appealCategories.join(', '));
          if (brand) applyBrand(brand, 'operator');
        } catch (error) {
          const refusal = registryRefusal(error);
          if (!refusal) throw error;
          refused('registry-error', refusal, 'operator', 'appeal');
        }
      });
      wakeup.bump('operator');
      return status;
    },
    {
      validator: (request) => {
        requireBrand();
        checkAppealRequest(request);
      },
    },
  );

  const vetHandler = async (request: VetRequest): Promise<BrandStatus> => {
    const vet = await startVet(request, 'operator');
    // Return once the order has reached the registry (or failed), so the caller sees its vettingId.
    await condition(() => vet.state !== 'ordering', '10 minutes');
    return status;
  };
  setHandler(
    orderVetUpdate,
    (request) => {
      const order = checkOrderVetRequest(request);
      return vetHandler({ mode: 'order', evpId: order.evpId, vettingClass: order.vettingClass });
    },
    {
      validator: (request) => {
        requireBrand();
        const parsed = checkOrderVetRequest(request);
        if (
          parsed.vettingClass === 'POLITICAL' &&
          hasPoliticalAccessByTaxStatus(status.entityType, status.optionalAttributes)
        )
          throw new Error(
            `vettingClass: a NON_PROFIT with tax-exempt status ${String(status.optionalAttributes.taxExemptStatus)} already has Political access and may not request a Political vet`,
          );
      },
    },
  );
  setHandler(
    importVetUpdate,
    (request) => {
      const imp = checkImportVetRequest(request);
      return vetHandler({
        mode: 'import',
        evpId: imp.evpId,
        vettingId: imp.vettingId,
        ...(imp.vettingToken ? { vettingToken: imp.vettingToken } : {}),
      });
    },
    {
      validator: (request) => {
        requireBrand();
        checkImportVetRequest(request);
      },
    },
  );

  setHandler(
    cancelUpdate,
    async (request) => {
      const { reason } = checkCancelRequest(request);
      status.cancelReason = reason;
      setPhase('cancelled', 'operator', reason);
      // Pending vet workflows are left to finish on their own (result or deadline): they report by
      // signal, which a closed brand workflow simply does not receive. (Cancelling them from here
      // trips an invalid-transition bug in the Java time-skipping test server.)
      wakeup.bump('operator');
      return status;
    },
    {
      validator: (request) => {
        if (terminal()) throw new Error(`the brand workflow is already ${status.phase}`);
        checkCancelRequest(request);
      },
    },
  );

  // ---------------------------------------------------------------------------------------------
  // Onboarding
  // ---------------------------------------------------------------------------------------------

  if (!carried) {
    upsertSearchAttributes([
      { key: BrandReferenceKey, value: input.reference },
      { key: AccountKey, value: input.account },
    ]);
    audit('start', 'started', `account ${input.account}`);
  }
  syncSearchAttributes();

  /**
   * Events the ingress parked for this brand (by reference before the workflow existed, by registry id
   * before visibility showed our TcrBrandId). Claimed on every run, continue-as-new included, because
   * a parked workflow started after an earlier claim's grace period holds events no one else claims.
   * Not found = nothing parked.
   */
  const claimParked = async (parkedWorkflowId: string) => {
    try {
      await getExternalWorkflowHandle(parkedWorkflowId).signal(claimParkedEventsSignal, {
        ownerWorkflowId: self,
      });
      audit('start', 'claimed-parked-events', parkedWorkflowId);
    } catch {
      // Nothing parked under this key.
    }
  };
  // Versioned: histories recorded before this change claimed only by brand id, once per workflow.
  const claimOnEveryRun = patched('claim-parked-by-reference-every-run');
  const brandIdAtStart = status.brandId;
  if (claimOnEveryRun) {
    await claimParked(parkedEventsByReferenceWorkflowId('brand', input.reference));
    if (brandIdAtStart) await claimParked(parkedEventsWorkflowId('brand', brandIdAtStart));
  }

  while (!status.brandId && !terminal()) {
    const registered = await mutex.run(async () => {
      try {
        const b = await writes.registerBrand({ account: input.account, registration });
        clearAction('registration');
        audit('start', 'registered', b.brandId);
        applyBrand(b, 'start');
        return true;
      } catch (error) {
        const refusal = registryRefusal(error);
        if (!refusal) throw error;
        setAction(
          'registration',
          'correctBrand with corrected registration fields, or cancel',
          refusal.message,
          refusal.errors,
        );
        setPhase('registration-rejected', 'start', refusal.message);
        return false;
      } finally {
        registrationAttempts++;
      }
    });
    if (!registered) {
      status.waitingFor = { what: waitDescriptions['registration-rejected'] };
      const revision = registrationRevisions;
      await condition(() => registrationRevisions !== revision || terminal());
    }
  }

  if (claimOnEveryRun) {
    // Registered in this run: claim what was parked under the new id (earlier runs claimed above).
    if (status.brandId && !brandIdAtStart) {
      claimedParked = true;
      await claimParked(parkedEventsWorkflowId('brand', status.brandId));
    }
  } else if (status.brandId && !claimedParked) {
    claimedParked = true;
    // Events that arrived for this brand id before we knew it were parked by the ingress.
    try {
      await getExternalWorkflowHandle(parkedEventsWorkflowId('brand', status.brandId)).signal(
        claimParkedEventsSignal,
        { ownerWorkflowId: self },
      );
      audit('start', 'claimed-parked-events');
    } catch {
      // No parked events for this brand: nothing to claim.
    }
  }

  // ---------------------------------------------------------------------------------------------
  // The entity loop: reconcile, then wait for an event, an operator action or the next poll.
  // ---------------------------------------------------------------------------------------------

  const reconcile = async (cause: WakeCause | 'start') => {
    const auditCause: AuditCause = cause;
    try {
      const b = await reads.getBrand({ account: input.account, brandId: status.brandId! });
      clearAction('registry-error');
      applyBrand(b, auditCause);
    } catch (error) {
      const refusal = registryRefusal(error);
      if (!refusal) throw error;
      if (refusal.type === 'RegistryNotFound') {
        status.brandStatus = 'NOT_FOUND';
        setPhase('deleted', auditCause, 'the registry no longer knows the brand (404)');
        return;
      }
      refused('registry-error', refusal, auditCause, 'read brand');
      return;
    }
    const activeVets = status.vets.filter((v) => v.state === 'active');
    if (activeVets.length > 0) {
      const records = await reads.listExternalVets({ account: input.account, brandId: status.brandId! });
      for (const vet of activeVets) {
        const record = records.find((r) => r.vettingId === vet.vettingId);
        if (record?.vettingStatus !== 'EXPIRED') continue;
        audit(auditCause, 'vet', `#${vet.seq} expired`, vet.state, 'expired');
        vet.state = 'expired';
        const political = vet.vettingClass === 'POLITICAL';
        if (political) status.politicalCampaignsAffected = true;
        status.alerts.push(
          `vet #${vet.seq} (${vet.evpId} ${vet.vettingClass ?? ''}) expired at ${new Date(Date.now()).toISOString()}` +
            (political
              ? ': the registry deactivates political campaigns after an expired political vet'
              : ''),
        );
        if (status.alerts.length > 20) status.alerts.shift();
        setAction(`vet-${vet.seq}`, 're-apply: order or import a new vet', `vet #${vet.seq} EXPIRED`);
      }
    }
  };

  const pollDelay = (): number | undefined => {
    switch (status.phase) {
      case 'awaiting-contact-verification':
      case 'awaiting-sole-proprietor-verification':
      case 'appeal-pending':
        return backoffDelay(opts.pendingPoll, pollAttempt);
      default:
        return opts.steadyPollMs;
    }
  };

  let cause: WakeCause | 'start' = 'start';
  while (!terminal()) {
    const info = workflowInfo();
    if (info.continueAsNewSuggested || info.historyLength >= opts.continueAsNewAt) {
      await condition(() => allHandlersFinished() && !mutex.locked);
      audit('timer', 'continue-as-new', `history length ${info.historyLength}, run ${runs}`);
      await continueAsNew<typeof brandWorkflow>({
        ...input,
        registration,
        carried: {
          status,
          ...(brand ? { brand } : {}),
          vetSeq,
          deliveries: dedupe.toJSON(),
          claimedParked,
          appealPending,
          runs,
          ...(readinessWatchers.length > 0 ? { readinessWatchers } : {}),
        },
      });
    }
    const since = wakeup.current;
    await mutex.run(() => reconcile(cause));
    if (terminal()) break;
    const policy = opts.enhancedVetPolicy;
    if (policy) {
      for (const vet of [...status.vets]) {
        if (vet.state !== 'active' || vet.vettingClass !== 'STANDARD' || vet.followUpOrdered) continue;
        if (vet.score === undefined || vet.score >= policy.belowScore) continue;
        vet.followUpOrdered = true;
        audit(cause, 'enhanced-vet-policy', `vet #${vet.seq} scored ${vet.score} < ${policy.belowScore}`);
        await startVet({ mode: 'order', evpId: policy.evpId, vettingClass: 'ENHANCED' }, cause, vet.seq);
      }
    }
    const pollInMs = pollDelay();
    status.waitingFor = {
      what: waitDescriptions[status.phase],
      ...(pollInMs !== undefined ? { nextPollAt: new Date(Date.now() + pollInMs).toISOString() } : {}),
    };
    cause = await waitForWakePollOrDeadline({
      wakeup,
      since,
      ...(pollInMs !== undefined ? { pollInMs } : {}),
      interrupt: terminal,
    });
    if (cause === 'poll') pollAttempt++;
  }

  delete status.waitingFor;
  await condition(allHandlersFinished);
  return { phase: status.phase, ...(status.brandId ? { brandId: status.brandId } : {}), status };
}
