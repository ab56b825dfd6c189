/**
 * The brand's registry steps, called by the loop only: register (billed once), read the brand (a 404
 * is confirmed by the list before the brand counts as deleted), notice expired vets, start vets (child
 * workflows), and `reconcile`, the phase's own step.
 */
import {
  type ChildWorkflowHandle,
  ParentClosePolicy,
  patched,
  startChild,
  workflowInfo,
} from '@temporalio/workflow';
import type { BrandSnapshot } from '../../contracts/activity-types.js';
import type { VetStatus } from '../../contracts/brand.js';
import {
  brandWorkflowId,
  legacyEntityWorkflowId,
  parkedEventsWorkflowId,
  vetWorkflowId,
} from '../../contracts/ids.js';
import type { AuditCause } from '../entity/audit.js';
import { parkedAccount } from '../entity/claim-parked.js';
import type { CallResult } from '../entity/registry-call.js';
import { requestRefusalClasses } from '../entity/registry-failure.js';
import type { WakeCause } from '../entity/wait.js';
import { PATCHES } from '../patches.js';
import { vetRecordFields, vetResultDeadline, vetStateOf } from '../vet/derive.js';
import {
  DEFAULT_VET_GRACE_MS,
  DEFAULT_VET_RESULT_WINDOW_MS,
  type VetRequest,
  vetWorkflow,
} from '../vet/workflow.js';
import type { BrandContext } from './context.js';
import {
  NOT_FOUND_CONFIRM_MS,
  newlyExpiredVets,
  notFoundVerdict,
  SOLE_PROPRIETOR_USECASE,
  vetStateInProgress,
  vetsNeedingEnhancedFollowUp,
} from './derive.js';

const ALERTS_LIMIT = 20;

export function brandSteps(ctx: BrandContext) {
  const { input, opts, reads, writes, self, childrenOfThisRun, state, status, books, guarded } = ctx;
  const { audit, account, final, setPhase, applySnapshot, claimParked } = ctx;

  /**
   * A vet's workflow id: with a tag unique to this brand's chain of runs (its first run's id, stable on
   * replay and across continue-as-new; a brand terminated and ordered again is a new chain), so it
   * cannot collide with a vet of an earlier brand. Not the workflow's random: the tracing interceptors
   * draw on it, so a uuid would differ between workers with and without tracing. Behind its patch: vets
   * started before it keep the old ids.
   */
  // Vets live under the brand's id: an account-scoped brand's under `brand/{account}/{ref}`, a brand
  // under a legacy id (opened by an earlier release, or a recorded history) under `brand/{ref}` as before.
  const vetBase =
    self === brandWorkflowId(account, input.reference)
      ? self
      : legacyEntityWorkflowId('brand', input.reference);
  const vetId = (evpId: string, seq: number): string =>
    patched(PATCHES.vetOnce)
      ? vetWorkflowId(vetBase, evpId, seq, workflowInfo().firstExecutionRunId.replace(/-/g, '').slice(0, 8))
      : vetWorkflowId(vetBase, evpId, seq);

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
      // The registry may have had the brand already (a brand ordered again after a termination: the
      // client found it by referenceId): its vets are read and followed like an adopted brand's, never
      // ordered again. A brand new at the registry lists none (one read).
      if (patched(PATCHES.vetOnce)) state.vetsToAdopt = true;
      applySnapshot(call.value, cause);
      await claimParked(parkedEventsWorkflowId('brand', call.value.brandId, parkedAccount(account)));
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

  /**
   * A SELF_DECLARED sole proprietor's "further verification" (spec, fact 6), read where the spec shows
   * it: whether the campaign builder supports the SOLE_PROPRIETOR use case for the brand. Supported:
   * the brand is decided again (ready). A 4xx answer is "not yet" (the activity returns it); 429, 5xx
   * and network failures are faults, retried on the fault backoff like every read.
   */
  const checkSoleProprietor = async (cause: AuditCause): Promise<void> => {
    const read = await guarded.read('read campaign builder (SOLE_PROPRIETOR use case)', () =>
      reads.brandUseCaseSupport({ account, brandId: status.brandId!, usecase: SOLE_PROPRIETOR_USECASE }),
    );
    if (!read.ok || !read.value.supported || !state.snapshot) return;
    state.soleProprietorSupported = true;
    audit(cause, 'sole-proprietor-supported', `campaign builder answered ${read.value.status}`);
    applySnapshot(state.snapshot, cause);
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
    const workflowId = vetId(request.evpId, seq);
    const resultWindowMs = opts.vetResultWindowMs ?? DEFAULT_VET_RESULT_WINDOW_MS;
    const graceMs = opts.vetGraceMs ?? DEFAULT_VET_GRACE_MS;
    const vet: VetStatus = {
      seq,
      workflowId,
      mode: request.mode,
      evpId: request.evpId,
      state: request.mode === 'adopt' ? vetStateOf(request.record.vettingStatus) : 'ordering',
      // The vet workflow's own deadline (an adopted one counts from its record's createDate).
      deadline: new Date(
        vetResultDeadline(
          Date.now(),
          resultWindowMs,
          graceMs,
          request.mode === 'adopt' ? request.record : undefined,
        ),
      ).toISOString(),
      ...(request.mode === 'order' ? { vettingClass: request.vettingClass } : {}),
      ...(request.mode === 'import' ? { vettingId: request.vettingId } : {}),
      ...(request.mode === 'adopt' ? vetRecordFields(request.record) : {}),
      ...(followUpOf !== undefined ? { followUpOf } : {}),
    };
    status.vets.push(vet);
    audit(cause, `vet-${vetVerb[request.mode]}`, `#${seq} ${request.evpId} ${vet.vettingClass ?? ''}`.trim());
    let child: ChildWorkflowHandle<typeof vetWorkflow>;
    try {
      child = await startChild(vetWorkflow, {
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
    } catch (error) {
      if (!(error instanceof Error) || error.name !== 'WorkflowExecutionAlreadyStartedError') throw error;
      // A vet of that id runs already (started by an earlier run of this brand, before vet ids were
      // unique to a run): it is followed (its reports carry its id, and reach this brand), never a failure.
      audit(cause, 'vet-attached', `#${seq} ${workflowId} runs already: followed`);
      return vet;
    }
    childrenOfThisRun.set(workflowId, child);
    return vet;
  };

  /**
   * An adopted brand's vets (tcr import): the registry's list, read once. A vet in progress gets a vet
   * workflow that follows it to its result (never ordered again); a finished one is recorded as the
   * registry shows it. Nothing is written and nothing charged.
   */
  const adoptVets = async (cause: WakeCause | 'start'): Promise<void> => {
    const read = await guarded.read('read vets', () =>
      reads.listExternalVets({ account, brandId: status.brandId! }),
    );
    if (!read.ok) return; // the next reconciliation reads them again
    state.vetsToAdopt = false;
    for (const record of read.value) {
      const known = status.vets.some((v) => record.vettingId && v.vettingId === record.vettingId);
      if (known) continue;
      const vetState = vetStateOf(record.vettingStatus);
      if (vetStateInProgress(vetState)) {
        await startVet({ mode: 'adopt', evpId: record.evpId, record }, cause);
        continue;
      }
      const seq = ++state.vetSeq;
      status.vets.push({
        seq,
        workflowId: vetId(record.evpId, seq),
        mode: 'adopt',
        evpId: record.evpId,
        state: vetState,
        ...vetRecordFields(record),
      });
      audit(cause, 'vet-adopted', `#${seq} ${record.evpId} ${record.vettingClass ?? ''} ${vetState}`.trim());
    }
  };

  const reconcile = async (cause: WakeCause | 'start'): Promise<void> => {
    switch (status.phase) {
      case 'registering': {
        const call = await register(cause);
        // Found at the registry (ordered again): its vets are read and followed now, before any order.
        if (call.ok && state.vetsToAdopt && !final()) await adoptVets(cause);
        return;
      }
      case 'registration-rejected':
        return;
      default:
        if (cause !== 'start' || !state.vetsToAdopt) await readBrand(cause);
        if (final()) return;
        // After a brand read that answered (a success would hide its fault). Behind its patch: brands
        // recorded before it never asked the builder.
        if (
          status.phase === 'awaiting-sole-proprietor-verification' &&
          !guarded.faulted &&
          patched(PATCHES.brandSpecWaits)
        )
          await checkSoleProprietor(cause);
        if (state.vetsToAdopt) await adoptVets(cause);
        else await checkVetExpiry(cause);
        for (const vet of vetsNeedingEnhancedFollowUp(status.vets, opts.enhancedVetPolicy)) {
          vet.followUpOrdered = true;
          const policy = opts.enhancedVetPolicy!;
          audit(cause, 'enhanced-vet-policy', `vet #${vet.seq} scored ${vet.score} < ${policy.belowScore}`);
          await startVet({ mode: 'order', evpId: policy.evpId, vettingClass: 'ENHANCED' }, cause, vet.seq);
        }
    }
  };

  return { register, startVet, adoptVets, reconcile };
}

export type BrandSteps = ReturnType<typeof brandSteps>;

/** The audit's verb for a vet started by each kind of request. */
const vetVerb: Record<VetRequest['mode'], string> = {
  order: 'ordered',
  import: 'imported',
  adopt: 'adopted',
};
