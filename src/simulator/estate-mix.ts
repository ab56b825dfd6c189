/**
 * What a seeded estate (./estate.ts) is made of: the kinds of brands and campaigns and how often each
 * comes up, and the fictional words, names and paths its records are drawn from. Declarative data and
 * the two small draws that use it.
 */
import { USE_CASES } from './reference-data.js';

/** Brand kinds: identity status, brand status and the vet, if any. */
export const SEEDED_BRAND_KINDS = [
  'VERIFIED',
  'VETTED_VERIFIED',
  'UNVERIFIED',
  'SELF_DECLARED',
  'VERIFIED_VET_PENDING',
  'VERIFIED_VET_FAILED',
  'VERIFIED_VET_EXPIRED',
  'DELETED',
] as const;
export type SeededBrandKind = (typeof SEEDED_BRAND_KINDS)[number];
export const BRAND_WEIGHTS: Record<SeededBrandKind, number> = {
  VERIFIED: 34,
  VETTED_VERIFIED: 25,
  UNVERIFIED: 8,
  SELF_DECLARED: 15,
  VERIFIED_VET_PENDING: 5,
  VERIFIED_VET_FAILED: 5,
  VERIFIED_VET_EXPIRED: 5,
  DELETED: 3,
};

/** Campaign kinds, as a client would tell them apart from the registry's records and sharing. */
export const SEEDED_CAMPAIGN_KINDS = [
  'ACTIVE',
  'NOT_SHARED',
  'SHARE_PENDING',
  'PENDING_DCA',
  'REJECTED',
  'SUSPENDED',
  'EXPIRED',
] as const;
export type SeededCampaignKind = (typeof SEEDED_CAMPAIGN_KINDS)[number];
export const CAMPAIGN_WEIGHTS: Record<SeededCampaignKind, number> = {
  ACTIVE: 58,
  NOT_SHARED: 3,
  SHARE_PENDING: 4,
  PENDING_DCA: 8,
  REJECTED: 5,
  SUSPENDED: 4,
  EXPIRED: 18,
};

/** The first records take every kind in turn (so any count of at least the kinds has each), then by weight. */
export function chooser<K extends string>(
  kinds: readonly K[],
  weights: Record<K, number>,
  random: () => number,
) {
  const total = kinds.reduce((sum, k) => sum + weights[k], 0);
  let n = 0;
  return (): K => {
    const i = n++;
    if (i < kinds.length) return kinds[i]!;
    let r = random() * total;
    for (const k of kinds) {
      r -= weights[k];
      if (r < 0) return k;
    }
    return kinds[kinds.length - 1]!;
  };
}

export const WORDS_A = [
  'North',
  'Blue',
  'Cedar',
  'Harbor',
  'Summit',
  'River',
  'Maple',
  'Granite',
  'Silver',
  'Prairie',
];
export const WORDS_B = [
  'Ridge',
  'Point',
  'Field',
  'Stone',
  'Valley',
  'Bridge',
  'Grove',
  'Peak',
  'Lake',
  'Hill',
];
export const TRADES = [
  'Dental',
  'Logistics',
  'Bakery',
  'Clinic',
  'Motors',
  'Realty',
  'Fitness',
  'Supply',
  'Labs',
];
export const FIRST = ['Alex', 'Sam', 'Jordan', 'Casey', 'Riley', 'Morgan', 'Taylor', 'Jamie'];
export const LAST = ['Example', 'Sample', 'Placeholder', 'Fictional', 'Testperson'];
export const STREETS = ['Main St', 'Oak Ave', 'Elm St', 'Pine Rd', 'Lake Dr', 'Park Blvd'];
export const ENTITY_TYPES_NOT_SOLE = [
  'PRIVATE_PROFIT',
  'PRIVATE_PROFIT',
  'PUBLIC_PROFIT',
  'NON_PROFIT',
  'GOVERNMENT',
];
export const STANDARD_USE_CASES = [
  '2FA',
  'ACCOUNT_NOTIFICATION',
  'CUSTOMER_CARE',
  'DELIVERY_NOTIFICATION',
  'MARKETING',
  'LOW_VOLUME',
].filter((id) => USE_CASES[id]);
export const DCA_PATHS: { upstream: string; dca: string }[] = [
  { upstream: 'SINCH', dca: 'SINCH' },
  { upstream: 'BANDWIDTH', dca: 'BANDWIDTH' },
  { upstream: 'CSPUPSTREAM', dca: 'SINCH' },
  { upstream: 'CSPRELAY', dca: 'BANDWIDTH' },
];
/** MNOs a seeded campaign is registered with (AT&T, T-Mobile, Verizon Wireless). */
export const SEEDED_MNOS = [10017, 10035, 10038];
export const pick = <T>(random: () => number, list: readonly T[]): T =>
  list[Math.floor(random() * list.length)]!;
export const digits = (random: () => number, n: number) =>
  Array.from({ length: n }, () => Math.floor(random() * 10)).join('');
