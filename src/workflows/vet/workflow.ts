/**
 * vetWorkflow: one external vet of one brand (a child of the brand workflow, id
 * `brand/{reference}/vet/{evpId}/{seq}-{tag}`, the tag unique to the brand run that started it). Orders (`POST /brand/{id}/externalVetting` → PENDING) or
 * imports (`PUT`) the vet, then waits for the result for the spec's 48 hours plus a grace period:
 * woken by webhook signals the brand workflow forwards, confirmed by polling
 * `GET /brand/{id}/externalVetting`. Every change is reported to the brand workflow by signal (by
 * workflow id, so it reaches the brand's current run after a continue-as-new); the result is also
 * the workflow's return value.
 *
 * It runs on the shared entity loop: registry faults raise needs-action on the vet and are retried; an
 * order is billed once (a retried order first adopts a vet of the same provider and class in
 * progress); the brand's cancel stops it (`stopVet`), and so does a Temporal cancellation, after an
 * order in flight has finished.
 */
import {
  allHandlersFinished,
  CancellationScope,
  condition,
  continueAsNew,
  defineQuery,
  getExternalWorkflowHandle,
  isCancellation,
  patched,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { VetRecord } from '../../contracts/activity-types.js';
import type { OperatorAction, VetState, WaitingFor } from '../../contracts/brand.js';
import { registryEventSignal } from '../../contracts/signals.js';
import { stopVetSignal, type VetProgress, vetProgressSignal } from '../../contracts/vet.js';
import { type AuditTrail, emptyAuditTrail } from '../entity/audit.js';
import { EntityBookkeeping } from '../entity/bookkeeping.js';
import { describeEntity } from '../entity/current-details.js';
import { type CarriedDelivery, DeliveryDedupe } from '../entity/delivery-dedupe.js';
import { initialLoopState, type LoopState, runEntityLoop } from '../entity/loop.js';
import { emptyOperationQueue, OperationQueue, type OperationQueueState } from '../entity/operations.js';
import type { PhaseTable } from '../entity/phases.js';
import { emptyFaultState, type FaultState, GuardedRegistry } from '../entity/registry-call.js';
import { registryStubs, wakePriority } from '../entity/stubs.js';
import { type BackoffSchedule, firstAttemptAtMax, GROWING_POLL, HOUR_MS, Wakeup } from '../entity/wait.js';
import { PATCHES } from '../patches.js';
import { matchVet, progressFromRecord, vetOfferVerdict, vetResultDeadline } from './derive.js';

export type VetRequest =
  | {
      mode: 'order';
      evpId: string;
      vettingClass: string;
      /** A POLITICAL order's additional payload, sent in the order's body (never in status or audit). */
      politicalPayload?: Record<string, unknown>;
      /** The brand asked the provider list before starting the vet (an operator's order). */
      offerChecked?: boolean;
    }
  | { mode: 'import'; evpId: string; vettingId: string; vettingToken?: string }
  /** A vet in progress at the registry when its brand was adopted (tcr import): followed, never ordered. */
  | { mode: 'adopt'; evpId: string; record: VetRecord };

export interface VetWorkflowInput {
  brandWorkflowId: string;
  account: string;
  brandId: string;
  seq: number;
  request: VetRequest;
  /** Default 48 h (spec, "Limits"). */
  resultWindowMs?: number;
  /** Default 2 h. */
  graceMs?: number;
  /** Default 1 min doubling to 1 h. */
  poll?: BackoffSchedule;
  continueAsNewAtHistoryLength?: number;
  /** Set by continue-as-new only. */
  carried?: VetWorkflowState;
}

export type VetOutcome = VetProgress;

/** What the vet's `vetStatus` query shows. */
export interface VetView {
  phase: VetState;
  progress: VetProgress;
  needsAction: OperatorAction[];
  waitingFor?: WaitingFor;
  audit: AuditTrail;
}

export interface VetWorkflowState {
  view: VetView;
  deadline: number;
  /** An order was sent at least once: a retry adopts the vet in progress instead of ordering again. */
  orderSent: boolean;
  /** The provider list allowed the order (`vettingProviderOffer`): not asked again on a retry. */
  offerChecked?: boolean;
  stopReason?: string;
  deliveries: CarriedDelivery[];
  queue: OperationQueueState;
  faults: FaultState;
  loop: LoopState;
}

export const vetStatusQuery = defineQuery<VetProgress>('vetStatus');
export const vetViewQuery = defineQuery<VetView>('vetView');

export const DEFAULT_VET_RESULT_WINDOW_MS = 48 * HOUR_MS;
export const DEFAULT_VET_GRACE_MS = 2 * HOUR_MS;

type VetOperation = 'stop';

const waitingResult = { final: false, poll: 'pending', allows: ['stop'] } as const;
const done = { final: true, waitsFor: 'nothing (final)', poll: 'none', allows: [] } as const;
export const vetPhases: PhaseTable<VetState, VetOperation> = {
  ordering: { final: false, waitsFor: 'registry: vet order or import', poll: 'pending', allows: ['stop'] },
  pending: { ...waitingResult, waitsFor: 'vetting provider: result (up to 48 h)' },
  'under-review': { ...waitingResult, waitsFor: 'vetting provider: review in progress' },
  active: done,
  failed: done,
  expired: done,
  'timed-out': done,
  rejected: done,
  cancelled: done,
};

export async function vetWorkflow(input: VetWorkflowInput): Promise<VetOutcome> {
  const registry = registryStubs(input.account);
  const { reads, writes } = registry;
  const state: VetWorkflowState = input.carried ?? initialVetState(input);
  if (input.carried) state.loop.runs++;
  const view = state.view;
  const wakeup = new Wakeup();
  const queue = new OperationQueue<VetOperation>(state.queue, wakeup);
  const dedupe = new DeliveryDedupe(state.deliveries);
  const books = new EntityBookkeeping(view, undefined, () => undefined);
  const guarded = new GuardedRegistry(state.faults, books);
  const brand = getExternalWorkflowHandle(input.brandWorkflowId);

  const report = async (next: VetProgress): Promise<void> => {
    if (next.state !== view.progress.state)
      books.audit(next.cause, 'vet', next.detail, view.progress.state, next.state);
    view.progress = next;
    view.phase = next.state;
    books.syncSearchAttributes();
    try {
      // With this vet's id: the brand matches reports on it (a seq may repeat across brand runs).
      await brand.signal(vetProgressSignal, { ...next, vetWorkflowId: workflowInfo().workflowId });
    } catch {
      // The brand workflow is gone (cancelled or deleted): the result stays in this workflow.
    }
  };

  setHandler(registryEventSignal, (delivery) => {
    if (dedupe.firstSeen(delivery.deliveryId)) wakeup.bump('webhook');
  });
  setHandler(stopVetSignal, ({ reason }) => {
    if (vetPhases[view.phase].final || state.stopReason !== undefined) return;
    state.stopReason = reason;
    queue.enqueue('stop', { reason }, { first: true });
  });
  setHandler(vetStatusQuery, () => view.progress);
  setHandler(vetViewQuery, () => view);

  const stop = async (reason: string) => {
    queue.drain(view.phase, 'cancelled', reason);
    await report({ ...view.progress, state: 'cancelled', cause: 'operator', detail: reason });
  };

  const order = async (): Promise<void> => {
    const target = { account: input.account, brandId: input.brandId, evpId: input.request.evpId };
    const request = input.request;
    // An adopted vet starts past ordering (initialVetState); it is never ordered from here.
    if (request.mode === 'adopt') return;
    // An order the brand did not check (the enhanced-after-low-score policy's): the provider list first.
    if (
      request.mode === 'order' &&
      !request.offerChecked &&
      !state.offerChecked &&
      patched(PATCHES.vetOfferCheck)
    ) {
      const read = await guarded.read('check vetting provider', () =>
        reads.vettingProviderOffer({
          account: input.account,
          evpId: request.evpId,
          vettingClass: request.vettingClass,
          kind: 'order',
        }),
      );
      if (!read.ok) return; // a fault: needs-action by the guard, tried again on the fault backoff
      const verdict = vetOfferVerdict(read.value);
      if (verdict.refused !== undefined)
        return report({
          ...view.progress,
          state: 'rejected',
          cause: 'start',
          reasons: [verdict.refused],
          detail: verdict.refused,
        });
      if (verdict.note !== undefined) books.audit('start', 'vet-offer-unknown', verdict.note);
      state.offerChecked = true;
    }
    const call =
      request.mode === 'order'
        ? await guarded.call(
            'order vet',
            () =>
              writes.orderExternalVet({
                ...target,
                vettingClass: request.vettingClass,
                ...(request.politicalPayload ? { politicalPayload: request.politicalPayload } : {}),
                ...(state.orderSent ? { adoptInProgress: true } : {}),
              }),
            { billed: true },
          )
        : await guarded.call(
            'import vet',
            () =>
              writes.importExternalVet({
                ...target,
                vettingId: request.vettingId,
                ...(request.vettingToken ? { vettingToken: request.vettingToken } : {}),
              }),
            { billed: true },
          );
    state.orderSent = true;
    if (call.ok) return report(progressFromRecord(view.progress, call.value, 'start'));
    if (call.failure.class === 'rejected' || call.failure.class === 'invalid-request') {
      const reasons = call.failure.errors.map((e) => e.description);
      return report({
        ...view.progress,
        state: 'rejected',
        cause: 'start',
        reasons: reasons.length > 0 ? reasons : [call.failure.message],
        detail: call.failure.message,
      });
    }
    // A fault: needs-action is raised by the guard, and the loop tries again on the fault backoff.
  };

  const reconcile = async (cause: VetProgress['cause']): Promise<void> => {
    if (view.phase === 'ordering') return order();
    const read = await guarded.read('read vets', () =>
      reads.listExternalVets({ account: input.account, brandId: input.brandId }),
    );
    if (!read.ok) return;
    const match: VetRecord | undefined = matchVet(
      read.value,
      input.request.evpId,
      view.progress.vettingId,
      view.progress.vettingClass,
    );
    if (!match) return;
    const next = progressFromRecord(view.progress, match, cause);
    if (next.state !== view.progress.state) await report(next);
  };

  try {
    books.syncSearchAttributes();
    await runEntityLoop({
      table: vetPhases,
      phase: () => view.phase,
      queue,
      wakeup,
      guarded,
      state,
      dedupe,
      view,
      details: () =>
        describeEntity(
          {
            kind: 'Vet',
            name: `#${input.seq} ${input.request.evpId} (${input.request.mode}) of ${input.brandWorkflowId}`,
            account: input.account,
            ids: { brandId: input.brandId, vettingId: view.progress.vettingId },
          },
          view,
          vetPhases[view.phase].final,
        ),
      polls: { pending: input.poll ?? GROWING_POLL, steadyMs: HOUR_MS },
      execute: (op) =>
        registry.at('operator', async () => {
          await stop((op.request as { reason: string }).reason);
          return { outcome: 'done' };
        }),
      reconcile: (cause) =>
        registry.at(wakePriority(cause, view.phase === 'ordering'), () => reconcile(cause)),
      deadline: () => (view.phase === 'ordering' ? undefined : state.deadline),
      onDeadline: () =>
        registry.at('poll', async () => {
          // One more read (a result that came at the last moment, its webhook lost), then time out.
          await reconcile('timer');
          if (!vetPhases[view.phase].final)
            await report({
              ...view.progress,
              state: 'timed-out',
              cause: 'timer',
              detail: `no result by ${new Date(state.deadline).toISOString()} (48 h window plus grace)`,
            });
        }),
      continueAsNewAt: input.continueAsNewAtHistoryLength ?? 10_000,
      continueAsNew: () => continueAsNew<typeof vetWorkflow>({ ...input, carried: state }),
    });
  } catch (error) {
    if (!isCancellation(error)) throw error;
    await CancellationScope.nonCancellable(() =>
      registry.at('operator', () => stop('the vet workflow was cancelled')),
    );
  }
  await CancellationScope.nonCancellable(() => condition(allHandlersFinished));
  return view.progress;
}

function initialVetState(input: VetWorkflowInput): VetWorkflowState {
  const request = input.request;
  const deadline = vetResultDeadline(
    Date.now(),
    input.resultWindowMs ?? DEFAULT_VET_RESULT_WINDOW_MS,
    input.graceMs ?? DEFAULT_VET_GRACE_MS,
    request.mode === 'adopt' ? request.record : undefined,
  );
  if (request.mode === 'adopt') {
    // Ordered before the product knew the brand: its 48 h run from the registry's createDate.
    const progress = progressFromRecord(
      { seq: input.seq, state: 'pending', cause: 'start', deadline: new Date(deadline).toISOString() },
      request.record,
      'start',
    );
    return {
      view: { phase: progress.state, progress, needsAction: [], audit: emptyAuditTrail() },
      deadline,
      orderSent: true,
      deliveries: [],
      queue: emptyOperationQueue(),
      faults: emptyFaultState(),
      // Ordered long ago, perhaps: its result comes by webhook, so it polls hourly from the start, not
      // from a minute (an import of thousands of brands would otherwise start as many minute polls).
      loop: { ...initialLoopState(), pollAttempt: firstAttemptAtMax(input.poll ?? GROWING_POLL) },
    };
  }
  const progress: VetProgress = {
    seq: input.seq,
    state: 'ordering',
    cause: 'start',
    deadline: new Date(deadline).toISOString(),
    ...(input.request.mode === 'order' ? { vettingClass: input.request.vettingClass } : {}),
    ...(input.request.mode === 'import' ? { vettingId: input.request.vettingId } : {}),
  };
  return {
    view: { phase: 'ordering', progress, needsAction: [], audit: emptyAuditTrail() },
    deadline,
    orderSent: false,
    deliveries: [],
    queue: emptyOperationQueue(),
    faults: emptyFaultState(),
    loop: initialLoopState(),
  };
}
