/**
 * Seeding an existing estate (issue 19): brands and campaigns that were registered before the product
 * was adopted. They are written straight into the account, in every status the simulator models, with
 * fake data drawn from a seeded generator (the same seed on the same state gives the same records and
 * ids). No webhook is sent, nothing is charged and no job is scheduled for them.
 */
import { z } from 'zod';
import { seededRandom } from '../common/seeded-random.js';
import type { SimContext } from './context.js';
import { badRequest, ErrorCode } from './errors.js';
import {
  BRAND_WEIGHTS,
  CAMPAIGN_WEIGHTS,
  chooser,
  DCA_PATHS,
  digits,
  ENTITY_TYPES_NOT_SOLE,
  FIRST,
  LAST,
  pick,
  SEEDED_BRAND_KINDS,
  SEEDED_CAMPAIGN_KINDS,
  SEEDED_MNOS,
  type SeededBrandKind,
  type SeededCampaignKind,
  STANDARD_USE_CASES,
  STREETS,
  TRADES,
  WORDS_A,
  WORDS_B,
} from './estate-mix.js';
import { type MnoMetadata, mnoMetadataFor } from './mno-rules.js';
import { addMonths } from './records.js';
import { US_STATES, USE_CASES, VERTICALS } from './reference-data.js';
import type { BrandRecord, CampaignInternal, CampaignRecord, IdentityStatus, VetRecord } from './state.js';

export const SEED_MAX_BRANDS = 200_000;
export const SEED_MAX_CAMPAIGNS = 1_000_000;

export const SeedSchema = z
  .object({
    cspId: z.string().min(1).optional(),
    brands: z.number().int().min(0).max(SEED_MAX_BRANDS),
    campaigns: z.number().int().min(0).max(SEED_MAX_CAMPAIGNS).optional(),
    campaignsPerBrand: z.number().int().min(0).max(50).optional(),
    seed: z.number().int().min(0).max(0xffff_ffff).default(1),
  })
  .strict()
  .superRefine((input, issue) => {
    if (input.campaigns !== undefined && input.campaignsPerBrand !== undefined)
      issue.addIssue({
        code: 'custom',
        path: ['campaignsPerBrand'],
        message: 'give campaigns or campaignsPerBrand, not both',
      });
    const campaigns = input.campaigns ?? (input.campaignsPerBrand ?? 0) * input.brands;
    if (campaigns > 0 && input.brands === 0)
      issue.addIssue({ code: 'custom', path: ['brands'], message: 'campaigns need at least one brand' });
    if (campaigns > SEED_MAX_CAMPAIGNS)
      issue.addIssue({
        code: 'custom',
        path: ['campaignsPerBrand'],
        message: `brands x campaignsPerBrand is above ${SEED_MAX_CAMPAIGNS}`,
      });
  });
/** What the control API takes (`seed` defaults to 1). */
export type SeedInput = z.input<typeof SeedSchema>;

export interface SeedResult {
  cspId: string;
  seed: number;
  brands: number;
  campaigns: number;
  vets: number;
  brandKinds: Record<SeededBrandKind, number>;
  campaignKinds: Record<SeededCampaignKind, number>;
  firstBrandId: string | null;
  lastBrandId: string | null;
  firstCampaignId: string | null;
  lastCampaignId: string | null;
}

const DAY = 86_400_000;
const dateOnly = (ms: number) => new Date(ms).toISOString().slice(0, 10);

export function seedEstate(ctx: SimContext, cspId: string, input: z.output<typeof SeedSchema>): SeedResult {
  // referenceIds carry the seed, and a campaign's must be unique in its account: one seed, one estate.
  const prefix = `legacy-brand-${input.seed}-`;
  if (ctx.store.brandList(cspId).some((b) => b.referenceId?.startsWith(prefix)))
    throw badRequest(
      ErrorCode.VALIDATION,
      `seed: ${input.seed} was already seeded into ${cspId}; use another seed or reset`,
      ['seed'],
    );
  const random = seededRandom(input.seed);
  const nowMs = ctx.clock.nowMs();
  const account = ctx.store.account(cspId);
  const states = Object.keys(US_STATES).filter((s) => s.length === 2);
  const verticals = Object.keys(VERTICALS).filter((v) => v !== 'POLITICAL');
  const nextBrandKind = chooser(SEEDED_BRAND_KINDS, BRAND_WEIGHTS, random);
  const nextCampaignKind = chooser(SEEDED_CAMPAIGN_KINDS, CAMPAIGN_WEIGHTS, random);
  const brandKinds = Object.fromEntries(SEEDED_BRAND_KINDS.map((k) => [k, 0])) as SeedResult['brandKinds'];
  const campaignKinds = Object.fromEntries(
    SEEDED_CAMPAIGN_KINDS.map((k) => [k, 0]),
  ) as SeedResult['campaignKinds'];
  const seededBrands: BrandRecord[] = [];
  let vets = 0;

  for (let i = 0; i < input.brands; i++) {
    const kind = nextBrandKind();
    brandKinds[kind] += 1;
    const sole = kind === 'SELF_DECLARED';
    const entityType = sole ? 'SOLE_PROPRIETOR' : pick(random, ENTITY_TYPES_NOT_SOLE);
    const name = `${pick(random, WORDS_A)}${pick(random, WORDS_B)} ${pick(random, TRADES)}`;
    const slug = `${name.toLowerCase().replace(/[^a-z]+/g, '-')}-${i}`;
    const createMs = nowMs - Math.floor((200 + random() * 1000) * DAY);
    const createDate = new Date(createMs).toISOString();
    const identityStatus: IdentityStatus = sole
      ? 'SELF_DECLARED'
      : kind === 'UNVERIFIED'
        ? 'UNVERIFIED'
        : kind === 'VETTED_VERIFIED'
          ? 'VETTED_VERIFIED'
          : 'VERIFIED';
    const ein = sole ? null : `9${digits(random, 8)}`;
    const phone = `+1${pick(random, ['202', '312', '415', '512', '617'])}55501${digits(random, 2)}`;
    const brand: BrandRecord = {
      brandId: ctx.store.nextId('B'),
      cspId,
      referenceId: random() < 0.7 || i === 0 ? `legacy-brand-${input.seed}-${i}` : null,
      entityType,
      status: kind === 'DELETED' ? 'DELETED' : 'ACTIVE',
      identityStatus,
      displayName: sole ? `${pick(random, FIRST)} ${pick(random, TRADES)}` : name,
      companyName: sole ? null : `${name} LLC`,
      ein,
      einIssuingCountry: sole ? null : 'US',
      universalEin: ein ? `US_${ein}` : null,
      phone: sole ? null : phone,
      mobilePhone: sole ? phone : null,
      street: `${1 + Math.floor(random() * 9000)} ${pick(random, STREETS)}`,
      city: 'Exampleville',
      state: pick(random, states),
      postalCode: digits(random, 5),
      country: 'US',
      email: `contact@${slug}.example`,
      website: sole ? null : `https://${slug}.example`,
      stockSymbol: entityType === 'PUBLIC_PROFIT' ? name.slice(0, 4).toUpperCase() : null,
      stockExchange: entityType === 'PUBLIC_PROFIT' ? 'NASDAQ' : null,
      brandRelationship: pick(random, ['BASIC_ACCOUNT', 'SMALL_ACCOUNT', 'MEDIUM_ACCOUNT', 'LARGE_ACCOUNT']),
      vertical: pick(random, verticals),
      altBusinessId: null,
      altBusinessIdType: 'NONE',
      optionalAttributes: {},
      mock: false,
      createDate,
      businessContactTitle: entityType === 'PUBLIC_PROFIT' ? 'CFO' : null,
      businessContactFirstName: entityType === 'PUBLIC_PROFIT' ? pick(random, FIRST) : null,
      businessContactLastName: entityType === 'PUBLIC_PROFIT' ? pick(random, LAST) : null,
      businessContactEmail: entityType === 'PUBLIC_PROFIT' ? `finance@${slug}.example` : null,
      businessContactEmailVerifiedDate:
        entityType === 'PUBLIC_PROFIT' && identityStatus !== 'UNVERIFIED'
          ? new Date(createMs + DAY).toISOString()
          : null,
      mobilePhoneVerifiedDate: sole ? new Date(createMs + DAY).toISOString() : null,
    };
    ctx.store.addBrand(cspId, brand, { lastGroup3UpdateAt: null, appeal: null });
    seededBrands.push(brand);
    const vetStatus: VetRecord['vettingStatus'] | null =
      kind === 'VETTED_VERIFIED'
        ? 'ACTIVE'
        : kind === 'VERIFIED_VET_PENDING'
          ? 'PENDING'
          : kind === 'VERIFIED_VET_FAILED'
            ? 'FAILED'
            : kind === 'VERIFIED_VET_EXPIRED'
              ? 'EXPIRED'
              : null;
    if (vetStatus) {
      const decided = vetStatus !== 'PENDING';
      const vet: VetRecord = {
        brandId: brand.brandId,
        evpId: 'AEGIS',
        vettingId: ctx.store.nextId('V'),
        vettingToken: null,
        vettingScore: vetStatus === 'ACTIVE' || vetStatus === 'EXPIRED' ? 75 : null,
        vettingClass: 'STANDARD',
        vettingStatus: vetStatus,
        reasons: vetStatus === 'FAILED' ? ['Brand data could not be matched (seeded)'] : null,
        vettingDetails: { seeded: true },
        vettedDate: decided ? new Date(createMs + 2 * DAY).toISOString() : null,
        createDate: new Date(createMs + DAY).toISOString(),
        expiresAt: null,
      };
      account.vets[vet.vettingId] = vet;
      vets += 1;
    }
  }

  const campaignCount = input.campaigns ?? (input.campaignsPerBrand ?? 0) * input.brands;
  const metadata = new Map<string, Record<string, MnoMetadata>>();
  for (let i = 0; i < campaignCount; i++) {
    const kind = nextCampaignKind();
    campaignKinds[kind] += 1;
    // Round robin with campaignsPerBrand (each brand gets exactly that many), otherwise at random.
    const brand =
      input.campaigns === undefined ? seededBrands[i % seededBrands.length]! : pick(random, seededBrands);
    const usecase =
      brand.entityType === 'SOLE_PROPRIETOR' ? 'SOLE_PROPRIETOR' : pick(random, STANDARD_USE_CASES);
    const def = USE_CASES[usecase]!;
    const createMs = Date.parse(brand.createDate) + Math.floor(random() * 150 * DAY) + DAY;
    const termEnd = nextTermEnd(createMs, nowMs);
    const expired = kind === 'EXPIRED' || brand.status === 'DELETED';
    const autoRenewal = !expired && random() < 0.8;
    const path = pick(random, DCA_PATHS);
    const registered = kind === 'ACTIVE' || kind === 'SUSPENDED' || kind === 'EXPIRED';
    const mnoStatus = registered ? 'REGISTERED' : 'PENDING';
    const metaKey = `${usecase}|${brand.entityType}|${brand.identityStatus}`;
    let meta = metadata.get(metaKey);
    if (!meta) {
      // Shared by the campaigns of one key: nothing modifies a campaign's mnoMetadata after creation.
      meta = mnoMetadataFor(brand, usecase, [], undefined, SEEDED_MNOS);
      metadata.set(metaKey, meta);
    }
    const campaign: CampaignRecord = {
      campaignId: ctx.store.nextId('C'),
      cspId,
      resellerId: 'R000000',
      brandId: brand.brandId,
      status: expired ? 'EXPIRED' : 'ACTIVE',
      createDate: new Date(createMs).toISOString(),
      billedDate: new Date(Math.max(createMs, Date.parse(`${termEnd.start}T00:00:00.000Z`))).toISOString(),
      autoRenewal,
      nextRenewalOrExpirationDate: expired ? termEnd.start : termEnd.end,
      expirationDate: expired ? termEnd.start : autoRenewal ? null : termEnd.end,
      vertical: brand.vertical,
      usecase,
      subUsecases: [],
      description: `${brand.displayName}: ${def.displayName.toLowerCase()} messages to customers who opted in.`,
      embeddedLink: false,
      embeddedPhone: false,
      termsAndConditions: true,
      numberPool: false,
      ageGated: false,
      directLending: false,
      subscriberOptin: true,
      subscriberOptout: true,
      subscriberHelp: true,
      sample1: `${brand.displayName}: your order has shipped. Reply STOP to opt out.`,
      sample2: `${brand.displayName}: reminder of your appointment tomorrow. Reply HELP for help.`,
      sample3: null,
      sample4: null,
      sample5: null,
      messageFlow: 'Customers opt in on the web form at checkout.',
      helpMessage: `${brand.displayName}: reply STOP to opt out.`,
      optinMessage: null,
      optoutMessage: 'You are unsubscribed.',
      optinKeywords: 'START',
      optoutKeywords: 'STOP',
      helpKeywords: 'HELP',
      privacyPolicyLink: null,
      termsAndConditionsLink: null,
      embeddedLinkSample: null,
      referenceId: random() < 0.7 ? `legacy-campaign-${input.seed}-${i}` : null,
      mock: false,
      tag: [],
      mnoIDs: [],
      monthlyFee: def.monthlyFee,
      mnoMetadata: meta,
      mnoOperationStatus: Object.fromEntries(
        SEEDED_MNOS.map((id, n) => [String(id), kind === 'SUSPENDED' && n === 0 ? 'SUSPENDED' : mnoStatus]),
      ),
    };
    ctx.store.addCampaign(cspId, campaign, campaignInternalFor(kind, campaign, cspId, path));
  }
  ctx.store.changed();
  const brands = ctx.store.brandList(cspId);
  const campaigns = ctx.store.campaignList(cspId);
  return {
    cspId,
    seed: input.seed,
    brands: input.brands,
    campaigns: campaignCount,
    vets,
    brandKinds,
    campaignKinds,
    firstBrandId: input.brands > 0 ? brands[brands.length - input.brands]!.brandId : null,
    lastBrandId: input.brands > 0 ? brands[brands.length - 1]!.brandId : null,
    firstCampaignId: campaignCount > 0 ? campaigns[campaigns.length - campaignCount]!.campaignId : null,
    lastCampaignId: campaignCount > 0 ? campaigns[campaigns.length - 1]!.campaignId : null,
  };
}

/** The 3-month term (start and end dates) running at `nowMs` of a campaign created at `createMs`. */
function nextTermEnd(createMs: number, nowMs: number): { start: string; end: string } {
  let start = new Date(createMs);
  let end = addMonths(start, 3);
  while (end.getTime() <= nowMs) {
    start = end;
    end = addMonths(start, 3);
  }
  return { start: dateOnly(start.getTime()), end: dateOnly(end.getTime()) };
}

function campaignInternalFor(
  kind: SeededCampaignKind,
  campaign: CampaignRecord,
  cspId: string,
  path: { upstream: string; dca: string },
): CampaignInternal {
  const sharedDate = new Date(Date.parse(campaign.createDate) + 60_000).toISOString();
  const statusDate = new Date(Date.parse(campaign.createDate) + 3_600_000).toISOString();
  const internal: CampaignInternal = {
    updatedAt: campaign.createDate,
    changedSinceDecline: false,
    sharing: null,
    dcas: [],
    dcaComplete: false,
  };
  if (kind === 'NOT_SHARED') return internal;
  const share = (sharingStatus: 'PENDING' | 'ACCEPTED' | 'DECLINED') => ({
    downstreamCnpId: cspId,
    upstreamCnpId: path.upstream,
    sharingStatus,
    explanation:
      sharingStatus === 'DECLINED'
        ? 'Declined by the upstream partner: sample messages incomplete (seeded)'
        : null,
    sharedDate,
    statusDate: sharingStatus === 'PENDING' ? sharedDate : statusDate,
    cnpMigration: false,
  });
  if (kind === 'SHARE_PENDING') return { ...internal, sharing: share('PENDING') };
  if (kind === 'REJECTED') return { ...internal, sharing: share('DECLINED') };
  const accepted = kind !== 'PENDING_DCA';
  return {
    ...internal,
    sharing: share('ACCEPTED'),
    dcas: [{ dcaId: path.dca, accepted }],
    dcaComplete: accepted,
  };
}
