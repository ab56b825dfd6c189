/**
 * The campaign workflow's messages: the status query, the registry-event and brand-ready signals, and
 * the operator updates. Handlers validate and enqueue; the loop runs the operation and the update
 * awaits its outcome.
 */
import { setHandler } from '@temporalio/workflow';
import { type CampaignStatus, campaignStatusQuery } from '../../contracts/campaign.js';
import {
  acknowledgeUpdate,
  approveFeeUpdate,
  type CampaignOperationOutcome,
  cancelCampaignUpdate,
  confirmDcaCompleteUpdate,
  resubmitUpdate,
  shareWithUpdate,
  updateCampaignUpdate,
} from '../../contracts/campaign-operations.js';
import { brandReadySignal, registryEventSignal } from '../../contracts/signals.js';
import { refuseUnlessAllowed } from '../entity/phases.js';
import { setRegistryChangedHandler } from '../entity/registry-changed.js';
import { requestIdentity, UPDATE_REQUESTS_KEPT, updateOnce } from '../entity/update-once.js';
import { PATCHES } from '../patches.js';
import {
  checkAcknowledgeRequest,
  checkApproveFeeRequest,
  checkCampaignCancelRequest,
  checkConfirmDcaCompleteRequest,
  checkResubmitRequest,
  checkShareWithRequest,
  checkUpdateCampaignRequest,
} from '../request-checks.js';
import type { CampaignApply } from './apply.js';
import type { CampaignContext } from './context.js';
import { acknowledgeable } from './derive.js';
import type { CampaignOperations } from './operations.js';
import type { CampaignOperation } from './phases.js';

const NUDGES_LIMIT = 20;
/** Delivery ids kept per acknowledgeable needs-action entry, and entries kept (see `state.raisedBy`). */
const RAISED_BY_IDS_LIMIT = 8;
const RAISED_BY_KEYS_LIMIT = 64;

export function setCampaignHandlers(ctx: CampaignContext, apply: CampaignApply, ops: CampaignOperations) {
  const { state, status, table, wakeup, queue, dedupe, books, audit, final } = ctx;
  const { recordSuspension } = apply;
  const { cancelPending } = ops;

  const submit = async (kind: CampaignOperation, request: unknown): Promise<CampaignOperationOutcome> =>
    (await queue.awaitOutcome(
      queue.enqueue(kind, request, { first: kind === 'cancel' }),
    )) as CampaignOperationOutcome;
  /**
   * Every operator update once per update id (../entity/update-once.ts). approveFee and cancel asked
   * again while one is queued or in flight, resubmit and shareWith while an identical one is, are
   * answered with its outcome: one billed creation, no duplicate write.
   */
  const updates = updateOnce<CampaignOperationOutcome>(
    (create) => {
      if (create) state.updateRequests ??= [];
      return state.updateRequests;
    },
    PATCHES.updateOnce,
    UPDATE_REQUESTS_KEPT,
  );
  const sameAs = (kind: CampaignOperation, request: unknown): string | undefined =>
    kind === 'approveFee' || kind === 'cancel'
      ? requestIdentity(kind, undefined)
      : kind === 'resubmit' || kind === 'shareWith' || kind === 'update'
        ? requestIdentity(kind, request)
        : undefined;
  const once = (kind: CampaignOperation, request: unknown) =>
    updates.run(() => submit(kind, request), sameAs(kind, request));
  /** Let through: an update id answered before, or a request identical to one in progress. */
  const repeated = (kind: CampaignOperation, request: unknown): boolean => {
    const same = sameAs(kind, request);
    return updates.answeredBefore() || (same !== undefined && updates.inProgress(same));
  };
  const allowed = (kind: CampaignOperation) => {
    if (status.phase === 'share-pending' && kind !== 'acknowledge') throw new Error(pendingShareRefusal());
    refuseUnlessAllowed(table, status.phase, kind);
  };
  const pendingShareRefusal = () =>
    `a share with ${status.sharing?.upstreamCnpId ?? status.upstreamCnpId} is PENDING: the registry does not allow changing or rescinding it until the partner decides`;

  setHandler(
    campaignStatusQuery,
    (): CampaignStatus => ({ ...status, pendingOperations: queue.pendingKinds() }),
  );

  setRegistryChangedHandler({ fingerprint: ctx.fingerprint, final, audit, wakeup });

  /** `deliveryId` raised (or raised again) needs-action `key`: forgotten when the operator acknowledges it. */
  const raisedBy = (key: string, deliveryId: string) => {
    if (!books.hasAction(key)) return;
    state.raisedBy ??= {};
    const map = state.raisedBy;
    const ids = map[key] ?? [];
    map[key] = ids;
    if (!ids.includes(deliveryId)) ids.push(deliveryId);
    while (ids.length > RAISED_BY_IDS_LIMIT) ids.shift();
    const keys = Object.keys(map);
    if (keys.length > RAISED_BY_KEYS_LIMIT)
      for (const stale of keys.filter((k) => !books.hasAction(k))) delete map[stale];
  };

  setHandler(registryEventSignal, (delivery) => {
    if (!dedupe.firstSeen(delivery.deliveryId)) {
      status.deliveries.duplicates++;
      return;
    }
    status.deliveries.received++;
    const event = delivery.event;
    if (status.campaignId && event.campaignId && event.campaignId !== status.campaignId) {
      audit('webhook', 'event-ignored', `${event.eventType} for campaign ${event.campaignId}`);
      return;
    }
    audit('webhook', 'event', [event.eventType, event.description].filter(Boolean).join(': '));
    if (!final())
      switch (event.eventType) {
        case 'CAMPAIGN_DCA_COMPLETE':
          state.dcaEventSeen = true;
          break;
        case 'CAMPAIGN_EXPIRED':
          if (/political/i.test(event.description ?? '')) state.politicalExpiryEventSeen = true;
          break;
        case 'MNO_CAMPAIGN_OPERATION_SUSPENDED':
          if (event.mnoId !== undefined) {
            const mnoId = String(event.mnoId);
            // After an acknowledgement, a suspension event is a new suspension (spec-lifecycle runs).
            const again = state.specLifecycle === true;
            recordSuspension(mnoId, 'webhook', event.mnoName, event.description, again);
            raisedBy(`suspended-${mnoId}`, delivery.deliveryId);
          } else {
            books.setAction(
              'suspended-unknown',
              'find which MNO suspended the campaign',
              event.description || 'an MNO suspended the campaign',
            );
            raisedBy('suspended-unknown', delivery.deliveryId);
          }
          break;
        case 'CAMPAIGN_NUDGE': {
          const nudgeIntent = event.nudgeIntent || 'UNKNOWN';
          status.nudges.push({
            nudgeIntent,
            at: new Date(Date.now()).toISOString(),
            ...(event.description ? { description: event.description } : {}),
          });
          while (status.nudges.length > NUDGES_LIMIT) status.nudges.shift();
          books.setAction(
            `nudge-${nudgeIntent}`,
            'review the nudge; acknowledge when handled',
            `${nudgeIntent}${event.description ? `: ${event.description}` : ''}`,
          );
          raisedBy(`nudge-${nudgeIntent}`, delivery.deliveryId);
          break;
        }
        default:
          break;
      }
    wakeup.bump('webhook');
  });

  // The brand's workflow tells us when the brand reaches ready (a hint; the readiness read decides).
  setHandler(brandReadySignal, () => wakeup.bump('workflow'));

  setHandler(approveFeeUpdate, (request) => once('approveFee', request), {
    validator: (request) => {
      if (repeated('approveFee', request)) return;
      allowed('approveFee');
      const parsed = checkApproveFeeRequest(request);
      const max = parsed.maxMonthlyFee;
      if (max !== undefined && status.expectedMonthlyFee !== undefined && status.expectedMonthlyFee > max)
        throw new Error(
          `maxMonthlyFee: the expected monthly fee ${status.expectedMonthlyFee} is above the approved maximum ${max}`,
        );
      if (queue.pendingKinds().includes('approveFee')) throw new Error('an approveFee is already queued');
    },
  });

  setHandler(resubmitUpdate, (request) => once('resubmit', request), {
    validator: (request) => {
      if (repeated('resubmit', request)) return;
      allowed('resubmit');
      checkResubmitRequest(request);
      if (status.created && status.phase !== 'share-declined' && !books.hasAction('share'))
        throw new Error(
          `resubmit applies before creation or after a declined or refused share; the campaign is ${status.phase}`,
        );
    },
  });

  setHandler(updateCampaignUpdate, (request) => once('update', request), {
    validator: (request) => {
      if (repeated('update', request)) return;
      allowed('update');
      const parsed = checkUpdateCampaignRequest(request);
      if (!status.created)
        throw new Error(
          `update applies to a created campaign; before creation use resubmit (phase ${status.phase})`,
        );
      if (status.phase === 'winding-down' && parsed.changes.autoRenewal === true)
        throw new Error(
          'changes.autoRenewal: the campaign was cancelled and is winding down (renewal off); it cannot be renewed again here',
        );
      if (parsed.answers !== undefined && !books.hasAction(parsed.answers))
        throw new Error(`answers: no needs-action entry ${parsed.answers}`);
    },
  });

  setHandler(shareWithUpdate, (request) => once('shareWith', request), {
    validator: (request) => {
      if (repeated('shareWith', request)) return;
      allowed('shareWith');
      const parsed = checkShareWithRequest(request);
      if (status.phase !== 'share-declined' && !books.hasAction('share') && !books.hasAction('partner'))
        throw new Error(
          `shareWith applies after a declined or refused share, or an upstream partner the registry does not list; the campaign is ${status.phase}`,
        );
      if (status.phase === 'share-declined' && status.sharing?.upstreamCnpId === parsed.upstreamCnpId)
        throw new Error(
          `upstreamCnpId: ${parsed.upstreamCnpId} declined this campaign; change it with resubmit to share with the same partner again`,
        );
    },
  });

  setHandler(cancelCampaignUpdate, (request) => once('cancel', request), {
    validator: (request) => {
      if (repeated('cancel', request)) return;
      allowed('cancel');
      checkCampaignCancelRequest(request);
      if (cancelPending()) throw new Error('a cancel is already queued');
    },
  });

  setHandler(confirmDcaCompleteUpdate, (request) => once('confirmDcaComplete', request), {
    validator: (request) => {
      if (repeated('confirmDcaComplete', request)) return;
      checkConfirmDcaCompleteRequest(request);
      if (final())
        throw new Error(`the workflow is ${status.phase} (final): confirmDcaComplete is not possible`);
      // Confirmed before (or accepted by a DCA): answered as a no-op with the first outcome.
      if (status.dcaConfirmation || status.dcaComplete) return;
      allowed('confirmDcaComplete');
    },
  });

  setHandler(acknowledgeUpdate, (request) => once('acknowledge', request), {
    validator: (request) => {
      if (repeated('acknowledge', request)) return;
      if (final()) throw new Error(`the workflow is ${status.phase} (final): acknowledge is not possible`);
      const { key } = checkAcknowledgeRequest(request);
      if (!books.hasAction(key)) throw new Error(`key: no needs-action entry ${key}`);
      if (!acknowledgeable(key))
        throw new Error(`key: ${key} is cleared by acting on it (see its action), not by acknowledging`);
    },
  });
}
