/**
 * The brand workflow's messages: the status query, the operator updates, and the readiness-watch,
 * registry-event and vet-progress signals. Handlers validate and enqueue (or record a hint and wake
 * the loop); the loop runs the operation and the update awaits its outcome.
 */
import { getExternalWorkflowHandle, setHandler } from '@temporalio/workflow';
import { type BrandPhase, type BrandStatus, brandStatusQuery } from '../../contracts/brand.js';
import {
  acknowledgeBrandUpdate,
  appealUpdate,
  cancelUpdate,
  correctBrandUpdate,
  importVetUpdate,
  orderVetUpdate,
  revetUpdate,
} from '../../contracts/brand-operations.js';
import { registryEventSignal, watchBrandReadinessSignal } from '../../contracts/signals.js';
import { vetProgressSignal } from '../../contracts/vet.js';
import {
  brandUpdateGroups,
  groupsOfPatch,
  nextGroup3UpdateAllowedAt,
} from '../../registry/brand-update-groups.js';
import type { OperationOutcome } from '../entity/operations.js';
import { refuseUnlessAllowed } from '../entity/phases.js';
import { setRegistryChangedHandler } from '../entity/registry-changed.js';
import { requestIdentity, UPDATE_REQUESTS_KEPT, updateOnce } from '../entity/update-once.js';
import { PATCHES } from '../patches.js';
import {
  checkAcknowledgeRequest,
  checkAppealRequest,
  checkCancelRequest,
  checkCorrectBrandRequest,
  checkImportVetRequest,
  checkOrderVetRequest,
} from '../request-checks.js';
import { politicalAccessRefusal } from '../vet/derive.js';
import type { BrandContext } from './context.js';
import { brandWaitKeys, eventConcernsVet, hasPoliticalAccessByTaxStatus, vetAction } from './derive.js';
import { type BrandOperation, brandPhases } from './phases.js';
import { VET_REQUESTS_KEPT } from './state.js';

const WATCHERS_LIMIT = 1_000;

export function setBrandHandlers(ctx: BrandContext) {
  const { state, status, wakeup, queue, dedupe, books, audit, final, applyAction, notifyWatchers } = ctx;

  const submit = async (kind: BrandOperation, request: unknown): Promise<OperationOutcome<BrandPhase>> =>
    (await queue.awaitOutcome(
      queue.enqueue(kind, request, { first: kind === 'cancel' }),
    )) as OperationOutcome<BrandPhase>;
  type Outcome = OperationOutcome<BrandPhase>;
  /**
   * A billed vet request, once per update id (the caller's idempotency key): an id seen before, in this
   * run or an earlier one, is answered with the first outcome, nothing run again. An identical request
   * under another id is answered by the operation itself ("already in progress", ./operations.ts).
   */
  const vets = updateOnce<Outcome>(
    (create) => {
      if (create) state.vetRequests ??= [];
      return state.vetRequests;
    },
    PATCHES.vetOnce,
    VET_REQUESTS_KEPT,
  );
  const vetOnce = (kind: 'orderVet' | 'importVet', request: unknown) => vets.run(() => submit(kind, request));
  /**
   * Every other operator update, once per update id (../entity/update-once.ts). correctBrand, revet,
   * appeal and cancel asked again while an identical one is queued or in flight are answered with its
   * outcome (revet and appeal may be billed; a second identical correction or cancel changes nothing).
   */
  const updates = updateOnce<Outcome>(
    (create) => {
      if (create) state.updateRequests ??= [];
      return state.updateRequests;
    },
    PATCHES.updateOnce,
    UPDATE_REQUESTS_KEPT,
  );
  /** The identity identical requests share: any revet or cancel is the same; others by their content. */
  const sameAs = (kind: BrandOperation, request: unknown): string | undefined =>
    kind === 'acknowledge'
      ? undefined
      : requestIdentity(kind, kind === 'revet' || kind === 'cancel' ? undefined : request);
  const once = (kind: BrandOperation, request: unknown) =>
    updates.run(() => submit(kind, request), sameAs(kind, request));
  /** Let through: an update id answered before, or a request identical to one in progress. */
  const repeated = (kind: BrandOperation, request: unknown): boolean => {
    const same = sameAs(kind, request);
    return updates.answeredBefore() || (same !== undefined && updates.inProgress(same));
  };
  const answeredBefore = () => vets.answeredBefore();
  const allowed = (kind: BrandOperation) => refuseUnlessAllowed(brandPhases, status.phase, kind);

  setHandler(brandStatusQuery, (): BrandStatus => ({ ...status, pendingOperations: queue.pendingKinds() }));

  setHandler(correctBrandUpdate, (request) => once('correctBrand', request), {
    validator: (request) => {
      if (repeated('correctBrand', request)) return;
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

  setHandler(revetUpdate, () => once('revet', undefined), {
    validator: () => {
      if (repeated('revet', undefined)) return;
      allowed('revet');
      if (status.identityStatus !== 'UNVERIFIED')
        throw new Error(`revet applies to UNVERIFIED brands; this brand is ${status.identityStatus}`);
    },
  });

  setHandler(appealUpdate, (request) => once('appeal', request), {
    validator: (request) => {
      if (repeated('appeal', request)) return;
      allowed('appeal');
      checkAppealRequest(request);
    },
  });

  setHandler(orderVetUpdate, (request) => vetOnce('orderVet', request), {
    validator: (request) => {
      if (answeredBefore()) return;
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

  setHandler(importVetUpdate, (request) => vetOnce('importVet', request), {
    validator: (request) => {
      if (answeredBefore()) return;
      allowed('importVet');
      const parsed = checkImportVetRequest(request);
      if (
        parsed.vettingClass === 'POLITICAL' &&
        hasPoliticalAccessByTaxStatus(status.entityType, status.optionalAttributes)
      )
        throw new Error(
          `vettingClass: ${politicalAccessRefusal(status.optionalAttributes.taxExemptStatus, 'import')}`,
        );
    },
  });

  setHandler(cancelUpdate, (request) => once('cancel', request), {
    validator: (request) => {
      if (repeated('cancel', request)) return;
      allowed('cancel');
      checkCancelRequest(request);
      if (queue.pendingKinds().includes('cancel')) throw new Error('a cancel is already queued');
    },
  });

  setHandler(acknowledgeBrandUpdate, (request) => once('acknowledge', request), {
    validator: (request) => {
      if (repeated('acknowledge', request)) return;
      allowed('acknowledge');
      const { key } = checkAcknowledgeRequest(request);
      if (!books.hasAction(key)) throw new Error(`key: no needs-action entry ${key}`);
      if (!brandWaitKeys.includes(key))
        throw new Error(`key: ${key} is cleared by acting on it (see its action), not by acknowledging`);
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

  setRegistryChangedHandler({ fingerprint: ctx.fingerprint, final, audit, wakeup });

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
    // Matched on the vet's workflow id: a vet of an earlier brand run (terminated, reset) may share a seq.
    const vet =
      progress.vetWorkflowId !== undefined
        ? status.vets.find((v) => v.workflowId === progress.vetWorkflowId)
        : status.vets.find((v) => v.seq === progress.seq);
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
}
