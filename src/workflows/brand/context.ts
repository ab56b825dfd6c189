/**
 * What every part of the brand workflow shares within one run: the input, the state, the
 * bookkeeping, the guarded registry, the operation queue, the vets this run started, and the helpers
 * everything calls (set the phase, apply the registry's brand record, claim parked events). Built once
 * at the start of a run by `brandContext`; ./steps.ts, ./operations.ts and ./handlers.ts take it.
 */
import {
  ApplicationFailure,
  type ChildWorkflowHandle,
  getExternalWorkflowHandle,
  patched,
  workflowInfo,
} from '@temporalio/workflow';
import type { BrandSnapshot } from '../../contracts/activity-types.js';
import type { BrandPhase } from '../../contracts/brand.js';
import { brandFingerprint } from '../../contracts/fingerprint.js';
import { BrandIdKey } from '../../contracts/search-attributes.js';
import { brandReadySignal } from '../../contracts/signals.js';
import type { AuditCause } from '../entity/audit.js';
import { EntityBookkeeping } from '../entity/bookkeeping.js';
import { claimParkedEvents } from '../entity/claim-parked.js';
import { DeliveryDedupe } from '../entity/delivery-dedupe.js';
import { OperationQueue } from '../entity/operations.js';
import { guardedPhase } from '../entity/phases.js';
import { GuardedRegistry } from '../entity/registry-call.js';
import { registryStubs } from '../entity/stubs.js';
import { Wakeup } from '../entity/wait.js';
import { PATCHES } from '../patches.js';
import type { vetWorkflow } from '../vet/workflow.js';
import { type ActionChange, brandWait, deriveBrandPhase } from './derive.js';
import { type BrandOperation, brandPhases } from './phases.js';
import { type BrandRunInput, type BrandState, initialBrandState } from './state.js';

/** A first run's input carries the registration (the order API always sends it), or a brand to adopt. */
function firstRunInput(input: BrandRunInput): Parameters<typeof initialBrandState>[0] {
  const { reference, account } = input;
  if (input.registration) return { reference, account, registration: input.registration };
  if (input.adopt) return { reference, account, adopt: input.adopt };
  throw ApplicationFailure.nonRetryable(
    'a brand workflow starts with its registration (BrandWorkflowInput.registration) or a brand to adopt',
    'InvalidWorkflowInput',
  );
}

export function brandContext(input: BrandRunInput) {
  const opts = input.options ?? {};
  const registry = registryStubs(input.account);
  const { reads, writes } = registry;
  const self = workflowInfo().workflowId;
  /** Vet workflows this run started (children send their completion to the run that started them). */
  const childrenOfThisRun = new Map<string, ChildWorkflowHandle<typeof vetWorkflow>>();
  const state: BrandState = input.carried ?? initialBrandState(firstRunInput(input));
  if (input.carried) state.status.runs = ++state.loop.runs;
  const status = state.status;
  const wakeup = new Wakeup();
  const queue = new OperationQueue<BrandOperation>(state.queue, wakeup);
  // An operator's step does not wait behind the entity's pending bulk read (stubs.ts, issue 36).
  registry.yieldBulkReadsTo(() => queue.hasPending);
  const dedupe = new DeliveryDedupe(state.deliveries, opts.dedupeLimit);
  /** The fingerprint of the registry record last applied (TcrFingerprint; the estate sweep compares it). */
  const fingerprint = () => (state.snapshot ? brandFingerprint(state.snapshot) : undefined);
  const books = new EntityBookkeeping(status, BrandIdKey, () => status.brandId, opts.auditLimit, fingerprint);
  const guarded = new GuardedRegistry(state.faults, books);
  const audit = books.audit.bind(books);
  const account = input.account;
  const final = () => brandPhases[status.phase].final;

  const applyAction = (key: string, change: ActionChange) => {
    if (change.set) books.setAction(key, change.action, change.reason, change.registryErrors);
    else books.clearAction(key);
  };

  /**
   * Starts the deadline of the operator-facing wait `phase` is, if it is one (./derive.ts, `brandWait`).
   * Behind its patch: brands recorded before it waited without deadlines, and replay unchanged.
   */
  const startWait = (phase: BrandPhase) => {
    const wait = brandWait(phase, opts);
    if (wait && patched(PATCHES.brandSpecWaits))
      state.waitDeadline = { phase, at: Date.now() + wait.periodMs };
  };

  /** The wait `phase` is left: its overdue needs-action (if raised) is cleared and its deadline dropped. */
  const endWait = (phase: BrandPhase) => {
    const wait = brandWait(phase, opts);
    if (wait) books.clearAction(wait.key);
    delete state.waitDeadline;
  };

  /**
   * The operator acted on the wait the brand is in (acknowledged its overdue needs-action, appealed
   * again, corrected the brand): its needs-action is cleared and its deadline is a full period away.
   */
  const restartWait = () => {
    const wait = brandWait(status.phase, opts);
    if (!wait || state.waitDeadline?.phase !== status.phase) return;
    books.clearAction(wait.key);
    state.waitDeadline.at = Date.now() + wait.periodMs;
  };

  const setPhase = (proposed: BrandPhase, cause: AuditCause, detail?: string) => {
    const phase = guardedPhase(brandPhases, status.phase, proposed);
    if (status.phase !== phase) {
      audit(cause, 'phase', detail, status.phase, phase);
      const left = status.phase;
      status.phase = phase;
      state.loop.pollAttempt = 0;
      endWait(left);
      startWait(phase);
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
    const previousMobilePhone = state.snapshot?.mobilePhoneVerifiedDate;
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
    // A sole proprietor verified once is asked again after the registry reports it UNVERIFIED.
    if (b.identityStatus === 'UNVERIFIED') delete state.soleProprietorSupported;
    const selfDeclaredSoleProprietor =
      (b.entityType || status.entityType) === 'SOLE_PROPRIETOR' && b.identityStatus === 'SELF_DECLARED';
    const decision = deriveBrandPhase(b, {
      entityType: status.entityType,
      appealPending: state.appealPending,
      now: Date.now(),
      soleProprietorSupported: state.soleProprietorSupported === true,
      // Histories recorded before the campaign builder decided replay as they ran.
      legacyMobilePhone: selfDeclaredSoleProprietor && !patched(PATCHES.brandSpecWaits),
    });
    if (decision.appealOver) state.appealPending = false;
    applyAction('identity', decision.identity);
    setPhase(decision.phase, cause, decision.detail);
    // `mobilePhoneVerifiedDate` (the simulator's, not the spec's) may only hurry the builder check: it
    // just appeared, so the pending schedule starts again from its first, shortest poll.
    if (
      status.phase === 'awaiting-sole-proprietor-verification' &&
      b.mobilePhoneVerifiedDate &&
      !previousMobilePhone
    )
      state.loop.pollAttempt = 0;
  };

  const claimParked = (parkedWorkflowId: string) => claimParkedEvents(parkedWorkflowId, self, audit);

  return {
    input,
    opts,
    registry,
    reads,
    writes,
    self,
    childrenOfThisRun,
    state,
    status,
    wakeup,
    queue,
    dedupe,
    books,
    fingerprint,
    guarded,
    audit,
    account,
    final,
    applyAction,
    setPhase,
    restartWait,
    notifyWatchers,
    applySnapshot,
    claimParked,
  };
}

export type BrandContext = ReturnType<typeof brandContext>;
