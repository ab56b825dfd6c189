/**
 * What the simulator accepts for a brand (spec, "Brands"): the registration and update bodies, the
 * fields each entity type must supply, the update groups, and an appeal's body. Its handlers are in
 * ./brands.ts.
 */
import { z } from 'zod';
import { brandUpdateGroups } from '../registry/brand-update-groups.js';
import {
  ALT_BUSINESS_ID_TYPES,
  BRAND_APPEAL_CATEGORIES,
  BRAND_RELATIONSHIPS,
  ENTITY_TYPES,
  VERTICALS,
} from './reference-data.js';

const text = (max = 255) => z.string().trim().min(1).max(max);
const country = z
  .string()
  .trim()
  .regex(/^[A-Z]{2}$/, 'must be an ISO 3166 alpha-2 country code');

export const brandFields = {
  displayName: text(),
  companyName: text(),
  ein: text(21),
  einIssuingCountry: country,
  phone: z.string().regex(/^\+[1-9]\d{6,14}$/, 'must be in international format with a leading +'),
  mobilePhone: z.string().regex(/^\+[1-9]\d{6,14}$/, 'must be in international format with a leading +'),
  street: text(),
  city: text(100),
  state: text(20),
  postalCode: text(10),
  country,
  email: z.email(),
  website: z.url(),
  stockSymbol: text(10),
  stockExchange: text(20),
  brandRelationship: z.enum(BRAND_RELATIONSHIPS as [string, ...string[]]),
  vertical: z.enum(Object.keys(VERTICALS) as [string, ...string[]]),
  businessContactTitle: text(),
  businessContactFirstName: text(100),
  businessContactLastName: text(100),
  businessContactEmail: z.email(),
  altBusinessId: text(50),
  altBusinessIdType: z.enum(ALT_BUSINESS_ID_TYPES as [string, ...string[]]),
  referenceId: text(50),
};

export type BrandFieldName = keyof typeof brandFields | 'entityType';

export const BrandRegistrationSchema = z.object({
  entityType: z.enum(ENTITY_TYPES as [string, ...string[]]),
  mock: z.boolean().default(false),
  ...Object.fromEntries(Object.entries(brandFields).map(([k, v]) => [k, v.optional()])),
}) as unknown as z.ZodType<BrandInput & { entityType: string; mock: boolean }>;

export const BrandUpdateSchema = z.object({
  entityType: z.enum(ENTITY_TYPES as [string, ...string[]]).optional(),
  ...Object.fromEntries(Object.entries(brandFields).map(([k, v]) => [k, v.optional()])),
}) as unknown as z.ZodType<BrandInput & { entityType?: string }>;

type BrandInput = Partial<Record<keyof typeof brandFields, string>>;

/** Update groups: the product's single definition (src/registry/brand-update-groups.ts). */
export const UPDATE_GROUPS = brandUpdateGroups as Record<1 | 2 | 3 | 4 | 5, readonly BrandFieldName[]>;

/** Fields every organization (all entity types but sole proprietors) must supply at registration. */
const ORGANIZATION_REQUIRED: BrandFieldName[] = [
  'displayName',
  'companyName',
  'ein',
  'einIssuingCountry',
  'phone',
  'street',
  'city',
  'state',
  'postalCode',
  'country',
  'email',
  'vertical',
  'brandRelationship',
];

export const REQUIRED: Record<string, BrandFieldName[]> = {
  PRIVATE_PROFIT: ORGANIZATION_REQUIRED,
  PUBLIC_PROFIT: [...ORGANIZATION_REQUIRED, 'businessContactEmail', 'stockSymbol', 'stockExchange'],
  NON_PROFIT: ORGANIZATION_REQUIRED,
  GOVERNMENT: ORGANIZATION_REQUIRED,
  SOLE_PROPRIETOR: [
    'displayName',
    'mobilePhone',
    'street',
    'city',
    'state',
    'postalCode',
    'country',
    'email',
  ],
};

export const AppealSchema = z.object({
  appealCategories: z.array(z.enum(BRAND_APPEAL_CATEGORIES.map((c) => c.id) as [string, ...string[]])).min(1),
  attachmentUuids: z.array(z.string()).default([]),
  explanation: z.string().trim().min(1).max(4096),
  evpId: z.string().optional(),
  vettingId: z.string().optional(),
});
