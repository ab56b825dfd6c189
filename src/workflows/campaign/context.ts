/**
 * What every part of the campaign workflow shares within one run: the input, the state, the
 * bookkeeping, the guarded registry, the operation queue, and the few helpers everything calls
 * (set the phase, apply a needs-action change, claim parked events). Built once at the start of a run
 * by `campaignContext`; ./apply.ts, ./steps.ts, ./operations.ts and ./handlers.ts take it.
 */

import { ApplicationFailure, patched, workflowInfo } from '@temporalio/workflow';
import type { CampaignPhase } from '../../contracts/campaign.js';
import { campaignFingerprint } from '../../contracts/fingerprint.js';
import { CampaignIdKey } from '../../contracts/search-attributes.js';
import type { AuditCause } from '../entity/audit.js';
import { EntityBookkeeping } from '../entity/bookkeeping.js';
import { claimParkedEvents } from '../entity/claim-parked.js';
import { DeliveryDedupe } from '../entity/delivery-dedupe.js';
import { OperationQueue } from '../entity/operations.js';
import { guardedPhase } from '../entity/phases.js';
import { GuardedRegistry } from '../entity/registry-call.js';
import { registryStubs } from '../entity/stubs.js';
import { DEFAULT_PENDING_POLL, DEFAULT_STEADY_POLL_MS, HOUR_MS, Wakeup } from '../entity/wait.js';
import { PATCHES } from '../patches.js';
import type { ActionChange } from './derive.js';
import { type CampaignOperation, campaignPhaseTable } from './phases.js';
import { type CampaignRunInput, type CampaignState, initialCampaignState } from './state.js';

export const DEFAULT_BRAND_READY_DEADLINE_MS = 7 * 24 * HOUR_MS;
export const DEFAULT_DECISION_DEADLINE_MS = 7 * 24 * HOUR_MS;

/** A first run's input carries the campaign fields (the order API always sends them), or a campaign to adopt. */
function firstRunInput(input: CampaignRunInput): Parameters<typeof initialCampaignState>[0] {
  const { reference, account, brandReference, upstreamCnpId, requireFeeApproval } = input;
  const base = {
    reference,
    account,
    brandReference,
    upstreamCnpId,
    ...(requireFeeApproval !== undefined ? { requireFeeApproval } : {}),
  };
  if (input.campaign) return { ...base, campaign: input.campaign };
  if (input.adopt) return { ...base, adopt: input.adopt };
  throw ApplicationFailure.nonRetryable(
    'a campaign workflow starts with its campaign fields (CampaignWorkflowInput.campaign) or a campaign to adopt',
    'InvalidWorkflowInput',
  );
}

export function campaignContext(input: CampaignRunInput) {
  const opts = input.options ?? {};
  const brandPoll = opts.brandPoll ?? DEFAULT_PENDING_POLL;
  const pendingPoll = opts.pendingPoll ?? DEFAULT_PENDING_POLL;
  const steadyPollMs = opts.steadyPollMs ?? DEFAULT_STEADY_POLL_MS;
  const brandReadyDeadlineMs = opts.brandReadyDeadlineMs ?? DEFAULT_BRAND_READY_DEADLINE_MS;
  const decisionDeadlineMs = opts.decisionDeadlineMs ?? DEFAULT_DECISION_DEADLINE_MS;
  const registry = registryStubs(input.account);
  const { reads, writes } = registry;
  const account = input.account;
  const self = workflowInfo().workflowId;
  const state: CampaignState = input.carried ?? initialCampaignState(firstRunInput(input));
  if (input.carried) state.status.runs = ++state.loop.runs;
  const status = state.status;
  // awaiting-dca polls at the steady rate; histories recorded before that replay its pending schedule.
  const table = campaignPhaseTable(
    () => status.campaignStatus,
    () => (patched(PATCHES.awaitingDcaSteadyPoll) ? 'steady' : 'pending'),
  );
  const wakeup = new Wakeup();
  const queue = new OperationQueue<CampaignOperation>(state.queue, wakeup);
  // An operator's step does not wait behind the entity's pending bulk read (stubs.ts, issue 36).
  registry.yieldBulkReadsTo(() => queue.hasPending);
  const dedupe = new DeliveryDedupe(state.deliveries, opts.dedupeLimit);
  /** The fingerprint of the registry record last applied (TcrFingerprint; the estate sweep compares it). */
  const fingerprint = () => (state.snapshot ? campaignFingerprint(state.snapshot) : undefined);
  const books = new EntityBookkeeping(
    status,
    CampaignIdKey,
    () => status.campaignId,
    opts.auditLimit,
    fingerprint,
  );
  const guarded = new GuardedRegistry(state.faults, books);
  const audit = books.audit.bind(books);
  const final = () => table[status.phase].final;

  const applyAction = (key: string, change: ActionChange | undefined) => {
    if (!change) return;
    if (change.set) books.setAction(key, change.action, change.reason, change.registryErrors);
    else books.clearAction(key);
  };
  const clearAllActions = () => {
    for (const key of status.needsAction.map((a) => a.key)) books.clearAction(key);
  };

  const setPhase = (proposed: CampaignPhase, cause: AuditCause, detail?: string) => {
    const phase = guardedPhase(table, status.phase, proposed);
    if (status.phase !== phase) {
      audit(cause, 'phase', detail, status.phase, phase);
      status.phase = phase;
      state.loop.pollAttempt = 0;
    }
    books.syncSearchAttributes();
  };

  const read = <T>(site: string, fn: () => Promise<T>) => guarded.read(site, fn);

  /**
   * Decide on what the spec documents (the partner checked before creation; `running` from a DCA's
   * acceptance, never from mnoOperationStatus; an acknowledged deadline moved a period on; an
   * acknowledged event's delivery forgotten). Histories recorded before it replay the old way. Loop
   * code only (it may write the patch marker); message handlers read `state.specLifecycle`.
   */
  const spec = (): boolean => {
    const on = patched(PATCHES.campaignSpecLifecycle);
    if (on) state.specLifecycle = true;
    return on;
  };

  const claimParked = (parkedWorkflowId: string) => claimParkedEvents(parkedWorkflowId, self, audit);
  return {
    input,
    opts,
    brandPoll,
    pendingPoll,
    steadyPollMs,
    brandReadyDeadlineMs,
    decisionDeadlineMs,
    registry,
    reads,
    writes,
    account,
    self,
    state,
    status,
    table,
    wakeup,
    queue,
    dedupe,
    books,
    fingerprint,
    guarded,
    audit,
    final,
    applyAction,
    clearAllActions,
    setPhase,
    read,
    spec,
    claimParked,
  };
}

export type CampaignContext = ReturnType<typeof campaignContext>;
