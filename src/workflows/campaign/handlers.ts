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
  resubmitUpdate,
  shareWithUpdate,
} from '../../contracts/campaign-operations.js';
import { brandReadySignal, registryEventSignal } from '../../contracts/signals.js';
import { refuseUnlessAllowed } from '../entity/phases.js';
import { setRegistryChangedHandler } from '../entity/registry-changed.js';
import {
  checkAcknowledgeRequest,
  checkApproveFeeRequest,
  checkCampaignCancelRequest,
  checkResubmitRequest,
  checkShareWithRequest,
} from '../request-checks.js';
import type { CampaignApply } from './apply.js';
import type { CampaignContext } from './context.js';
import { acknowledgeable } from './derive.js';
import type { CampaignOperations } from './operations.js';
import type { CampaignOperation } from './phases.js';

const NUDGES_LIMIT = 20;

export function setCampaignHandlers(ctx: CampaignContext, apply: CampaignApply, ops: CampaignOperations) {
  const { state, status, table, wakeup, queue, dedupe, books, audit, final } = ctx;
  const { recordSuspension } = apply;
  const { cancelPending } = ops;

  const submit = async (kind: CampaignOperation, request: unknown): Promise<CampaignOperationOutcome> =>
    (await queue.awaitOutcome(
      queue.enqueue(kind, request, { first: kind === 'cancel' }),
    )) as CampaignOperationOutcome;
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
          if (event.mnoId !== undefined)
            recordSuspension(String(event.mnoId), 'webhook', event.mnoName, event.description);
          else
            books.setAction(
              'suspended-unknown',
              'find which MNO suspended the campaign',
              event.description || 'an MNO suspended the campaign',
            );
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
          break;
        }
        default:
          break;
      }
    wakeup.bump('webhook');
  });

  // The brand's workflow tells us when the brand reaches ready (a hint; the readiness read decides).
  setHandler(brandReadySignal, () => wakeup.bump('workflow'));

  setHandler(approveFeeUpdate, (request) => submit('approveFee', request), {
    validator: (request) => {
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

  setHandler(resubmitUpdate, (request) => submit('resubmit', request), {
    validator: (request) => {
      allowed('resubmit');
      checkResubmitRequest(request);
      if (status.created && status.phase !== 'share-declined' && !books.hasAction('share'))
        throw new Error(
          `resubmit applies before creation or after a declined or refused share; the campaign is ${status.phase}`,
        );
    },
  });

  setHandler(shareWithUpdate, (request) => submit('shareWith', request), {
    validator: (request) => {
      allowed('shareWith');
      const parsed = checkShareWithRequest(request);
      if (status.phase !== 'share-declined' && !books.hasAction('share'))
        throw new Error(
          `shareWith applies after a declined or refused share; the campaign is ${status.phase}`,
        );
      if (status.phase === 'share-declined' && status.sharing?.upstreamCnpId === parsed.upstreamCnpId)
        throw new Error(
          `upstreamCnpId: ${parsed.upstreamCnpId} declined this campaign; change it with resubmit to share with the same partner again`,
        );
    },
  });

  setHandler(cancelCampaignUpdate, (request) => submit('cancel', request), {
    validator: (request) => {
      allowed('cancel');
      checkCampaignCancelRequest(request);
      if (cancelPending()) throw new Error('a cancel is already queued');
    },
  });

  setHandler(acknowledgeUpdate, (request) => submit('acknowledge', request), {
    validator: (request) => {
      if (final()) throw new Error(`the workflow is ${status.phase} (final): acknowledge is not possible`);
      const { key } = checkAcknowledgeRequest(request);
      if (!books.hasAction(key)) throw new Error(`key: no needs-action entry ${key}`);
      if (!acknowledgeable(key))
        throw new Error(`key: ${key} is cleared by acting on it (see its action), not by acknowledging`);
    },
  });
}
