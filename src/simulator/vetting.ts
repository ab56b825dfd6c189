import { z } from 'zod';
import type { SimContext } from './context.js';
import { badRequest, ErrorCode, notFound } from './errors.js';
import { brandEvent, campaignEvent } from './events.js';
import { findBrand, parse } from './records.js';
import { VETTING_CLASSES, vettingProvider } from './reference-data.js';
import type { BrandRecord, VetRecord } from './state.js';

/** How long an ACTIVE vet stays valid (simulator-defined; the spec only says a vet date can pass). */
export const VET_VALIDITY_DAYS: Record<VetRecord['vettingClass'], number> = {
  STANDARD: 365,
  ENHANCED: 365,
  POLITICAL: 180,
};

const EXEMPT_FROM_POLITICAL_VET = ['501(c)(3)', '501(c)(4)', '501(c)(5)', '501(c)(6)'];

const OrderSchema = z.object({
  evpId: z.string().min(1),
  vettingClass: z.enum(VETTING_CLASSES),
  additionalVettingPayload: z.unknown().optional(),
});

const ImportSchema = z.object({
  evpId: z.string().min(1),
  vettingId: z.string().trim().min(1).max(100),
  vettingToken: z.string().max(2048).nullish(),
  vettingClass: z.enum(VETTING_CLASSES).optional(),
});

function checkAllowed(
  brand: BrandRecord,
  evpId: string,
  vettingClass: VetRecord['vettingClass'],
  ordering: boolean,
): void {
  const provider = vettingProvider(evpId);
  if (!provider)
    throw badRequest(ErrorCode.VALIDATION, `evpId: unknown vetting provider '${evpId}'`, ['evpId']);
  if (!provider.vettingClasses.includes(vettingClass)) {
    throw badRequest(ErrorCode.VETTING_NOT_SUPPORTED, `${evpId} does not offer ${vettingClass} vets`, [
      'vettingClass',
    ]);
  }
  if (ordering && !provider.orderable.includes(vettingClass)) {
    throw badRequest(ErrorCode.VETTING_NOT_SUPPORTED, `${evpId} ${vettingClass} vets can only be imported`, [
      'evpId',
    ]);
  }
  if (brand.entityType === 'SOLE_PROPRIETOR') {
    throw badRequest(ErrorCode.VETTING_NOT_SUPPORTED, 'SOLE_PROPRIETOR brands cannot be vetted', ['brandId']);
  }
  const tax = brand.optionalAttributes.taxExemptStatus;
  if (vettingClass === 'POLITICAL' && typeof tax === 'string' && EXEMPT_FROM_POLITICAL_VET.includes(tax)) {
    throw badRequest(
      ErrorCode.POLITICAL_VET_NOT_ALLOWED,
      `non-profit brands with ${tax} tax-exempt status already have Political access and may not request or import a Political vet`,
      ['vettingClass'],
    );
  }
}

export function orderVet(ctx: SimContext, cspId: string, brandId: string, body: unknown): VetRecord {
  const brand = findBrand(ctx, cspId, brandId);
  const input = parse(OrderSchema, body);
  checkAllowed(brand, input.evpId, input.vettingClass, true);
  const vet: VetRecord = {
    brandId,
    evpId: input.evpId,
    vettingId: ctx.store.nextId('V'),
    vettingToken: null,
    vettingScore: null,
    vettingClass: input.vettingClass,
    vettingStatus: 'PENDING',
    reasons: null,
    vettingDetails: {},
    vettedDate: null,
    createDate: ctx.nowIso(),
    expiresAt: null,
  };
  ctx.store.account(cspId).vets[vet.vettingId] = vet;
  ctx.schedule('vet.unscore', ctx.delays.vetUnscoreSeconds, { cspId, vettingId: vet.vettingId });
  ctx.schedule('vet.decide', ctx.delays.vetDecisionSeconds, { cspId, vettingId: vet.vettingId });
  ctx.store.changed();
  return vet;
}

export function importVet(ctx: SimContext, cspId: string, brandId: string, body: unknown): VetRecord {
  const brand = findBrand(ctx, cspId, brandId);
  const input = parse(ImportSchema, body);
  const provider = vettingProvider(input.evpId);
  const vettingClass =
    input.vettingClass ?? (provider?.vettingClasses.length === 1 ? provider.vettingClasses[0] : 'STANDARD');
  checkAllowed(brand, input.evpId, vettingClass as VetRecord['vettingClass'], false);
  const account = ctx.store.account(cspId);
  const key = `${brandId}/${input.evpId}/${input.vettingId}`;
  const now = ctx.nowIso();
  const vet: VetRecord = {
    brandId,
    evpId: input.evpId,
    vettingId: input.vettingId,
    vettingToken: input.vettingToken ?? null,
    vettingScore: vettingClass === 'POLITICAL' ? null : 80,
    vettingClass: vettingClass as VetRecord['vettingClass'],
    vettingStatus: 'ACTIVE',
    reasons: null,
    vettingDetails: { imported: true },
    vettedDate: now,
    createDate: now,
    expiresAt: null,
  };
  account.vets[key] = vet;
  activate(ctx, brand, vet, 'EVP_REPORT_IMPORT');
  ctx.store.changed();
  return vet;
}

export function listVets(ctx: SimContext, cspId: string, brandId: string): VetRecord[] {
  findBrand(ctx, cspId, brandId);
  return Object.values(ctx.store.account(cspId).vets)
    .filter((v) => v.brandId === brandId)
    .sort((a, b) => b.createDate.localeCompare(a.createDate));
}

function activate(ctx: SimContext, brand: BrandRecord, vet: VetRecord, eventType: string): void {
  vet.vettingStatus = 'ACTIVE';
  vet.vettedDate ??= ctx.nowIso();
  const expiresAt = Date.parse(vet.vettedDate) + VET_VALIDITY_DAYS[vet.vettingClass] * 86_400_000;
  vet.expiresAt = new Date(expiresAt).toISOString();
  ctx.scheduleAt('vet.expire', expiresAt, {
    cspId: brand.cspId,
    brandId: brand.brandId,
    vettingId: vet.vettingId,
  });
  vetEvent(ctx, brand, vet, eventType);
  if (vet.vettingClass !== 'POLITICAL' && brand.identityStatus === 'VERIFIED') {
    brand.identityStatus = 'VETTED_VERIFIED';
    brandEvent(ctx, brand, 'BRAND_IDENTITY_STATUS_UPDATE', {
      brandIdentityStatus: 'VETTED_VERIFIED',
      description: `${vet.vettingClass} vet by ${vet.evpId}`,
    });
  }
}

function vetEvent(ctx: SimContext, brand: BrandRecord, vet: VetRecord, eventType: string): void {
  brandEvent(ctx, brand, eventType, {
    evpId: vet.evpId,
    evpName: vettingProvider(vet.evpId)?.displayName,
    vettingId: vet.vettingId,
    description: `${vet.vettingClass} vet ${vet.vettingStatus}${vet.vettingScore !== null ? ` score ${vet.vettingScore}` : ''}${vet.reasons ? `: ${vet.reasons.join('; ')}` : ''}`,
  });
}

export function findVet(
  ctx: SimContext,
  vettingId: string,
  brandId?: string,
): { cspId: string; vet: VetRecord } {
  for (const [cspId, account] of Object.entries(ctx.store.state.accounts)) {
    for (const vet of Object.values(account.vets)) {
      if (vet.vettingId === vettingId && (!brandId || vet.brandId === brandId)) return { cspId, vet };
    }
  }
  throw notFound('vet', vettingId, 'vettingId');
}

export type VetOutcome =
  | { outcome: 'UNSCORE' }
  | { outcome: 'ACTIVE'; score?: number }
  | { outcome: 'FAILED'; reasons?: string[] };

/** The provider's result. Without an explicit outcome the rule decides (see docs/simulator.md). */
export function decideVet(ctx: SimContext, cspId: string, vet: VetRecord, decision?: VetOutcome): VetRecord {
  if (vet.vettingStatus !== 'PENDING' && vet.vettingStatus !== 'UNSCORE') {
    throw badRequest(
      ErrorCode.VALIDATION,
      `vet ${vet.vettingId} is ${vet.vettingStatus}, not PENDING or UNSCORE`,
      ['vettingId'],
    );
  }
  const brand = findBrand(ctx, cspId, vet.brandId);
  const outcome = decision ?? ruleOutcome(brand, vet);
  if (outcome.outcome === 'UNSCORE') {
    if (vet.vettingStatus === 'PENDING') {
      vet.vettingStatus = 'UNSCORE';
      vetEvent(ctx, brand, vet, 'EVP_REPORT_UNSCORE');
    }
  } else if (outcome.outcome === 'FAILED') {
    vet.vettingStatus = 'FAILED';
    vet.reasons = outcome.reasons ?? ['The provider could not process the vet'];
    vet.vettedDate = ctx.nowIso();
    vetEvent(ctx, brand, vet, 'EVP_REPORT_FAILED');
  } else {
    vet.vettingScore = vet.vettingClass === 'POLITICAL' ? null : (outcome.score ?? defaultScore(brand, vet));
    vet.vettedDate = ctx.nowIso();
    activate(ctx, brand, vet, 'EVP_REPORT_SCORE');
  }
  ctx.store.changed();
  return vet;
}

function ruleOutcome(brand: BrandRecord, vet: VetRecord): VetOutcome {
  const names = `${brand.companyName ?? ''} ${brand.displayName}`.toUpperCase();
  if (brand.identityStatus === 'UNVERIFIED')
    return { outcome: 'FAILED', reasons: ['Brand information is incorrect or unverified'] };
  if (names.includes('VETFAIL'))
    return { outcome: 'FAILED', reasons: ['The provider could not verify the brand'] };
  return { outcome: 'ACTIVE', score: defaultScore(brand, vet) };
}

function defaultScore(brand: BrandRecord, vet: VetRecord): number {
  const low = `${brand.companyName ?? ''} ${brand.displayName}`.toUpperCase().includes('LOWSCORE');
  if (vet.vettingClass === 'ENHANCED') return low ? 45 : 85;
  return low ? 25 : 75;
}

export function expireVet(ctx: SimContext, cspId: string, vet: VetRecord, reason: string): void {
  if (vet.vettingStatus !== 'ACTIVE') return;
  const brand = findBrand(ctx, cspId, vet.brandId);
  vet.vettingStatus = 'EXPIRED';
  vet.reasons = [reason];
  vetEvent(ctx, brand, vet, 'EVP_REPORT_EXPIRED');
  const account = ctx.store.account(cspId);
  const stillActive = Object.values(account.vets).filter(
    (v) => v.brandId === brand.brandId && v.vettingStatus === 'ACTIVE',
  );
  if (
    brand.identityStatus === 'VETTED_VERIFIED' &&
    !stillActive.some((v) => v.vettingClass !== 'POLITICAL')
  ) {
    brand.identityStatus = 'VERIFIED';
    brandEvent(ctx, brand, 'BRAND_IDENTITY_STATUS_UPDATE', {
      brandIdentityStatus: 'VERIFIED',
      description: 'External vet expired',
    });
  }
  if (
    vet.vettingClass === 'POLITICAL' &&
    !stillActive.some((v) => v.vettingClass === 'POLITICAL') &&
    !politicalByTaxStatus(brand)
  ) {
    for (const campaign of Object.values(account.campaigns)) {
      if (
        campaign.brandId === brand.brandId &&
        campaign.usecase === 'POLITICAL' &&
        campaign.status === 'ACTIVE'
      ) {
        campaign.status = 'EXPIRED';
        campaign.expirationDate = ctx.nowIso().slice(0, 10);
        campaignEvent(ctx, campaign, brand, 'CAMPAIGN_EXPIRED', {
          description: 'Deactivated: the political vet expired',
        });
      }
    }
  }
  ctx.store.changed();
}

export function politicalByTaxStatus(brand: BrandRecord): boolean {
  const tax = brand.optionalAttributes.taxExemptStatus;
  return (
    brand.entityType === 'NON_PROFIT' && typeof tax === 'string' && EXEMPT_FROM_POLITICAL_VET.includes(tax)
  );
}

export function expireVetsOfBrand(ctx: SimContext, brand: BrandRecord, reason: string): void {
  for (const vet of Object.values(ctx.store.account(brand.cspId).vets)) {
    if (vet.brandId === brand.brandId && vet.vettingStatus === 'ACTIVE')
      expireVet(ctx, brand.cspId, vet, reason);
  }
}

export function registerVettingJobs(ctx: SimContext): void {
  const lookup = (c: SimContext, d: Record<string, string>) =>
    Object.values(c.store.account(d.cspId!).vets).find(
      (v) => v.vettingId === d.vettingId && (!d.brandId || v.brandId === d.brandId),
    );
  ctx.handlers.set('vet.unscore', (c, d) => {
    const vet = lookup(c, d);
    if (vet?.vettingStatus === 'PENDING') decideVet(c, d.cspId!, vet, { outcome: 'UNSCORE' });
  });
  ctx.handlers.set('vet.decide', (c, d) => {
    const vet = lookup(c, d);
    if (vet && (vet.vettingStatus === 'PENDING' || vet.vettingStatus === 'UNSCORE'))
      decideVet(c, d.cspId!, vet);
  });
  ctx.handlers.set('vet.expire', (c, d) => {
    const vet = lookup(c, d);
    if (vet?.vettingStatus === 'ACTIVE' && vet.expiresAt && Date.parse(vet.expiresAt) <= c.clock.nowMs()) {
      expireVet(c, d.cspId!, vet, 'The vet date passed');
    }
  });
}
