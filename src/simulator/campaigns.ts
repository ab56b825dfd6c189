import { contactVerificationRequired } from './brands.js';
import { CampaignCreateSchema, CampaignUpdateSchema, NOT_UPDATABLE } from './campaign-schemas.js';
import type { SimContext } from './context.js';
import { ApiError, badRequest, ErrorCode, notFound } from './errors.js';
import { campaignEvent } from './events.js';
import { mnoMetadataFor, useCaseRestrictions } from './mno-rules.js';
import { addMonths, findBrand, paginate, parse } from './records.js';
import { mnoById, USE_CASES, useCase } from './reference-data.js';
import type { BrandRecord, CampaignInternal, CampaignRecord, VetRecord } from './state.js';
import type { BuilderCheck } from './strict.js';

/** Months in one campaign term (billed at creation and on each renewal). */
export const CAMPAIGN_TERM_MONTHS = 3;

function dateOnly(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

function vetsOf(ctx: SimContext, cspId: string): VetRecord[] {
  return Object.values(ctx.store.account(cspId).vets);
}

export function findCampaign(ctx: SimContext, cspId: string, campaignId: string): CampaignRecord {
  const campaign = ctx.store.account(cspId).campaigns[campaignId];
  if (!campaign) throw notFound('campaign', campaignId, 'campaignId');
  return campaign;
}

export function campaignInternal(ctx: SimContext, campaign: CampaignRecord): CampaignInternal {
  const account = ctx.store.account(campaign.cspId);
  account.campaignInternal[campaign.campaignId] ??= {
    updatedAt: campaign.createDate,
    changedSinceDecline: false,
    sharing: null,
    dcas: [],
    dcaComplete: false,
  };
  return account.campaignInternal[campaign.campaignId]!;
}

/** Brand-level obstacles to creating any campaign (UNVERIFIED, contact not verified, sole-proprietor OTP). */
function brandObstacle(ctx: SimContext, brand: BrandRecord): ApiError | undefined {
  if (brand.status !== 'ACTIVE')
    return badRequest(ErrorCode.BRAND_UNVERIFIED, `brand ${brand.brandId} is not active`, ['brandId']);
  if (brand.identityStatus === 'UNVERIFIED') {
    return badRequest(
      ErrorCode.BRAND_UNVERIFIED,
      `brand ${brand.brandId} is UNVERIFIED; correct it and revet, or appeal`,
      ['brandId'],
    );
  }
  if (contactVerificationRequired(brand, ctx.clock.nowMs()) && !brand.businessContactEmailVerifiedDate) {
    return badRequest(
      ErrorCode.CONTACT_NOT_VERIFIED,
      `the business contact of ${brand.entityType} brand ${brand.brandId} has not completed verification`,
      ['businessContactEmail'],
    );
  }
  if (brand.entityType === 'SOLE_PROPRIETOR' && !brand.mobilePhoneVerifiedDate) {
    return badRequest(
      ErrorCode.CONTACT_NOT_VERIFIED,
      `sole proprietor brand ${brand.brandId} has not completed mobile phone verification`,
      ['mobilePhone'],
    );
  }
  return undefined;
}

export function builderBrand(ctx: SimContext, cspId: string, brandId: string): BuilderCheck[] {
  const brand = findBrand(ctx, cspId, brandId);
  const obstacle = brandObstacle(ctx, brand);
  const vets = vetsOf(ctx, cspId);
  return Object.keys(USE_CASES).map((id) => builderCheck(brand, id, vets, obstacle));
}

export function builderUseCase(
  ctx: SimContext,
  cspId: string,
  brandId: string,
  usecase: string,
): BuilderCheck {
  const brand = findBrand(ctx, cspId, brandId);
  if (!useCase(usecase)) throw notFound('use case', usecase, 'usecase');
  return builderCheck(brand, usecase, vetsOf(ctx, cspId), brandObstacle(ctx, brand));
}

/**
 * Whether the brand can support the use case now: the rich entry (`qualified`, `reasons`, ...) and,
 * when it cannot, the error creating such a campaign would meet first (brand obstacle, use-case rule,
 * no MNO). The default answer is the entry; strict mode answers the refusal (src/simulator/strict.ts).
 */
function builderCheck(
  brand: BrandRecord,
  usecase: string,
  vets: VetRecord[],
  obstacle?: ApiError,
): BuilderCheck {
  const def = useCase(usecase)!;
  const restrictions = useCaseRestrictions(brand, usecase, vets);
  const reasons = [...(obstacle ? [obstacle.message] : []), ...restrictions];
  const mnoMetadata = mnoMetadataFor(brand, usecase, vets);
  const anyMno = Object.values(mnoMetadata).some((m) => m.qualify);
  const refusal =
    obstacle ??
    (restrictions.length > 0
      ? badRequest(ErrorCode.USECASE_NOT_ALLOWED, restrictions.join('; '), ['usecase'])
      : !anyMno
        ? badRequest(ErrorCode.NO_QUALIFYING_MNO, `no MNO supports ${usecase} for this brand`, ['usecase'])
        : undefined);
  const entry = {
    brandId: brand.brandId,
    usecase,
    displayName: def.displayName,
    classification: def.classification,
    minSubUsecases: def.minSubUsecases,
    maxSubUsecases: def.maxSubUsecases,
    monthlyFee: def.monthlyFee,
    qualified: refusal === undefined,
    reasons,
    mnoMetadata,
  };
  return refusal ? { entry, refusal } : { entry };
}

export function createCampaign(ctx: SimContext, cspId: string, body: unknown) {
  const input = parse(CampaignCreateSchema, body);
  const account = ctx.store.account(cspId);
  const brand = findBrand(ctx, cspId, input.brandId);
  if (input.referenceId) {
    const clash = Object.values(account.campaigns).find((c) => c.referenceId === input.referenceId);
    if (clash) {
      throw badRequest(
        ErrorCode.DUPLICATE_REFERENCE_ID,
        `referenceId '${input.referenceId}' is already used by campaign ${clash.campaignId}`,
        ['referenceId'],
      );
    }
  }
  const obstacle = brandObstacle(ctx, brand);
  if (obstacle) throw obstacle;
  const def = useCase(input.usecase);
  if (!def)
    throw badRequest(ErrorCode.VALIDATION, `usecase: unknown use case '${input.usecase}'`, ['usecase']);
  const restrictions = useCaseRestrictions(brand, input.usecase, vetsOf(ctx, cspId));
  if (restrictions.length > 0)
    throw badRequest(ErrorCode.USECASE_NOT_ALLOWED, restrictions.join('; '), ['usecase']);
  const count = input.subUsecases.length;
  if (def.maxSubUsecases === 0 && count > 0) {
    throw badRequest(ErrorCode.SUB_USECASE_COUNT, `${input.usecase} takes no sub-use-cases`, ['subUsecases']);
  }
  if (def.minSubUsecases > 0 && (count < def.minSubUsecases || count > def.maxSubUsecases)) {
    throw badRequest(
      ErrorCode.SUB_USECASE_COUNT,
      `${input.usecase} needs between ${def.minSubUsecases} and ${def.maxSubUsecases} sub-use-cases, got ${count}`,
      ['subUsecases'],
    );
  }
  const invalidSub = input.subUsecases.filter((s) => !useCase(s)?.validSubUsecase);
  if (invalidSub.length > 0) {
    throw badRequest(ErrorCode.VALIDATION, `subUsecases: not valid sub-use-cases: ${invalidSub.join(', ')}`, [
      'subUsecases',
    ]);
  }
  if (new Set(input.subUsecases).size !== count)
    throw badRequest(ErrorCode.VALIDATION, 'subUsecases: duplicates', ['subUsecases']);
  const unknownMnos = input.mnoIDs.filter((id) => !mnoById(id));
  if (unknownMnos.length > 0)
    throw badRequest(ErrorCode.VALIDATION, `mnoIDs: unknown MNO ids ${unknownMnos.join(', ')}`, ['mnoIDs']);
  const samples = [input.sample1, input.sample2, input.sample3, input.sample4, input.sample5].filter(
    (s) => s && s.trim() !== '',
  ).length;
  const mnoMetadata = mnoMetadataFor(
    brand,
    input.usecase,
    vetsOf(ctx, cspId),
    { ...input, samples },
    input.mnoIDs,
  );
  const qualifying = Object.entries(mnoMetadata).filter(([, m]) => m.qualify);
  if (qualifying.length === 0) {
    throw badRequest(
      ErrorCode.NO_QUALIFYING_MNO,
      `the campaign meets the requirements of no MNO (${Object.values(mnoMetadata)
        .map((m) => m.mno)
        .join(', ')}); nothing was created or charged`,
      ['mnoMetadata'],
    );
  }
  const nowMs = ctx.clock.nowMs();
  const now = ctx.nowIso();
  const next = dateOnly(addMonths(new Date(nowMs), CAMPAIGN_TERM_MONTHS).getTime());
  const { mock: _mock, ...fields } = input;
  const campaign: CampaignRecord = {
    ...blankContent(),
    ...fields,
    campaignId: ctx.store.nextId('C'),
    cspId,
    status: 'ACTIVE',
    createDate: now,
    billedDate: now,
    nextRenewalOrExpirationDate: next,
    expirationDate: input.autoRenewal ? null : next,
    vertical: input.vertical ?? brand.vertical,
    referenceId: input.referenceId ?? null,
    mock: brand.mock || input.mock === true,
    monthlyFee: def.monthlyFee,
    mnoMetadata,
    mnoOperationStatus: Object.fromEntries(qualifying.map(([id]) => [id, 'PENDING' as const])),
  };
  ctx.store.addCampaign(cspId, campaign, {
    updatedAt: now,
    changedSinceDecline: false,
    sharing: null,
    dcas: [],
    dcaComplete: false,
  });
  charge(ctx, campaign, 'CAMPAIGN_REGISTRATION');
  scheduleRenewal(ctx, campaign);
  campaignEvent(ctx, campaign, brand, 'CAMPAIGN_ADD', {
    description: `${campaign.usecase} campaign registered`,
  });
  ctx.store.changed();
  return { campaignId: campaign.campaignId, mnoMetadata };
}

function blankContent() {
  return {
    sample1: null,
    sample2: null,
    sample3: null,
    sample4: null,
    sample5: null,
    messageFlow: null,
    helpMessage: null,
    optinMessage: null,
    optoutMessage: null,
    optinKeywords: null,
    optoutKeywords: null,
    helpKeywords: null,
    privacyPolicyLink: null,
    termsAndConditionsLink: null,
    embeddedLinkSample: null,
  };
}

function charge(
  ctx: SimContext,
  campaign: CampaignRecord,
  kind: 'CAMPAIGN_REGISTRATION' | 'CAMPAIGN_RENEWAL',
): void {
  ctx.store.account(campaign.cspId).ledger.push({
    entryId: ctx.store.nextId('L'),
    cspId: campaign.cspId,
    kind,
    campaignId: campaign.campaignId,
    brandId: campaign.brandId,
    usecase: campaign.usecase,
    amount: Math.round(campaign.monthlyFee * CAMPAIGN_TERM_MONTHS * 100) / 100,
    at: ctx.nowIso(),
  });
}

function scheduleRenewal(ctx: SimContext, campaign: CampaignRecord): void {
  ctx.scheduleAt('campaign.renewal', Date.parse(`${campaign.nextRenewalOrExpirationDate}T00:00:00.000Z`), {
    cspId: campaign.cspId,
    campaignId: campaign.campaignId,
    date: campaign.nextRenewalOrExpirationDate,
  });
}

export function listCampaigns(ctx: SimContext, cspId: string, query: URLSearchParams) {
  const active = (['referenceId', 'status', 'usecase'] as const).flatMap((name) => {
    const value = query.get(name);
    return value ? [(c: CampaignRecord) => c[name] === value] : [];
  });
  // Id order (creation order); brandId picks that brand's list from the index.
  return paginate(
    ctx.store.campaignList(cspId, query.get('brandId') || undefined),
    query,
    active.length === 0 ? undefined : (c) => active.every((keep) => keep(c)),
    ctx.api.maxRecordsPerPage,
  );
}

export function updateCampaign(
  ctx: SimContext,
  cspId: string,
  campaignId: string,
  body: unknown,
): CampaignRecord {
  const campaign = findCampaign(ctx, cspId, campaignId);
  const input = parse(CampaignUpdateSchema, body) as Record<string, unknown>;
  const current = campaign as unknown as Record<string, unknown>;
  const refused = NOT_UPDATABLE.filter(
    (f) => input[f] !== undefined && JSON.stringify(input[f]) !== JSON.stringify(current[f]),
  );
  if (refused.length > 0) {
    throw new ApiError(
      400,
      refused.map((f) => ({
        code: ErrorCode.VALIDATION,
        description: `${f}: cannot be updated`,
        fields: [f],
      })),
    );
  }
  if (campaign.status !== 'ACTIVE') {
    throw badRequest(ErrorCode.CAMPAIGN_NOT_ACTIVE, `campaign ${campaignId} is ${campaign.status}`, [
      'campaignId',
    ]);
  }
  const changes = Object.fromEntries(
    Object.entries(input).filter(
      ([k, v]) => v !== undefined && !(NOT_UPDATABLE as readonly string[]).includes(k),
    ),
  );
  const changed = Object.keys(changes).filter(
    (k) => JSON.stringify(changes[k]) !== JSON.stringify(current[k]),
  );
  if (changed.length === 0) return campaign;
  Object.assign(campaign, changes);
  if ('autoRenewal' in changes)
    campaign.expirationDate = campaign.autoRenewal ? null : campaign.nextRenewalOrExpirationDate;
  const internal = campaignInternal(ctx, campaign);
  internal.updatedAt = ctx.nowIso();
  internal.changedSinceDecline = true;
  campaignEvent(ctx, campaign, ctx.store.account(cspId).brands[campaign.brandId], 'CAMPAIGN_UPDATE', {
    description: `Updated: ${changed.join(', ')}`,
  });
  ctx.store.changed();
  return campaign;
}

export function expireCampaign(ctx: SimContext, campaign: CampaignRecord, description: string): void {
  if (campaign.status !== 'ACTIVE') return;
  campaign.status = 'EXPIRED';
  campaign.expirationDate = dateOnly(ctx.clock.nowMs());
  campaignEvent(
    ctx,
    campaign,
    ctx.store.account(campaign.cspId).brands[campaign.brandId],
    'CAMPAIGN_EXPIRED',
    { description },
  );
  ctx.store.changed();
}

export function suspendCampaign(ctx: SimContext, campaign: CampaignRecord, mnoId: number): CampaignRecord {
  const mno = mnoById(mnoId);
  if (!mno) throw badRequest(ErrorCode.VALIDATION, `mnoId: unknown MNO ${mnoId}`, ['mnoId']);
  campaign.mnoOperationStatus[String(mnoId)] = 'SUSPENDED';
  campaignEvent(
    ctx,
    campaign,
    ctx.store.account(campaign.cspId).brands[campaign.brandId],
    'MNO_CAMPAIGN_OPERATION_SUSPENDED',
    {
      mnoId,
      mnoName: mno.displayName,
      description: `${mno.displayName} suspended the campaign`,
    },
  );
  ctx.store.changed();
  return campaign;
}

export function nudgeCampaign(
  ctx: SimContext,
  campaign: CampaignRecord,
  nudgeIntent: string,
  description?: string,
): void {
  campaignEvent(ctx, campaign, ctx.store.account(campaign.cspId).brands[campaign.brandId], 'CAMPAIGN_NUDGE', {
    nudgeIntent,
    description,
  });
}

export function registerCampaignJobs(ctx: SimContext): void {
  ctx.handlers.set('campaign.renewal', (c, d) => {
    const campaign = c.store.account(d.cspId!).campaigns[d.campaignId!];
    if (campaign?.status !== 'ACTIVE' || campaign.nextRenewalOrExpirationDate !== d.date) return;
    if (!campaign.autoRenewal) {
      expireCampaign(c, campaign, 'The campaign ran its course without auto-renewal');
      return;
    }
    campaign.billedDate = c.nowIso();
    campaign.nextRenewalOrExpirationDate = dateOnly(
      addMonths(new Date(`${d.date}T00:00:00.000Z`), CAMPAIGN_TERM_MONTHS).getTime(),
    );
    charge(c, campaign, 'CAMPAIGN_RENEWAL');
    scheduleRenewal(c, campaign);
    campaignEvent(c, campaign, c.store.account(campaign.cspId).brands[campaign.brandId], 'CAMPAIGN_RENEWED', {
      description: `Renewed until ${campaign.nextRenewalOrExpirationDate}`,
    });
    c.store.changed();
  });
}
