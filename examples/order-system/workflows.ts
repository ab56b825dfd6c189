/**
 * An order system's fulfilment workflow, in its own namespace (`orders`): it orders a brand and then
 * a campaign through the orchestrator's Nexus service (src/contracts/nexus-service.ts) and completes
 * when the campaign runs, or says why it cannot (the brand's or the campaign's refusal, decline or
 * needs-action, with its reason). Each order is one Nexus operation that completes with the
 * registration's outcome, durably: this workflow holds no polling loop and survives restarts of
 * either side's workers. "Provision the numbers" and "tell the customer" would go where the comments
 * say.
 */
import { createNexusServiceClient } from '@temporalio/workflow';
import {
  DEFAULT_ORDER_ENDPOINT,
  type NexusBrandOrder,
  type NexusCampaignOrder,
  type OrderResult,
  orderSystemService,
  type StatusRequest,
  type StatusResult,
} from '../../src/contracts/nexus-service.js';

export interface FulfilmentOrder {
  brand: NexusBrandOrder;
  /** The campaign to run on the brand (none: the brand alone). */
  campaign?: NexusCampaignOrder;
  /** The Nexus endpoint of the orchestrator (default `tcr-orders`). */
  endpoint?: string;
}

export interface FulfilmentResult {
  /** True when the brand is ready and the campaign (if any) runs. */
  fulfilled: boolean;
  brand: OrderResult;
  campaign?: OrderResult;
  /** Why not, in the orchestrator's words. */
  why?: string;
}

const because = (r: OrderResult) =>
  `${r.entity} ${r.reference} ${r.outcome} (${r.phase})${r.reason ? `: ${r.reason}` : ''}`;

export async function orderFulfilmentWorkflow(order: FulfilmentOrder): Promise<FulfilmentResult> {
  const tcr = createNexusServiceClient({
    endpoint: order.endpoint ?? DEFAULT_ORDER_ENDPOINT,
    service: orderSystemService,
  });
  // A registration can take days (a contact's e-mail verification, a partner's review): no timeout.
  const brand = await tcr.executeOperation('orderBrand', order.brand);
  if (brand.outcome !== 'ready') return { fulfilled: false, brand, why: because(brand) }; // tell the customer
  if (!order.campaign) return { fulfilled: true, brand };
  const campaign = await tcr.executeOperation('orderCampaign', order.campaign);
  if (campaign.outcome !== 'running') return { fulfilled: false, brand, campaign, why: because(campaign) }; // tell the customer
  // Provision the numbers here (an activity of the order system).
  return { fulfilled: true, brand, campaign };
}

/** Where a registration stands, at once (the synchronous `status` operation). */
export async function orderStatusWorkflow(
  request: StatusRequest & { endpoint?: string },
): Promise<StatusResult> {
  const tcr = createNexusServiceClient({
    endpoint: request.endpoint ?? DEFAULT_ORDER_ENDPOINT,
    service: orderSystemService,
  });
  const { endpoint: _, ...status } = request;
  return tcr.executeOperation('status', status);
}
