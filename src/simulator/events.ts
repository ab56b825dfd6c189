import type { SimContext } from './context.js';
import type { BrandRecord, CampaignRecord } from './state.js';

/**
 * Event categories for webhook subscriptions, and the event types each one carries. A subscription to a
 * category receives exactly these types (documented in docs/simulator.md).
 */
export const EVENT_CATEGORIES = {
  BRAND: ['BRAND_ADD', 'BRAND_UPDATE', 'BRAND_IDENTITY_STATUS_UPDATE', 'BRAND_CONTACT_VERIFIED'],
  VETTING: [
    'EVP_REPORT_IMPORT',
    'EVP_REPORT_UNSCORE',
    'EVP_REPORT_SCORE',
    'EVP_REPORT_FAILED',
    'EVP_REPORT_EXPIRED',
  ],
  CAMPAIGN: [
    'CAMPAIGN_ADD',
    'CAMPAIGN_UPDATE',
    'CAMPAIGN_DCA_COMPLETE',
    'CAMPAIGN_EXPIRED',
    'CAMPAIGN_RENEWED',
    'CAMPAIGN_NUDGE',
    'MNO_CAMPAIGN_OPERATION_SUSPENDED',
  ],
  CAMPAIGN_SHARING: ['CAMPAIGN_SHARE_ADD', 'CAMPAIGN_SHARE_ACCEPT', 'CAMPAIGN_SHARE_DELETE'],
} as const;

export type EventCategory = keyof typeof EVENT_CATEGORIES;

export function isEventCategory(value: string): value is EventCategory {
  return Object.hasOwn(EVENT_CATEGORIES, value);
}

export function categoryOf(eventType: string): EventCategory | undefined {
  for (const [category, types] of Object.entries(EVENT_CATEGORIES)) {
    if ((types as readonly string[]).includes(eventType)) return category as EventCategory;
  }
  return undefined;
}

function cspName(cspId: string): string {
  return `Local CSP ${cspId}`;
}

function compact(event: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(event).filter(([, v]) => v !== undefined && v !== null));
}

export function brandEvent(
  ctx: SimContext,
  brand: BrandRecord,
  eventType: string,
  extra: Record<string, unknown> = {},
): void {
  ctx.emit(
    brand.cspId,
    compact({
      eventType,
      cspId: brand.cspId,
      cspName: cspName(brand.cspId),
      brandId: brand.brandId,
      brandName: brand.displayName,
      brandReferenceId: brand.referenceId ?? undefined,
      mock: brand.mock ? true : undefined,
      ...extra,
    }),
  );
}

export function campaignEvent(
  ctx: SimContext,
  campaign: CampaignRecord,
  brand: BrandRecord | undefined,
  eventType: string,
  extra: Record<string, unknown> = {},
): void {
  ctx.emit(
    campaign.cspId,
    compact({
      eventType,
      cspId: campaign.cspId,
      cspName: cspName(campaign.cspId),
      brandId: campaign.brandId,
      brandName: brand?.displayName,
      brandReferenceId: brand?.referenceId ?? undefined,
      campaignId: campaign.campaignId,
      campaignReferenceId: campaign.referenceId ?? undefined,
      mock: campaign.mock || brand?.mock ? true : undefined,
      ...extra,
    }),
  );
}
