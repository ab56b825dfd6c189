import type { UseCaseDef } from './reference-data.js';
import { MNOS, useCase } from './reference-data.js';
import type { BrandRecord, VetRecord } from './state.js';
import { politicalByTaxStatus } from './vetting.js';

/** Per-MNO metadata the registry returns at campaign creation (spec, "Campaign MNO metadata"). */
export interface MnoMetadata {
  minMsgSamples: number;
  reqSubscriberHelp: boolean;
  reqSubscriberOptout: boolean;
  reqSubscriberOptin: boolean;
  brandDailyCap: number;
  mnoReview: boolean;
  mnoSupport: boolean;
  brandTier: string;
  noEmbeddedLink: boolean;
  noEmbeddedPhone: boolean;
  qualify: boolean;
  mno: string;
}

/** The parts of a campaign the MNO rules look at. */
export interface CampaignContent {
  samples: number;
  subscriberOptin: boolean;
  subscriberOptout: boolean;
  subscriberHelp: boolean;
  embeddedLink: boolean;
  embeddedPhone: boolean;
}

const DAILY_CAP: Record<string, number> = {
  TOP: 200_000,
  HIGH: 40_000,
  MID: 10_000,
  LOW: 2_000,
  BASIC: 1_000,
};
const SMALL_MNOS = new Set([10036, 10037, 10043]);
const NO_OPTIN_REQUIREMENT = new Set([10037, 10043]);
const REVIEWING_MNOS = new Set([10017, 10035, 10038]);
const NOT_SUPPORTED_BY_SMALL_MNOS = new Set(['SWEEPSTAKES', 'PROXY', 'UCAAS_HIGH']);
const NEEDS_VETTED_BRAND = new Set([
  'AGENTS_FRANCHISES',
  'CARRIER_EXEMPT',
  'PROXY',
  'SOCIAL',
  'SWEEPSTAKES',
  'UCAAS_LOW',
  'UCAAS_HIGH',
]);

/** Brand tier from the best ACTIVE standard/enhanced vet score; VERIFIED without vet is LOW; sole proprietors BASIC. */
export function brandTier(brand: BrandRecord, vets: VetRecord[]): string {
  if (brand.entityType === 'SOLE_PROPRIETOR') return 'BASIC';
  const scores = vets
    .filter(
      (v) => v.brandId === brand.brandId && v.vettingStatus === 'ACTIVE' && v.vettingClass !== 'POLITICAL',
    )
    .map((v) => v.vettingScore ?? 0);
  const best = scores.length ? Math.max(...scores) : -1;
  if (best >= 75) return 'TOP';
  if (best >= 50) return 'HIGH';
  if (best >= 25) return 'MID';
  return 'LOW';
}

/** Why the brand cannot use the use case at all (empty when it can); see docs/simulator.md. */
export function useCaseRestrictions(brand: BrandRecord, usecaseId: string, vets: VetRecord[]): string[] {
  const reasons: string[] = [];
  const def = useCase(usecaseId);
  if (!def) return [`unknown use case ${usecaseId}`];
  const isSole = brand.entityType === 'SOLE_PROPRIETOR';
  if (isSole && usecaseId !== 'SOLE_PROPRIETOR')
    reasons.push('SOLE_PROPRIETOR brands may only use the SOLE_PROPRIETOR use case');
  if (!isSole && usecaseId === 'SOLE_PROPRIETOR')
    reasons.push('the SOLE_PROPRIETOR use case is for SOLE_PROPRIETOR brands only');
  const activeVets = vets.filter((v) => v.brandId === brand.brandId && v.vettingStatus === 'ACTIVE');
  if (
    usecaseId === 'POLITICAL' &&
    !politicalByTaxStatus(brand) &&
    !activeVets.some((v) => v.vettingClass === 'POLITICAL')
  ) {
    reasons.push('POLITICAL needs an ACTIVE political vet or a 501(c)(3/4/5/6) non-profit');
  }
  if (usecaseId === 'CHARITY' && brand.optionalAttributes.taxExemptStatus !== '501(c)(3)') {
    reasons.push('CHARITY needs a 501(c)(3) taxExemptStatus');
  }
  if (usecaseId === 'EMERGENCY' && brand.entityType !== 'GOVERNMENT' && brand.entityType !== 'NON_PROFIT') {
    reasons.push('EMERGENCY is for GOVERNMENT and NON_PROFIT brands');
  }
  if (usecaseId === 'K12_EDUCATION' && brand.vertical !== 'EDUCATION' && brand.entityType !== 'GOVERNMENT') {
    reasons.push('K12_EDUCATION needs the EDUCATION vertical or a GOVERNMENT brand');
  }
  if (NEEDS_VETTED_BRAND.has(usecaseId) && brand.identityStatus !== 'VETTED_VERIFIED') {
    reasons.push(`${usecaseId} needs a VETTED_VERIFIED brand`);
  }
  return reasons;
}

function minSamples(usecaseId: string): number {
  return ['SOLE_PROPRIETOR', 'LOW_VOLUME', '2FA'].includes(usecaseId) ? 1 : 2;
}

/**
 * Metadata for every MNO (or the requested `mnoIds`). With `content` omitted (campaignBuilder checks),
 * `qualify` says whether the MNO supports the brand and use case at all.
 */
export function mnoMetadataFor(
  brand: BrandRecord,
  usecaseId: string,
  vets: VetRecord[],
  content?: CampaignContent,
  mnoIds?: number[],
): Record<string, MnoMetadata> {
  const def = useCase(usecaseId) as UseCaseDef;
  const tier = brandTier(brand, vets);
  const brandAllowed = useCaseRestrictions(brand, usecaseId, vets).length === 0;
  const result: Record<string, MnoMetadata> = {};
  for (const mno of MNOS) {
    if (mnoIds && mnoIds.length > 0 && !mnoIds.includes(mno.networkId)) continue;
    const meta = {
      minMsgSamples: minSamples(usecaseId),
      reqSubscriberHelp: true,
      reqSubscriberOptout: true,
      reqSubscriberOptin: !NO_OPTIN_REQUIREMENT.has(mno.networkId),
      brandDailyCap: DAILY_CAP[tier] ?? 1_000,
      mnoReview: def.classification === 'SPECIAL' && REVIEWING_MNOS.has(mno.networkId),
      mnoSupport: !(SMALL_MNOS.has(mno.networkId) && NOT_SUPPORTED_BY_SMALL_MNOS.has(usecaseId)),
      brandTier: tier,
      noEmbeddedLink: usecaseId === 'PROXY',
      noEmbeddedPhone: usecaseId === 'PROXY',
      qualify: false,
      mno: mno.displayName,
    };
    meta.qualify =
      meta.mnoSupport &&
      brandAllowed &&
      (!content ||
        (content.samples >= meta.minMsgSamples &&
          (!meta.reqSubscriberHelp || content.subscriberHelp) &&
          (!meta.reqSubscriberOptout || content.subscriberOptout) &&
          (!meta.reqSubscriberOptin || content.subscriberOptin) &&
          !(meta.noEmbeddedLink && content.embeddedLink) &&
          !(meta.noEmbeddedPhone && content.embeddedPhone)));
    result[String(mno.networkId)] = meta;
  }
  return result;
}
