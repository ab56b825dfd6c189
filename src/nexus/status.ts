/**
 * Where a brand or campaign stands for an order system, read from its `status` query: the Nexus
 * service's `status` operation, and the outcome of an entity whose workflow has closed (it takes no
 * subscription any more). Phases are read as the notifications read them: one module,
 * src/contracts/order-outcome.ts (success, an end, an operator needed, or in progress).
 */
import type { Client } from '@temporalio/client';
import type { BrandStatus } from '../contracts/brand.js';
import type { CampaignStatus } from '../contracts/campaign.js';
import { entityWorkflowId } from '../contracts/ids.js';
import type { OrderResult, StatusResult } from '../contracts/nexus-service.js';
import type { NotifiedEntity } from '../contracts/notifications.js';
import { orderOutcome, orderReason } from '../contracts/order-outcome.js';
import { getBrandStatus } from '../orders/brand-client.js';
import { getCampaignStatus } from '../orders/campaign-orders.js';

/** The status as the order system sees it (no personal data: phase, keys, reasons, registry ids). */
export function statusResult(status: BrandStatus | CampaignStatus): StatusResult {
  const entity: NotifiedEntity = status.workflowType;
  const needsAction = status.needsAction.map((a) => ({ key: a.key, action: a.action, reason: a.reason }));
  const outcome = orderOutcome(entity, status.phase, needsAction.length > 0);
  const ids: Record<string, string> = {};
  if (status.brandId) ids.brandId = status.brandId;
  if (status.workflowType === 'campaign' && status.campaignId) ids.campaignId = status.campaignId;
  const campaign = status.workflowType === 'campaign' ? status : undefined;
  const reason = orderReason(entity, {
    phase: status.phase,
    refusalReason: campaign?.refusal?.reason,
    declineExplanation: campaign?.sharing?.explanation,
    cancelReason: status.cancelReason,
    needsActionReasons: needsAction.map((a) => a.reason),
  });
  return {
    entity,
    account: status.account,
    reference: status.reference,
    workflowId: entityWorkflowId(entity, status.account, status.reference),
    phase: status.phase,
    outcome,
    ...(reason !== undefined ? { reason } : {}),
    needsAction,
    ...(Object.keys(ids).length > 0 ? { ids } : {}),
  };
}

export async function readStatus(
  client: Client,
  entity: NotifiedEntity,
  account: string,
  reference: string,
): Promise<StatusResult> {
  const ref = { account, reference };
  const status =
    entity === 'brand' ? await getBrandStatus(client, ref) : await getCampaignStatus(client, ref);
  return statusResult(status);
}

/** A status as an order result (the outcome of an entity whose workflow has closed). */
export function orderResultOfStatus(status: StatusResult, at: string): OrderResult {
  return {
    entity: status.entity,
    account: status.account,
    reference: status.reference,
    workflowId: status.workflowId,
    outcome: status.outcome,
    phase: status.phase,
    ...(status.reason !== undefined ? { reason: status.reason } : {}),
    ...(status.outcome === 'needs-action' && status.needsAction[0]
      ? { needsActionKey: status.needsAction[0].key }
      : {}),
    ...(status.ids ? { ids: status.ids } : {}),
    notificationId: `${status.workflowId}/closed`,
    at,
  };
}
