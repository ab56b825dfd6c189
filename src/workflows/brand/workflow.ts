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
 * allow are one table (./phases.ts); the state is one object (./state.ts). This file runs the loop;
 * what one run shares is ./context.ts, the registry steps ./steps.ts, the operator operations
 * ./operations.ts, and the message handlers ./handlers.ts.
 */
import {
  allHandlersFinished,
  CancellationScope,
  condition,
  continueAsNew,
  isCancellation,
  patched,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { BrandResult } from '../../contracts/brand.js';
import { parkedEventsByReferenceWorkflowId, parkedEventsWorkflowId } from '../../contracts/ids.js';
import { AccountKey, BrandReferenceKey } from '../../contracts/search-attributes.js';
import { parkedAccount } from '../entity/claim-parked.js';
import { describeEntity } from '../entity/current-details.js';
import { runEntityLoop, startAdoptedPolls } from '../entity/loop.js';
import { brandOutcome, setNotifications } from '../entity/notify.js';
import { wakePriority } from '../entity/stubs.js';
import { DEFAULT_PENDING_POLL, DEFAULT_STEADY_POLL_MS } from '../entity/wait.js';
import { PATCHES } from '../patches.js';
import { brandContext } from './context.js';
import { brandWait } from './derive.js';
import { setBrandHandlers } from './handlers.js';
import { brandOperations } from './operations.js';
import { brandPhases } from './phases.js';
import type { BrandRunInput } from './state.js';
import { brandSteps } from './steps.js';

export const DEFAULT_CONTINUE_AS_NEW_HISTORY_LENGTH = 10_000;

export async function brandWorkflow(input: BrandRunInput): Promise<BrandResult> {
  const ctx = brandContext(input);
  const { opts, registry, state, status, queue, wakeup, dedupe, books, guarded, audit, account } = ctx;
  const { claimParked, applySnapshot } = ctx;
  const steps = brandSteps(ctx);
  const { reconcile } = steps;
  const ops = brandOperations(ctx, steps);
  const { stopVets, cancel, execute } = ops;
  // An adoptee's handlers are set once the registry's record has decided its phase (below): an Update
  // an operator sent before the adoptee's first workflow task (tcr import starts thousands at the bulk
  // key) is validated as its handler is set, and was judged by the starting phase `registering`,
  // which refuses every correction. Behind its patch: adoptees recorded before it replay as they ran.
  const handlersAfterRecord =
    input.adopt !== undefined && !input.carried && patched(PATCHES.adopteeHandlersAfterRecord);
  if (!handlersAfterRecord) setBrandHandlers(ctx);
  const notifier = setNotifications({
    entity: 'brand',
    reference: input.reference,
    state,
    phase: () => status.phase,
    isFinal: (phase) => brandPhases[phase as keyof typeof brandPhases]?.final ?? false,
    needsAction: () => status.needsAction,
    outcome: brandOutcome,
    ids: (): Record<string, string> => (status.brandId ? { brandId: status.brandId } : {}),
    audit,
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
  // Adopted (tcr import): the registry's record as its list showed it decides the first phase, and the
  // first reconciliation reads nothing more (the record is that fresh); polls and events take over.
  const adopting = input.adopt !== undefined && !input.carried;
  const pendingPoll = opts.pendingPoll ?? DEFAULT_PENDING_POLL;
  if (adopting) {
    audit('start', 'adopted', `${input.adopt!.brandId} (${input.adopt!.identityStatus}), nothing written`);
    applySnapshot(input.adopt!, 'start');
    startAdoptedPolls(state.loop, pendingPoll);
    // Its vets at the registry are read by the first reconciliation, at the bulk priority.
    // Behind its patch: brands adopted before it never read them, so their histories replay unchanged.
    if (patched(PATCHES.adoptedBrandVets)) state.vetsToAdopt = true;
  }
  if (handlersAfterRecord) setBrandHandlers(ctx);

  /** The deadline of the wait the brand is in, unless its needs-action is raised already. */
  const deadline = (): number | undefined => {
    const wait = state.waitDeadline;
    if (!wait || wait.phase !== status.phase) return undefined;
    const key = brandWait(wait.phase, opts)?.key;
    return key && !books.hasAction(key) ? wait.at : undefined;
  };

  /** The wait's deadline passed: needs-action with what to do (acknowledging it waits a full period more). */
  const onDeadline = () => {
    const wait = state.waitDeadline;
    const what = wait && wait.phase === status.phase ? brandWait(wait.phase, opts) : undefined;
    if (!wait || !what || books.hasAction(what.key) || Date.now() < wait.at) return;
    const by = new Date(wait.at).toISOString();
    audit('timer', 'wait-overdue', `${status.phase}: ${what.missing} by ${by}`);
    books.setAction(what.key, what.action, `${what.missing} by ${by} (phase ${status.phase})`);
  };

  try {
    // Events the ingress parked for this brand (by reference before the workflow existed, by registry
    // id before visibility showed our TcrBrandId). Claimed on every run, continue-as-new included.
    await claimParked(parkedEventsByReferenceWorkflowId('brand', input.reference, parkedAccount(account)));
    if (status.brandId)
      await claimParked(parkedEventsWorkflowId('brand', status.brandId, parkedAccount(account)));
    await runEntityLoop({
      table: brandPhases,
      phase: () => status.phase,
      queue,
      wakeup,
      guarded,
      state,
      dedupe,
      view: status,
      audit,
      details: () =>
        describeEntity(
          { kind: 'Brand', name: input.reference, account, ids: { brandId: status.brandId } },
          status,
          brandPhases[status.phase].final,
        ),
      polls: {
        pending: pendingPoll,
        steadyMs: opts.steadyPollMs ?? DEFAULT_STEADY_POLL_MS,
      },
      deadline,
      onDeadline,
      execute: (op) => registry.at('operator', () => execute(op)),
      reconcile: (cause) =>
        adopting && cause === 'start'
          ? state.vetsToAdopt
            ? registry.at('bulk', () => reconcile(cause))
            : Promise.resolve()
          : registry.at(wakePriority(cause, status.phase === 'registering'), () => reconcile(cause)),
      continueAsNewAt: opts.continueAsNewAtHistoryLength ?? DEFAULT_CONTINUE_AS_NEW_HISTORY_LENGTH,
      beforeContinueAsNew: notifier.beforeContinueAsNew,
      continueAsNew: () => {
        // The registration travels only inside the state, and only until the brand is registered.
        const { registration: _atStart, adopt: _adopted, ...next } = input;
        return continueAsNew<typeof brandWorkflow>({ ...next, carried: state });
      },
    });
  } catch (error) {
    if (!isCancellation(error)) throw error;
    // A Temporal cancellation (Web UI, `temporal workflow cancel`): the same path as the operator's
    // cancel, after any billed write in flight has finished and been recorded. The loop has answered
    // the operation it interrupted and those still queued.
    await CancellationScope.nonCancellable(() => cancel('cancelled through Temporal', 'operator'));
  }
  if (status.phase === 'deleted') await stopVets('the registry no longer knows the brand');
  // Operations still queued get their answer, and every handler returns it before the workflow ends
  // (an update left unfinished would answer its caller "not found").
  queue.drain(status.phase, 'cancelled', `the brand is ${status.phase}`);
  delete status.waitingFor;
  await CancellationScope.nonCancellable(() => notifier.flush());
  await CancellationScope.nonCancellable(() => condition(allHandlersFinished));
  return {
    phase: status.phase,
    ...(status.brandId ? { brandId: status.brandId } : {}),
    registered: status.brandId !== undefined,
    status: { ...status, pendingOperations: [] },
  };
}
