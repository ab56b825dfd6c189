import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/**
 * Typed search attributes every registration workflow sets, so operators can find entities in the
 * Web UI (`TcrNeedsAction = true`, `TcrPhase = "running"`) and the ingress can route an event that
 * carries only a registry id. They must be registered with the namespace before workflows use them:
 * the dev server is started with them (src/toolchain/dev-server.ts), and temporal-docker registers
 * them on a real cluster.
 */
export const BrandIdKey = defineSearchAttributeKey('TcrBrandId', SearchAttributeType.KEYWORD);
export const CampaignIdKey = defineSearchAttributeKey('TcrCampaignId', SearchAttributeType.KEYWORD);
export const BrandReferenceKey = defineSearchAttributeKey('TcrBrandReference', SearchAttributeType.KEYWORD);
export const PhaseKey = defineSearchAttributeKey('TcrPhase', SearchAttributeType.KEYWORD);
export const AccountKey = defineSearchAttributeKey('TcrAccount', SearchAttributeType.KEYWORD);
export const NeedsActionKey = defineSearchAttributeKey('TcrNeedsAction', SearchAttributeType.BOOL);
/**
 * What the workflow last saw at the registry, as a compact fingerprint (src/contracts/fingerprint.ts):
 * the estate sweep compares it with the registry's list pages without waking the workflow.
 */
export const FingerprintKey = defineSearchAttributeKey('TcrFingerprint', SearchAttributeType.KEYWORD);

/**
 * When the oldest of the entity's open needs-action entries was raised (absent when it has none): the
 * workers count needs-action by age from it (tcr_needs_action_oldest_seconds, src/workers/registration-gauges.ts).
 */
export const NeedsActionSinceKey = defineSearchAttributeKey(
  'TcrNeedsActionSince',
  SearchAttributeType.DATETIME,
);

export const allSearchAttributeKeys = [
  BrandIdKey,
  CampaignIdKey,
  BrandReferenceKey,
  PhaseKey,
  AccountKey,
  NeedsActionKey,
  FingerprintKey,
  NeedsActionSinceKey,
] as const;

/** A search attribute type as the `temporal` CLI names it (`--type`, `--search-attribute Name=Type`). */
export const searchAttributeCliType: Record<SearchAttributeType, string> = {
  [SearchAttributeType.KEYWORD]: 'Keyword',
  [SearchAttributeType.BOOL]: 'Bool',
  [SearchAttributeType.TEXT]: 'Text',
  [SearchAttributeType.INT]: 'Int',
  [SearchAttributeType.DOUBLE]: 'Double',
  [SearchAttributeType.DATETIME]: 'Datetime',
  [SearchAttributeType.KEYWORD_LIST]: 'KeywordList',
};
