import type { EntityType } from '../registry/rule-types.js';
import {
  contactVerificationRequired as contactVerificationRequiredAt,
  datedContactEmailIssues,
} from '../registry/rules.js';
import {
  AppealSchema,
  type BrandFieldName,
  BrandRegistrationSchema,
  BrandUpdateSchema,
  type brandFields,
  REQUIRED,
  UPDATE_GROUPS,
} from './brand-schemas.js';
import type { SimContext } from './context.js';
import { ApiError, badRequest, ErrorCode } from './errors.js';
import { brandEvent } from './events.js';
import { addMonths, findBrand, paginate, parse } from './records.js';
import type { BrandInternal, BrandRecord, IdentityStatus } from './state.js';
import { expireVetsOfBrand } from './vetting.js';

/**
 * Whether the brand's business contact must verify before campaigns (PUBLIC_PROFIT; GOVERNMENT from
 * 2027-01-21 by the simulator's clock): the product's own rule (src/registry/rules.ts), so the
 * simulator, the order API and the workflows never disagree on the date.
 */
export function contactVerificationRequired(brand: BrandRecord, nowMs: number): boolean {
  return contactVerificationRequiredAt(brand.entityType as EntityType, new Date(nowMs));
}

/** Entity-type rules of the spec, checked at registration and after every update. */
function checkEntityRules(brand: BrandRecord, nowMs: number): void {
  const required = [...(REQUIRED[brand.entityType] ?? [])];
  for (const issue of datedContactEmailIssues(brand, new Date(nowMs)))
    required.push(issue.path[0] as BrandFieldName);
  const missing = required.filter((f) => {
    const value = (brand as unknown as Record<string, unknown>)[f];
    return value === null || value === undefined || value === '';
  });
  if (missing.length > 0) {
    throw new ApiError(
      400,
      missing.map((f) => ({
        code: ErrorCode.VALIDATION,
        description: `${f}: required for entityType ${brand.entityType}`,
        fields: [f],
      })),
    );
  }
  const notAllowed = (description: string, fields: string[]) =>
    badRequest(ErrorCode.ENTITY_TYPE_NOT_ALLOWED, description, fields);
  if (brand.entityType === 'NON_PROFIT' && brand.country !== 'US' && brand.einIssuingCountry !== 'US') {
    throw notAllowed(
      'NON_PROFIT is accepted only for US organizations or holders of a US EIN; register as PRIVATE_PROFIT',
      ['entityType', 'country', 'einIssuingCountry'],
    );
  }
  if (brand.entityType === 'GOVERNMENT' && brand.country !== 'US') {
    throw notAllowed(
      'GOVERNMENT is accepted only for US government organizations; register as PRIVATE_PROFIT',
      ['entityType', 'country'],
    );
  }
  if (brand.entityType === 'SOLE_PROPRIETOR' && brand.country !== 'US' && brand.country !== 'CA') {
    throw notAllowed('SOLE_PROPRIETOR is accepted only from the US or Canada', ['entityType', 'country']);
  }
}

/**
 * Identity rules (deterministic, documented): a companyName or displayName containing "UNVERIFIED" or
 * "NEEDSAPPEAL" fails verification; sole proprietors are SELF_DECLARED; everything else is VERIFIED.
 * "UNVERIFIED" marks incorrect data (revet and appeal keep failing until it is corrected);
 * "NEEDSAPPEAL" marks correct data the automatic check rejects (revet fails, an appeal succeeds).
 */
export function identityFor(brand: BrandRecord): IdentityStatus {
  const names = `${brand.companyName ?? ''} ${brand.displayName}`.toUpperCase();
  if (names.includes('UNVERIFIED') || names.includes('NEEDSAPPEAL')) return 'UNVERIFIED';
  if (brand.entityType === 'SOLE_PROPRIETOR') return 'SELF_DECLARED';
  return 'VERIFIED';
}

export function dataIsCorrect(brand: BrandRecord): boolean {
  return !`${brand.companyName ?? ''} ${brand.displayName}`.toUpperCase().includes('UNVERIFIED');
}

/** Optional attributes a verified brand receives. */
export function verifiedAttributes(brand: BrandRecord): Record<string, string | number | boolean> {
  const attributes: Record<string, string | number | boolean> = {};
  if (brand.entityType === 'NON_PROFIT') {
    const names = `${brand.companyName ?? ''} ${brand.displayName}`;
    if (!/NOTAXEXEMPT/i.test(names)) {
      const match = /501\(c\)\((\d+)\)/i.exec(names);
      attributes.taxExemptStatus = `501(c)(${match ? match[1] : '3'})`;
    }
  }
  if (brand.entityType === 'GOVERNMENT' && brand.country === 'US') attributes.governmentEntity = true;
  return attributes;
}

function setIdentity(
  ctx: SimContext,
  brand: BrandRecord,
  status: IdentityStatus,
  description?: string,
): void {
  const changed = brand.identityStatus !== status;
  brand.identityStatus = status;
  brand.optionalAttributes =
    status === 'UNVERIFIED' ? {} : { ...verifiedAttributes(brand), ...keepManual(brand) };
  if (changed || description) {
    brandEvent(ctx, brand, 'BRAND_IDENTITY_STATUS_UPDATE', { brandIdentityStatus: status, description });
  }
}

function keepManual(brand: BrandRecord): Record<string, string | number | boolean> {
  // Attributes granted by an approved appeal survive re-verification.
  const { taxExemptStatus, governmentEntity } = brand.optionalAttributes;
  const kept: Record<string, string | number | boolean> = {};
  if (taxExemptStatus !== undefined && brand.entityType === 'NON_PROFIT')
    kept.taxExemptStatus = taxExemptStatus;
  if (governmentEntity !== undefined && brand.entityType === 'GOVERNMENT')
    kept.governmentEntity = governmentEntity;
  return kept;
}

function internalOf(ctx: SimContext, brand: BrandRecord): BrandInternal {
  const account = ctx.store.account(brand.cspId);
  account.brandInternal[brand.brandId] ??= { lastGroup3UpdateAt: null, appeal: null };
  return account.brandInternal[brand.brandId]!;
}

function scheduleContactVerification(ctx: SimContext, brand: BrandRecord): void {
  const target = brand.entityType === 'SOLE_PROPRIETOR' ? brand.email : brand.businessContactEmail;
  if (!target || /NOVERIFY/i.test(target)) return;
  ctx.schedule('brand.verifyContact', ctx.delays.contactVerificationSeconds, {
    cspId: brand.cspId,
    brandId: brand.brandId,
  });
}

export function registerBrand(ctx: SimContext, cspId: string, body: unknown): BrandRecord {
  const input = parse(BrandRegistrationSchema, body);
  const now = ctx.nowIso();
  const v = (k: keyof typeof brandFields) => input[k] ?? null;
  const brand: BrandRecord = {
    brandId: '',
    cspId,
    referenceId: v('referenceId'),
    entityType: input.entityType,
    status: 'ACTIVE',
    identityStatus: 'UNVERIFIED',
    displayName: input.displayName ?? '',
    companyName: v('companyName'),
    ein: v('ein'),
    einIssuingCountry: v('einIssuingCountry'),
    universalEin: null,
    phone: v('phone'),
    mobilePhone: v('mobilePhone'),
    street: v('street'),
    city: v('city'),
    state: v('state'),
    postalCode: v('postalCode'),
    country: input.country ?? '',
    email: input.email ?? '',
    website: v('website'),
    stockSymbol: v('stockSymbol'),
    stockExchange: v('stockExchange'),
    brandRelationship: v('brandRelationship'),
    vertical: v('vertical'),
    altBusinessId: v('altBusinessId'),
    altBusinessIdType: v('altBusinessIdType'),
    optionalAttributes: {},
    mock: input.mock,
    createDate: now,
    businessContactTitle: v('businessContactTitle'),
    businessContactFirstName: v('businessContactFirstName'),
    businessContactLastName: v('businessContactLastName'),
    businessContactEmail: v('businessContactEmail'),
    businessContactEmailVerifiedDate: null,
    mobilePhoneVerifiedDate: null,
  };
  checkEntityRules(brand, ctx.clock.nowMs());
  // referenceId is not unique: like the registry, every POST registers a new brand, so a client that
  // retries a create must look up by referenceId first.
  brand.universalEin = universalEin(brand);
  brand.brandId = ctx.store.nextId('B');
  ctx.store.addBrand(cspId, brand, { lastGroup3UpdateAt: null, appeal: null });
  brandEvent(ctx, brand, 'BRAND_ADD');
  setIdentity(ctx, brand, identityFor(brand), 'Identity check after registration');
  scheduleContactVerification(ctx, brand);
  ctx.store.changed();
  return brand;
}

function universalEin(brand: BrandRecord): string | null {
  return brand.ein && brand.einIssuingCountry ? `${brand.einIssuingCountry}_${brand.ein}` : null;
}

export function updateBrand(ctx: SimContext, cspId: string, brandId: string, body: unknown): BrandRecord {
  const brand = findBrand(ctx, cspId, brandId);
  const input = parse(BrandUpdateSchema, body) as Record<string, string | undefined>;
  const current = brand as unknown as Record<string, unknown>;
  const changed = Object.entries(input)
    .filter(([k, v]) => v !== undefined && current[k] !== v)
    .map(([k]) => k as BrandFieldName);
  if (changed.length === 0) return brand;
  const groupsChanged = new Set(
    ([1, 2, 3, 4, 5] as const).filter((g) => UPDATE_GROUPS[g].some((f) => changed.includes(f))),
  );
  const account = ctx.store.account(cspId);
  const internal = internalOf(ctx, brand);
  const nowMs = ctx.clock.nowMs();
  if (groupsChanged.has(1)) {
    const vets = Object.values(account.vets).filter((v) => v.brandId === brandId);
    const activeCampaigns = Object.values(account.campaigns).filter(
      (c) => c.brandId === brandId && c.status === 'ACTIVE',
    );
    if (vets.length > 0 || activeCampaigns.length > 0) {
      throw badRequest(
        ErrorCode.UPDATE_GROUP_LOCKED,
        `${UPDATE_GROUPS[1].filter((f) => changed.includes(f)).join(', ')} may change only while the brand has no external vets and no active campaigns`,
        UPDATE_GROUPS[1].filter((f) => changed.includes(f)),
      );
    }
  }
  if (groupsChanged.has(3) && internal.lastGroup3UpdateAt) {
    const next = addMonths(new Date(internal.lastGroup3UpdateAt), 3).getTime();
    if (nowMs < next) {
      throw badRequest(
        ErrorCode.UPDATE_TOO_FREQUENT,
        `${UPDATE_GROUPS[3].join(', ')} may be updated once every 3 months; next update allowed from ${new Date(next).toISOString()}`,
        UPDATE_GROUPS[3].filter((f) => changed.includes(f)),
      );
    }
  }
  const next = { ...brand, ...Object.fromEntries(changed.map((k) => [k, input[k]])) } as BrandRecord;
  checkEntityRules(next, nowMs);

  Object.assign(brand, next);
  brand.universalEin = universalEin(brand);
  if (groupsChanged.has(3)) internal.lastGroup3UpdateAt = ctx.nowIso();
  if (groupsChanged.has(4)) {
    brand.businessContactEmailVerifiedDate = null;
    scheduleContactVerification(ctx, brand);
  }
  brandEvent(ctx, brand, 'BRAND_UPDATE', { description: `Updated: ${changed.join(', ')}` });
  if (groupsChanged.has(3) || groupsChanged.has(5))
    expireVetsOfBrand(ctx, brand, 'Brand information changed after the vet');
  if (groupsChanged.has(1) || groupsChanged.has(5)) {
    brand.optionalAttributes = {};
    setIdentity(ctx, brand, 'UNVERIFIED', 'Brand information changed; resubmit with revet');
  }
  ctx.store.changed();
  return brand;
}

export function revetBrand(ctx: SimContext, cspId: string, brandId: string): BrandRecord {
  const brand = findBrand(ctx, cspId, brandId);
  if (brand.identityStatus === 'UNVERIFIED') {
    setIdentity(ctx, brand, identityFor(brand), 'Revet');
    ctx.store.changed();
  }
  return brand;
}

export function appealBrand(ctx: SimContext, cspId: string, brandId: string, body: unknown): void {
  const brand = findBrand(ctx, cspId, brandId);
  const input = parse(AppealSchema, body);
  internalOf(ctx, brand).appeal = {
    status: 'PENDING',
    categories: input.appealCategories,
    createdAt: ctx.nowIso(),
  };
  ctx.schedule('brand.appealReview', ctx.delays.appealReviewSeconds, { cspId, brandId });
  ctx.store.changed();
}

/** Decides a pending appeal; `approve` undefined applies the rule (approved when the data is correct). */
export function decideAppeal(
  ctx: SimContext,
  cspId: string,
  brandId: string,
  approve?: boolean,
): BrandRecord {
  const brand = findBrand(ctx, cspId, brandId);
  const appeal = internalOf(ctx, brand).appeal;
  if (appeal?.status !== 'PENDING') {
    throw badRequest(ErrorCode.VALIDATION, `brand ${brandId} has no pending appeal`, ['brandId']);
  }
  const approved = approve ?? dataIsCorrect(brand);
  appeal.status = approved ? 'APPROVED' : 'REJECTED';
  if (approved) {
    const status =
      brand.identityStatus === 'UNVERIFIED'
        ? brand.entityType === 'SOLE_PROPRIETOR'
          ? 'SELF_DECLARED'
          : 'VERIFIED'
        : brand.identityStatus;
    brand.identityStatus = status;
    const attributes = verifiedAttributes(brand);
    if (appeal.categories.includes('VERIFY_TAX_EXEMPT') && brand.entityType === 'NON_PROFIT') {
      attributes.taxExemptStatus ??= '501(c)(3)';
    }
    if (appeal.categories.includes('VERIFY_GOVERNMENT') && brand.entityType === 'GOVERNMENT')
      attributes.governmentEntity = true;
    brand.optionalAttributes = { ...brand.optionalAttributes, ...attributes };
    brandEvent(ctx, brand, 'BRAND_IDENTITY_STATUS_UPDATE', {
      brandIdentityStatus: status,
      description: 'Appeal approved',
    });
  } else {
    brandEvent(ctx, brand, 'BRAND_IDENTITY_STATUS_UPDATE', {
      brandIdentityStatus: brand.identityStatus,
      description: 'Appeal rejected',
    });
  }
  ctx.store.changed();
  return brand;
}

export function verifyContact(ctx: SimContext, cspId: string, brandId: string): BrandRecord {
  const brand = findBrand(ctx, cspId, brandId);
  const now = ctx.nowIso();
  let changed = false;
  if (brand.businessContactEmail && !brand.businessContactEmailVerifiedDate) {
    brand.businessContactEmailVerifiedDate = now;
    changed = true;
  }
  if (brand.entityType === 'SOLE_PROPRIETOR' && !brand.mobilePhoneVerifiedDate) {
    brand.mobilePhoneVerifiedDate = now;
    changed = true;
  }
  if (changed) {
    brandEvent(ctx, brand, 'BRAND_CONTACT_VERIFIED', {
      description:
        brand.entityType === 'SOLE_PROPRIETOR'
          ? 'Mobile phone verified (OTP)'
          : 'Business contact e-mail verified',
    });
    ctx.store.changed();
  }
  return brand;
}

export function listBrands(ctx: SimContext, cspId: string, query: URLSearchParams) {
  const filters: [string, (b: BrandRecord, v: string) => boolean][] = [
    ['entityType', (b, v) => b.entityType === v],
    ['identityStatus', (b, v) => b.identityStatus === v],
    ['status', (b, v) => b.status === v],
    ['state', (b, v) => b.state === v],
    ['country', (b, v) => b.country === v],
    ['mock', (b, v) => String(b.mock) === v],
    ['referenceId', (b, v) => b.referenceId === v],
    ['displayName', (b, v) => b.displayName === v],
  ];
  const active = filters.flatMap(([name, test]) => {
    const value = query.get(name);
    return value !== null && value !== '' ? [(b: BrandRecord) => test(b, value)] : [];
  });
  // Id order, which is creation order: a brand added while a client pages lands on the last page.
  return paginate(
    ctx.store.brandList(cspId),
    query,
    active.length === 0 ? undefined : (b) => active.every((keep) => keep(b)),
    ctx.api.maxRecordsPerPage,
  );
}

export function registerBrandJobs(ctx: SimContext): void {
  ctx.handlers.set('brand.verifyContact', (c, d) => {
    const brand = c.store.account(d.cspId!).brands[d.brandId!];
    if (brand) verifyContact(c, brand.cspId, brand.brandId);
  });
  ctx.handlers.set('brand.appealReview', (c, d) => {
    const internal = c.store.account(d.cspId!).brandInternal[d.brandId!];
    if (internal?.appeal?.status === 'PENDING') decideAppeal(c, d.cspId!, d.brandId!);
  });
}
