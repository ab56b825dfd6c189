/**
 * campaignWorkflow: one campaign's whole life at the registry, id `campaign/{reference}`.
 *
 * awaiting-brand (brand workflow 'ready', confirmed by GET /brand) → checking (campaign builder, use
 * case, sub-use-case count, per-MNO qualification; reads only, nothing billed) → refused |
 * [awaiting-fee-approval] → creating (POST /campaignBuilder, billed once: the registry is searched by
 * referenceId first, so a re-order or a restart adopts) → sharing → share-pending → ACCEPTED by a DCA:
 * running; ACCEPTED by a CSP: awaiting-dca → running (CAMPAIGN_DCA_COMPLETE, or the operator's
 * confirmDcaComplete); DECLINED: share-declined (operator: resubmit or shareWith). An upstream partner
 * the registry does not list is refused in checking, before the billed creation. Then it stays
 * as the campaign's entity: suspensions, nudges, renewal dates, political deactivation, a slow
 * reconciliation poll, continue-as-new; it ends `expired` when the registry reports EXPIRED,
 * `deactivated` (political) once the registry no longer reports it ACTIVE, or `cancelled`.
 *
 * Built on the entity loop (../entity/loop.ts): handlers validate and enqueue; only the loop calls the
 * registry, one call at a time, every call through the guard (no registry answer fails or ends the
 * workflow: a fault raises needs-action `registry-error` and is retried; only a request refusal of the
 * creation, or checks that say "not supported", lead to `refused`). Decisions are plain functions
 * (./derive.ts); phases and what they allow are one table (./phases.ts); the state is one object
 * (./state.ts). This file runs the loop; what one run shares is ./context.ts, applying the registry's
 * answers ./apply.ts, the registry steps ./steps.ts, the operator operations ./operations.ts, and the
 * message handlers ./handlers.ts.
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
import type { CampaignResult } from '../../contracts/campaign.js';
import { parkedEventsByReferenceWorkflowId, parkedEventsWorkflowId } from '../../contracts/ids.js';
import { AccountKey, BrandReferenceKey } from '../../contracts/search-attributes.js';
import { parkedAccount } from '../entity/claim-parked.js';
import { describeEntity } from '../entity/current-details.js';
import { runEntityLoop, startAdoptedPolls } from '../entity/loop.js';
import { campaignOutcome, setNotifications } from '../entity/notify.js';
import { wakePriority } from '../entity/stubs.js';
import type { BackoffSchedule } from '../entity/wait.js';
import { PATCHES } from '../patches.js';
import { campaignApply } from './apply.js';
import { campaignContext } from './context.js';
import { overdueAction, overdueKey } from './derive.js';
import { setCampaignHandlers } from './handlers.js';
import { campaignOperations } from './operations.js';
import type { CampaignRunInput } from './state.js';
import { campaignSteps } from './steps.js';

export const DEFAULT_CAMPAIGN_CONTINUE_AS_NEW_HISTORY_LENGTH = 10_000;
export { DEFAULT_BRAND_READY_DEADLINE_MS, DEFAULT_DECISION_DEADLINE_MS } from './context.js';

export async function campaignWorkflow(input: CampaignRunInput): Promise<CampaignResult> {
  const ctx = campaignContext(input);
  const { opts, brandPoll, pendingPoll, steadyPollMs, registry, account, state, status, table } = ctx;
  const { wakeup, queue, dedupe, books, guarded, audit, claimParked } = ctx;
  const apply = campaignApply(ctx);
  const steps = campaignSteps(ctx, apply);
  const { reconcile } = steps;
  const ops = campaignOperations(ctx, apply, steps);
  const { cancel, execute } = ops;
  // An adoptee's handlers are set once the registry's record has decided its phase (below), as the
  // brand's are (./brand/workflow.ts): an operator's Update sent before its first workflow task is
  // judged by that phase. Behind its patch: adoptees recorded before it replay as they ran.
  const handlersAfterRecord =
    input.adopt !== undefined && !input.carried && patched(PATCHES.adopteeHandlersAfterRecord);
  if (!handlersAfterRecord) setCampaignHandlers(ctx, apply, ops);
  const notifier = setNotifications({
    entity: 'campaign',
    reference: status.reference,
    state,
    phase: () => status.phase,
    isFinal: (phase) => table[phase as keyof typeof table]?.final ?? false,
    needsAction: () => status.needsAction,
    outcome: campaignOutcome,
    reason: () => (status.phase === 'refused' ? status.refusal?.reason : undefined),
    ids: () => ({
      ...(status.brandId ? { brandId: status.brandId } : {}),
      ...(status.campaignId ? { campaignId: status.campaignId } : {}),
    }),
    audit,
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
  // Adopted (tcr import): the registry's record as its list showed it decides the first phase; the
  // first reconciliation reads only the share, at the bulk priority; nothing is written.
  const adopting = input.adopt !== undefined && !input.carried;
  if (adopting) {
    audit('start', 'adopted', `${input.adopt!.campaignId} (${input.adopt!.status}), nothing written`);
    apply.applySnapshot(input.adopt!, 'start');
  }
  if (handlersAfterRecord) setCampaignHandlers(ctx, apply, ops);

  /** Poll schedules by phase: the brand's while awaiting it (its longest delay once overdue), else pending. */
  const polls = {
    get pending(): BackoffSchedule {
      if (status.phase !== 'awaiting-brand') return pendingPoll;
      if (state.brandDeadline !== undefined && Date.now() >= state.brandDeadline)
        return { initialMs: brandPoll.maxMs, maxMs: brandPoll.maxMs };
      return brandPoll;
    },
    steadyMs: steadyPollMs,
  };

  // The share's decision (share-pending) or the DCAs' acceptance (awaiting-dca) is overdue: needs-action
  // `decision-overdue`, or `dca-unconfirmed` for a CSP's accepted share. Acknowledging it moves the
  // deadline a period on (operations.ts).
  const deadline = (): number | undefined => {
    const now = Date.now();
    if (status.phase === 'awaiting-brand')
      return state.brandDeadline !== undefined && state.brandDeadline > now ? state.brandDeadline : undefined;
    if (
      (status.phase === 'share-pending' || status.phase === 'awaiting-dca') &&
      state.decisionDeadline !== undefined &&
      !books.hasAction(overdueKey(status.phase, ctx.spec()))
    )
      return state.decisionDeadline;
    return undefined;
  };

  const onDeadline = () => {
    if (status.phase !== 'share-pending' && status.phase !== 'awaiting-dca') return;
    const specLifecycle = ctx.spec();
    if (state.decisionDeadline === undefined || books.hasAction(overdueKey(status.phase, specLifecycle)))
      return;
    const what = table[status.phase].waitsFor;
    const overdue = overdueAction(status.phase, specLifecycle, {
      deadline: state.decisionDeadline,
      waitsFor: what,
      partner: status.sharing?.upstreamCnpId ?? status.upstreamCnpId,
    });
    audit('timer', overdue.key, what);
    books.setAction(overdue.key, overdue.action, overdue.reason);
  };

  // Whether this run decides on what the spec documents: asked first, so the message handlers know.
  ctx.spec();
  try {
    // Events the ingress parked for this campaign before the workflow existed. Claimed on every run.
    await claimParked(parkedEventsByReferenceWorkflowId('campaign', input.reference, parkedAccount(account)));
    if (adopting) {
      state.claimedParked = true;
      await claimParked(parkedEventsWorkflowId('campaign', status.campaignId!, parkedAccount(account)));
    }
    await runEntityLoop({
      table,
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
          {
            kind: 'Campaign',
            name: input.reference,
            account,
            ids: { campaignId: status.campaignId, brandId: status.brandId },
          },
          status,
          table[status.phase].final,
        ),
      polls,
      execute: (op) => registry.at('operator', () => execute(op)),
      reconcile: (cause) =>
        adopting && cause === 'start'
          ? registry.at('bulk', async () => {
              try {
                await steps.reconcileAdopted();
              } finally {
                // Also when its read gave way to an operator's step (the next reconciliation reads).
                startAdoptedPolls(state.loop, polls.pending);
              }
            })
          : registry.at(
              wakePriority(cause, ['awaiting-brand', 'checking', 'creating'].includes(status.phase)),
              () => reconcile(cause),
            ),
      deadline,
      onDeadline,
      continueAsNewAt: opts.continueAsNewAtHistoryLength ?? DEFAULT_CAMPAIGN_CONTINUE_AS_NEW_HISTORY_LENGTH,
      beforeContinueAsNew: notifier.beforeContinueAsNew,
      continueAsNew: () => {
        // The campaign fields travel only inside the state, and only until the campaign is created.
        const { campaign: _atStart, adopt: _adopted, ...next } = input;
        return continueAsNew<typeof campaignWorkflow>({ ...next, carried: state });
      },
    });
  } catch (error) {
    if (!isCancellation(error)) throw error;
    // A Temporal cancellation (Web UI, `temporal workflow cancel`): the same path as the operator's
    // cancel, after a billed create in flight has finished and been recorded. The loop has answered
    // the operation it interrupted and those still queued.
    await CancellationScope.nonCancellable(async () => {
      // The workflow ends: a created campaign left renewing would be billed every month with nothing
      // watching it (`tcr campaign cancel` winds it down instead and watches it until it expires).
      const renewalOn =
        status.created && !table[status.phase].final && patched(PATCHES.campaignCancelRenewalOff)
          ? await steps.renewalOffAtEnd()
          : undefined;
      cancel('cancelled through Temporal', 'operator');
      if (renewalOn !== undefined)
        books.setAction(
          'renewal-on',
          'turn auto-renewal off in the registry portal (the campaign keeps renewing and being billed; this workflow has ended)',
          renewalOn,
        );
    });
  }
  // Operations still queued when a final phase was reached get their answer, and every handler
  // returns it before the workflow ends.
  queue.drain(status.phase, 'cancelled', `the campaign is ${status.phase}`);
  delete status.waitingFor;
  await CancellationScope.nonCancellable(() => notifier.flush());
  await CancellationScope.nonCancellable(() => condition(allHandlersFinished));
  return {
    phase: status.phase,
    ...(status.campaignId ? { campaignId: status.campaignId } : {}),
    billed: status.created,
    status: { ...status, pendingOperations: [] },
  };
}
