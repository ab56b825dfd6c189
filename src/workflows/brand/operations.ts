/**
 * The brand's operator operations, run by the loop in order: correct (and revet), revet, appeal,
 * order or import a vet, cancel (which stops the brand's vets).
 */
import { getExternalWorkflowHandle, patched, sleep } from '@temporalio/workflow';
import type { VettingProviderOffer } from '../../contracts/activity-types.js';
import type {
  AcknowledgeRequest,
  AppealRequest,
  CancelRequest,
  CorrectBrandRequest,
  ImportVetRequest,
  OrderVetRequest,
} from '../../contracts/brand-operations.js';
import { stopVetSignal } from '../../contracts/vet.js';
import { groupsOfPatch } from '../../registry/brand-update-groups.js';
import type { BrandUpdate } from '../../registry/schemas.js';
import type { AuditCause } from '../entity/audit.js';
import type { OperationResult } from '../entity/loop.js';
import { acceptedRequest, type QueuedOperation } from '../entity/operations.js';
import type { CallResult } from '../entity/registry-call.js';
import { requestRefusalClasses } from '../entity/registry-failure.js';
import { PATCHES } from '../patches.js';
import {
  identicalVetInProgress,
  importIsPolitical,
  politicalAccessRefusal,
  vetOfferVerdict,
} from '../vet/derive.js';
import type { BrandContext } from './context.js';
import { hasPoliticalAccessByTaxStatus, vetInProgress } from './derive.js';
import { type BrandOperation, brandPhases } from './phases.js';
import type { BrandSteps } from './steps.js';

/** How long an ending brand waits for the vets it stopped to close. */
const CHILD_SETTLE_MS = 10 * 60 * 1000;

export function brandOperations(ctx: BrandContext, steps: BrandSteps) {
  const { input, reads, writes, childrenOfThisRun, state, status, queue, books, guarded, audit } = ctx;
  const { account, setPhase, applySnapshot, restartWait } = ctx;
  const { register, startVet, adoptVets } = steps;

  const refusedBy = (what: string, call: Extract<CallResult<unknown>, { ok: false }>): OperationResult => {
    audit('operator', 'registry-refused', `${what}: ${call.failure.message}`);
    return {
      outcome: requestRefusalClasses.includes(call.failure.class) ? 'refused' : 'failed',
      detail: call.failure.message,
      ...(call.failure.errors.length > 0 ? { registryErrors: call.failure.errors } : {}),
    };
  };

  /**
   * Before a vet order or import (which may cost the provider's fee): what the registry's provider list
   * says (`vettingProviderOffer`, the worker's cached /enum/extVettingProvider). A provider not listed,
   * a class not offered, orders or imports not supported: refused, nothing sent. What the list cannot
   * say goes on, noted in the audit; the registry decides. Histories from before the check skip it.
   */
  const checkVetOffer = async (
    evpId: string,
    vettingClass: string | undefined,
    kind: 'order' | 'import',
  ): Promise<{ refused: OperationResult } | { offer?: VettingProviderOffer }> => {
    if (!patched(PATCHES.vetOfferCheck)) return {};
    const read = await guarded.read('check vetting provider', () =>
      reads.vettingProviderOffer({ account, evpId, kind, ...(vettingClass ? { vettingClass } : {}) }),
    );
    if (!read.ok) return { refused: refusedBy('check vetting provider', read) };
    const verdict = vetOfferVerdict(read.value);
    if (verdict.refused !== undefined) {
      audit('operator', 'vet-refused', verdict.refused);
      return { refused: { outcome: 'refused', detail: verdict.refused } };
    }
    if (verdict.note !== undefined) audit('operator', 'vet-offer-unknown', verdict.note);
    return { offer: read.value };
  };

  /**
   * Before a vet order or import (behind its patch): a brand whose vets at the registry are not read
   * yet (adopted, or found at the registry when ordered again) reads them first; an identical vet in
   * progress (the same provider and class, or provider and vetting id) answers the request instead of
   * a second vet and a second fee. Undefined: go on.
   */
  const vetAlreadyInProgress = async (
    request: { evpId: string } & ({ vettingClass: string } | { vettingId: string }),
  ): Promise<OperationResult | undefined> => {
    if (!patched(PATCHES.vetOnce)) return undefined;
    if (state.vetsToAdopt) await adoptVets('operator');
    if (state.vetsToAdopt)
      return {
        outcome: 'failed',
        detail: "the brand's vets at the registry could not be read yet; nothing was ordered: ask again",
      };
    const running = identicalVetInProgress(status.vets, request);
    if (!running) return undefined;
    audit('operator', 'vet-already-in-progress', `#${running.seq} ${running.evpId} ${running.state}`);
    return {
      outcome: 'done',
      detail: `already in progress: vet #${running.seq} (${running.state})`,
      ids: {
        vetSeq: String(running.seq),
        vetWorkflowId: running.workflowId,
        ...(running.vettingId ? { vettingId: running.vettingId } : {}),
      },
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
    // A corrected brand (a new businessContactEmail, say) still waiting: a full period from now.
    restartWait();
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
        const appealingAgain = status.phase === 'appeal-pending';
        state.appealPending = status.identityStatus === 'UNVERIFIED';
        audit('operator', 'appealed', appeal.appealCategories.join(', '));
        if (state.snapshot) applySnapshot(state.snapshot, 'operator');
        // Appealed again while the first waits: the review wait starts over.
        if (appealingAgain) restartWait();
        return { outcome: 'done' };
      }
      case 'orderVet': {
        const order = acceptedRequest<OrderVetRequest>(op);
        const running = await vetAlreadyInProgress({ evpId: order.evpId, vettingClass: order.vettingClass });
        if (running) return running;
        const checked = await checkVetOffer(order.evpId, order.vettingClass, 'order');
        if ('refused' in checked) return checked.refused;
        const vet = await startVet(
          {
            mode: 'order',
            evpId: order.evpId,
            vettingClass: order.vettingClass,
            ...(order.politicalPayload ? { politicalPayload: order.politicalPayload } : {}),
            ...(checked.offer ? { offerChecked: true } : {}),
          },
          'operator',
        );
        return { outcome: 'done', ids: { vetSeq: String(vet.seq), vetWorkflowId: vet.workflowId } };
      }
      case 'importVet': {
        const imp = acceptedRequest<ImportVetRequest>(op);
        const running = await vetAlreadyInProgress({ evpId: imp.evpId, vettingId: imp.vettingId });
        if (running) return running;
        const checked = await checkVetOffer(imp.evpId, imp.vettingClass, 'import');
        if ('refused' in checked) return checked.refused;
        if (
          checked.offer &&
          importIsPolitical(imp.vettingClass, checked.offer) &&
          hasPoliticalAccessByTaxStatus(status.entityType, status.optionalAttributes)
        ) {
          const refusal = politicalAccessRefusal(status.optionalAttributes.taxExemptStatus, 'import');
          const detail = imp.vettingClass ? refusal : `${refusal} (${imp.evpId} lists only POLITICAL vets)`;
          audit('operator', 'vet-refused', detail);
          return { outcome: 'refused', detail };
        }
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
      case 'acknowledge': {
        // The validator accepts only a wait's overdue key: the wait's deadline moves a full period.
        const { key } = acceptedRequest<AcknowledgeRequest>(op);
        const had = books.hasAction(key);
        restartWait();
        books.clearAction(key);
        audit('operator', 'acknowledged', key);
        return { outcome: 'done', ...(had ? {} : { detail: `${key} was already cleared` }) };
      }
      case 'cancel': {
        const { reason } = acceptedRequest<CancelRequest>(op);
        await cancel(reason, 'operator');
        if (!status.brandId) return { outcome: 'done' };
        // Nothing of the brand's own renews (the spec bills campaigns monthly, a brand and a vet once);
        // its campaigns keep their own workflows, and renewals, until each is cancelled.
        return {
          outcome: 'done',
          detail:
            'the brand stays at the registry (the spec has no delete); its campaigns keep their own workflows and renewals: cancel each (tcr campaign cancel) to turn its renewal off',
          ids: { brandId: status.brandId },
        };
      }
    }
  };

  return { stopVets, cancel, execute };
}

export type BrandOperations = ReturnType<typeof brandOperations>;
