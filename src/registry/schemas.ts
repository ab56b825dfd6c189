/**
 * zod schemas for every record of the registry API (spec: "Resources and their fields", "Reference
 * lists", "Endpoints"). Two kinds live here:
 *
 * - Response schemas (`BrandSchema`, `CampaignSchema`, ...) are loose: unknown fields are kept
 *   (`z.looseObject`), fields the spec does not mark as always present are optional, and nullable
 *   where the spec says "or null". The registry may add fields at any time.
 * - Request / order schemas (`BrandRegistrationSchema`, `CampaignCreationSchema`, ...) are strict about
 *   what the spec states (entity-type rules, referenceId pattern, 512-character STRING optional
 *   attributes) and are checked by the client before anything is sent. The workflows and the CLI
 *   validate orders with the same schemas.
 */
import { z } from 'zod';

export {
  contactVerificationRequired,
  GOVERNMENT_CONTACT_VERIFICATION_FROM,
  subUsecaseIssues,
} from './rules.js';

import { referencePattern } from './reference.js';
import { REQUEST_LIMITS as LIMIT } from './request-limits.js';
import { EntityTypes } from './rule-types.js';

export { EntityTypes } from './rule-types.js';

// ---------------------------------------------------------------------------------------------------
// Enumerations the spec lists
// ---------------------------------------------------------------------------------------------------

export const EntityTypeSchema = z.enum(EntityTypes);
export type EntityType = z.infer<typeof EntityTypeSchema>;

export const IdentityStatuses = ['SELF_DECLARED', 'UNVERIFIED', 'VERIFIED', 'VETTED_VERIFIED'] as const;
export type IdentityStatus = (typeof IdentityStatuses)[number];

export const BrandRelationships = [
  'BASIC_ACCOUNT',
  'SMALL_ACCOUNT',
  'MEDIUM_ACCOUNT',
  'LARGE_ACCOUNT',
  'KEY_ACCOUNT',
] as const;
export const BrandRelationshipSchema = z.enum(BrandRelationships);
export type BrandRelationship = z.infer<typeof BrandRelationshipSchema>;

export const AltBusinessIdTypes = ['NONE', 'DUNS', 'GIIN', 'LEI'] as const;
export const AltBusinessIdTypeSchema = z.enum(AltBusinessIdTypes);

export const VettingClasses = ['STANDARD', 'ENHANCED', 'POLITICAL'] as const;
export const VettingClassSchema = z.enum(VettingClasses);
export type VettingClass = z.infer<typeof VettingClassSchema>;

export const VettingStatuses = ['PENDING', 'UNSCORE', 'ACTIVE', 'FAILED', 'EXPIRED'] as const;
export type VettingStatus = (typeof VettingStatuses)[number];

export const SharingStatuses = ['PENDING', 'ACCEPTED', 'DECLINED'] as const;
export type SharingStatus = (typeof SharingStatuses)[number];

export const OptionalAttributeDataTypes = ['INTEGER', 'DECIMAL', 'STRING', 'BOOLEAN'] as const;

/** Spec, "Limits": optional attributes of type STRING hold at most 512 characters. */
export const OPTIONAL_ATTRIBUTE_STRING_MAX = 512;

/** `resellerId` value meaning "no reseller" (spec, fact 7). */
export const NO_RESELLER = 'R000000';

/** The CSP's own reference, sent as `referenceId` (./reference.ts `referencePattern`). */
export const ReferenceIdSchema = z
  .string()
  .regex(referencePattern, 'referenceId must match the reference pattern (letters, digits, . _ : -; 1-100)');

// Registry strings we do not constrain (values may grow): accepted as any string in responses.
const str = z.string();
const optStr = z.string().optional();
const nullableStr = z.string().nullable().optional();
const optBool = z.boolean().optional();

// ---------------------------------------------------------------------------------------------------
// Response records
// ---------------------------------------------------------------------------------------------------

export const OptionalAttributeValueSchema = z.union([z.string(), z.number(), z.boolean()]);

export const BrandSchema = z.looseObject({
  brandId: str,
  cspId: optStr,
  entityType: optStr,
  status: optStr,
  identityStatus: optStr,
  displayName: optStr,
  companyName: nullableStr,
  ein: nullableStr,
  einIssuingCountry: nullableStr,
  universalEin: nullableStr,
  phone: nullableStr,
  mobilePhone: nullableStr,
  street: nullableStr,
  city: nullableStr,
  state: nullableStr,
  postalCode: nullableStr,
  country: nullableStr,
  email: nullableStr,
  website: nullableStr,
  stockSymbol: nullableStr,
  stockExchange: nullableStr,
  brandRelationship: nullableStr,
  vertical: nullableStr,
  optionalAttributes: z.record(z.string(), z.unknown()).optional(),
  mock: optBool,
  createDate: nullableStr,
  businessContactTitle: nullableStr,
  businessContactFirstName: nullableStr,
  businessContactLastName: nullableStr,
  businessContactEmail: nullableStr,
  businessContactEmailVerifiedDate: nullableStr,
  altBusinessIdType: nullableStr,
  altBusinessId: nullableStr,
  /** Not in the spec's brand table; the product sends it and the simulator echoes it. */
  referenceId: nullableStr,
});
export type Brand = z.infer<typeof BrandSchema>;

export const CampaignSchema = z.looseObject({
  campaignId: str,
  cspId: optStr,
  resellerId: nullableStr,
  brandId: optStr,
  status: optStr,
  createDate: nullableStr,
  billedDate: nullableStr,
  autoRenewal: optBool,
  nextRenewalOrExpirationDate: nullableStr,
  expirationDate: nullableStr,
  vertical: nullableStr,
  usecase: optStr,
  subUsecases: z.array(z.string()).nullable().optional(),
  description: nullableStr,
  embeddedLink: optBool,
  embeddedPhone: optBool,
  termsAndConditions: optBool,
  numberPool: optBool,
  ageGated: optBool,
  directLending: optBool,
  subscriberOptin: optBool,
  subscriberOptout: optBool,
  subscriberHelp: optBool,
  sample1: nullableStr,
  sample2: nullableStr,
  sample3: nullableStr,
  sample4: nullableStr,
  sample5: nullableStr,
  messageFlow: nullableStr,
  helpMessage: nullableStr,
  optinMessage: nullableStr,
  optoutMessage: nullableStr,
  optinKeywords: nullableStr,
  optoutKeywords: nullableStr,
  helpKeywords: nullableStr,
  privacyPolicyLink: nullableStr,
  termsAndConditionsLink: nullableStr,
  embeddedLinkSample: nullableStr,
  referenceId: nullableStr,
  mock: optBool,
  monthlyFee: z.number().nullable().optional(),
  tag: z.array(z.unknown()).nullable().optional(),
  mnoIDs: z.array(z.number().int()).nullable().optional(),
});
export type Campaign = z.infer<typeof CampaignSchema>;

export const SharingRecordSchema = z.looseObject({
  downstreamCnpId: nullableStr,
  upstreamCnpId: nullableStr,
  sharingStatus: str,
  explanation: nullableStr,
  sharedDate: nullableStr,
  statusDate: nullableStr,
  cnpMigration: optBool,
});
export type SharingRecord = z.infer<typeof SharingRecordSchema>;

/** `GET /campaign/{id}/sharing`: `sharedByMe` is named by the spec; other members are kept as-is. */
export const CampaignSharingSchema = z.looseObject({
  sharedByMe: SharingRecordSchema.nullable().optional(),
  sharedWithMe: SharingRecordSchema.nullable().optional(),
});
export type CampaignSharing = z.infer<typeof CampaignSharingSchema>;

export const ExternalVetSchema = z.looseObject({
  evpId: str,
  vettingId: nullableStr,
  vettingToken: nullableStr,
  vettingScore: z.number().nullable().optional(),
  vettingClass: optStr,
  vettingStatus: optStr,
  reasons: z.array(z.unknown()).nullable().optional(),
  vettingDetails: z.record(z.string(), z.unknown()).nullable().optional(),
  vettedDate: nullableStr,
  createDate: nullableStr,
});
export type ExternalVet = z.infer<typeof ExternalVetSchema>;

export const DcaSchema = z.looseObject({
  id: str,
  displayName: optStr,
  escalateEmail: nullableStr,
  dpaSigned: optBool,
  soleProprietorEnabled: optBool,
  dca2AutoAccept: optBool,
  cnpMigrationSupported: optBool,
});
export type Dca = z.infer<typeof DcaSchema>;

/**
 * MNO record. The spec does not show its property names ("network id, display name and a bit-mask
 * index"); any object is accepted and kept. The typed fields are what the local simulator returns
 * (`networkId`, `displayName`, `osrBitmaskIndex`); other registries may name them differently.
 */
export const MnoSchema = z.looseObject({
  networkId: z.union([z.number(), z.string()]).optional(),
  displayName: optStr,
  osrBitmaskIndex: z.number().optional(),
});
export type Mno = z.infer<typeof MnoSchema>;

export const OptionalAttributeNameSchema = z.looseObject({
  id: str,
  dataType: z.string(),
  description: nullableStr,
});
export type OptionalAttributeName = z.infer<typeof OptionalAttributeNameSchema>;

export const UseCaseSchema = z.looseObject({
  classification: optStr,
  description: nullableStr,
  displayName: optStr,
  minSubUsecases: z.number().int().optional(),
  maxSubUsecases: z.number().int().optional(),
  validSubUsecase: optBool,
});
export type UseCase = z.infer<typeof UseCaseSchema>;
export const UseCaseMapSchema = z.record(z.string(), UseCaseSchema);
export type UseCaseMap = z.infer<typeof UseCaseMapSchema>;

export const VerticalSchema = z.looseObject({
  industryId: optStr,
  displayName: optStr,
  description: nullableStr,
});
export type Vertical = z.infer<typeof VerticalSchema>;
export const VerticalMapSchema = z.record(z.string(), VerticalSchema);
export type VerticalMap = z.infer<typeof VerticalMapSchema>;

export const UsStateMapSchema = z.record(z.string(), z.string());
export type UsStateMap = z.infer<typeof UsStateMapSchema>;

export const StringListSchema = z.array(z.string());

/** The JSON held (as a string) in a vetting provider's `vettingInstruction`. */
export const VettingInstructionSchema = z.looseObject({
  importVet: z
    .looseObject({
      supported: z.boolean().optional(),
      parameters: z
        .record(z.string(), z.looseObject({ label: z.string().optional(), show: z.boolean().optional() }))
        .optional(),
      info: nullableStr,
    })
    .optional(),
  newVet: z
    .looseObject({
      supported: z.boolean().optional(),
      price: z.record(z.string(), z.number()).optional(),
      waitTime: nullableStr,
      info: nullableStr,
    })
    .optional(),
});
export type VettingInstruction = z.infer<typeof VettingInstructionSchema>;

/**
 * Vetting provider. `vettingInstruction` arrives as a string containing JSON; it is parsed into a
 * typed object (an object already parsed is accepted too). Unparseable JSON fails with the field path.
 */
export const VettingProviderSchema = z.looseObject({
  evpId: str,
  displayName: optStr,
  registryBillable: optBool,
  vettingClasses: z.array(z.string()).optional(),
  vettingInstruction: z
    .union([z.string(), z.record(z.string(), z.unknown())])
    .transform((value, ctx) => {
      if (typeof value !== 'string') return value;
      try {
        return JSON.parse(value) as unknown;
      } catch {
        ctx.addIssue({ code: 'custom', message: 'vettingInstruction is not valid JSON' });
        return z.NEVER;
      }
    })
    .pipe(VettingInstructionSchema)
    .nullable()
    .optional(),
});
export type VettingProvider = z.infer<typeof VettingProviderSchema>;

export const AppealCategorySchema = z.looseObject({
  id: str,
  displayName: optStr,
  description: nullableStr,
});
export type AppealCategory = z.infer<typeof AppealCategorySchema>;

/** `/enum/brandAppealCategory`: shape not shown; records like the asset appeal category or plain strings. */
export const BrandAppealCategorySchema = z.union([AppealCategorySchema, z.string()]);
export type BrandAppealCategory = z.infer<typeof BrandAppealCategorySchema>;

/** `/enum/cnp`: shape not shown. Objects (kept whole) or plain ids. */
export const ConnectivityPartnerSchema = z.union([
  z.looseObject({ id: z.string().optional(), cnpId: z.string().optional(), displayName: optStr }),
  z.string(),
]);
export type ConnectivityPartner = z.infer<typeof ConnectivityPartnerSchema>;

/** `/enum/vettingClass`: shape not shown. Plain strings or records. */
export const VettingClassRecordSchema = z.union([
  z.string(),
  z.looseObject({ id: z.string().optional(), displayName: optStr }),
]);
export type VettingClassRecord = z.infer<typeof VettingClassRecordSchema>;

export const MnoMetadataSchema = z.looseObject({
  minMsgSamples: z.number().int().optional(),
  reqSubscriberHelp: optBool,
  reqSubscriberOptout: optBool,
  reqSubscriberOptin: optBool,
  brandDailyCap: z.number().int().nullable().optional(),
  mnoReview: optBool,
  mnoSupport: optBool,
  brandTier: nullableStr,
  noEmbeddedLink: optBool,
  noEmbeddedPhone: optBool,
  qualify: optBool,
  mno: optStr,
});
export type MnoMetadata = z.infer<typeof MnoMetadataSchema>;

export const CampaignCreatedSchema = z.looseObject({
  campaignId: str,
  mnoMetadata: z.record(z.string(), MnoMetadataSchema).default({}),
});
export type CampaignCreated = z.infer<typeof CampaignCreatedSchema>;

export function pageSchema<T extends z.ZodType>(record: T) {
  return z.looseObject({
    records: z.array(record),
    page: z.number().int(),
    totalRecords: z.number().int(),
  });
}
export interface Page<T> {
  records: T[];
  page: number;
  totalRecords: number;
  [key: string]: unknown;
}
export const BrandPageSchema = pageSchema(BrandSchema);
export const CampaignPageSchema = pageSchema(CampaignSchema);

/**
 * `GET /campaignBuilder/brand/{id}`: "the kinds of campaign the brand can support"; shape not shown.
 * Accepted as a list of entries (the simulator returns one per use case) or an object, kept whole.
 */
export const CampaignBuilderUseCaseSchema = z.looseObject({
  usecase: optStr,
  /** Simulator: whether the brand can create a campaign of this use case, and why not. */
  qualified: optBool,
  reasons: z.array(z.string()).optional(),
  mnoMetadata: z.record(z.string(), MnoMetadataSchema).optional(),
});
export type CampaignBuilderUseCase = z.infer<typeof CampaignBuilderUseCaseSchema>;
export const CampaignBuilderBrandSchema = z.union([
  z.array(z.union([CampaignBuilderUseCaseSchema, z.string()])),
  z.looseObject({}),
]);
export type CampaignBuilderBrand = z.infer<typeof CampaignBuilderBrandSchema>;

/**
 * `GET /campaignBuilder/brand/{id}/usecase/{usecase}` as the brand endpoints read it: "response shape:
 * not shown", so any JSON (or none) is accepted; ./brand-endpoints.ts (`useCaseSupport`) decides.
 */
export const AnyJsonSchema = z.unknown();

export const WebhookSubscriptionSchema = z.looseObject({
  eventCategory: str,
  webhookEndpoint: str,
  /** The simulator may return the signing secret here; never log it. */
  webhookSecret: optStr,
});
export type WebhookSubscription = z.infer<typeof WebhookSubscriptionSchema>;

/** Registry error body element (field names not in the spec; these are what the simulator sends). */
export const RegistryErrorEntrySchema = z.looseObject({
  code: z.union([z.number(), z.string()]).optional(),
  description: z.string().optional(),
  fields: z
    .union([z.array(z.string()), z.string()])
    .nullable()
    .optional(),
});

// ---------------------------------------------------------------------------------------------------
// Request / order schemas
// ---------------------------------------------------------------------------------------------------

const reqStr = z.string().trim().min(1);
/**
 * The spec shows no field lengths. The product refuses absurd input at the edge with these limits
 * (names, addresses, ids, keywords: 255; messages: 1,024; descriptions and message flows: 4,096),
 * so a 100,000-character street never reaches a workflow or the registry.
 */
const SHORT_TEXT_MAX = 255;
const MESSAGE_TEXT_MAX = 1024;
const shortStr = reqStr.max(SHORT_TEXT_MAX);
const messageStr = reqStr.max(MESSAGE_TEXT_MAX);
const url = z.url().max(2048);

/** An array of at most `max` entries (./request-limits.ts). */
const cappedArray = <T extends z.ZodType>(item: T, max: number) =>
  z.array(item).max(max, `at most ${max} entries`);

type OptionalAttributeValues = Record<string, string | number | boolean>;
// The names are counted and measured before any value is parsed: 10,000 keys cost one count.
const optionalAttributeValues: z.ZodType<OptionalAttributeValues, OptionalAttributeValues> = z
  // Only the names are looked at before the pipe (a record schema would parse every entry first).
  .custom<OptionalAttributeValues>(
    (value) => typeof value === 'object' && value !== null && !Array.isArray(value),
    'expected an object',
  )
  .superRefine((values, ctx) => {
    const names = Object.keys(values);
    if (names.length > LIMIT.optionalAttributes)
      ctx.addIssue({ code: 'custom', message: `at most ${LIMIT.optionalAttributes} optional attributes` });
    else if (names.some((name) => name.length > LIMIT.optionalAttributeName))
      ctx.addIssue({
        code: 'custom',
        message: `an optional attribute name holds at most ${LIMIT.optionalAttributeName} characters`,
      });
  })
  .pipe(
    z.record(
      z.string(),
      z.union([
        z
          .string()
          .max(
            OPTIONAL_ATTRIBUTE_STRING_MAX,
            `STRING optional attributes hold at most ${OPTIONAL_ATTRIBUTE_STRING_MAX} characters`,
          ),
        z.number(),
        z.boolean(),
      ]),
    ),
  );

/** Brand fields accepted at registration (spec, `POST /brand/nonBlocking`), without entity-type rules. */
const brandFields = {
  entityType: EntityTypeSchema,
  displayName: reqStr.max(255),
  companyName: reqStr.max(255).optional(),
  firstName: shortStr.optional(),
  lastName: shortStr.optional(),
  ein: reqStr.max(40).optional(),
  einIssuingCountry: z.string().length(2).optional(),
  phone: reqStr.regex(/^\+[0-9]{6,20}$/, 'phone must be in international format with a leading +').optional(),
  mobilePhone: reqStr
    .regex(/^\+[0-9]{6,20}$/, 'mobilePhone must be in international format with a leading +')
    .optional(),
  street: shortStr.optional(),
  city: shortStr.optional(),
  state: shortStr.optional(),
  postalCode: shortStr.optional(),
  country: z.string().length(2, 'country is a 2-letter country code'),
  email: z.email(),
  website: url.optional(),
  brandRelationship: BrandRelationshipSchema.optional(),
  vertical: shortStr.optional(),
  mock: z.boolean().optional(),
  businessContactTitle: shortStr.optional(),
  businessContactFirstName: shortStr.optional(),
  businessContactLastName: shortStr.optional(),
  businessContactEmail: z.email().optional(),
  stockSymbol: shortStr.optional(),
  stockExchange: shortStr.optional(),
  altBusinessIdType: AltBusinessIdTypeSchema.optional(),
  altBusinessId: shortStr.optional(),
  optionalAttributes: optionalAttributeValues.optional(),
};

type EntityRuleInput = {
  entityType?: EntityType | undefined;
  country?: string | undefined;
  einIssuingCountry?: string | undefined;
  businessContactEmail?: string | undefined;
  stockSymbol?: string | undefined;
  stockExchange?: string | undefined;
  companyName?: string | undefined;
  ein?: string | undefined;
  mobilePhone?: string | undefined;
};

/** Spec, fact 6: which entity types are accepted where, and what PUBLIC_PROFIT must supply. */
export function entityTypeIssues(brand: EntityRuleInput): { path: string[]; message: string }[] {
  const issues: { path: string[]; message: string }[] = [];
  const country = brand.country?.toUpperCase();
  switch (brand.entityType) {
    case 'PUBLIC_PROFIT':
      if (!brand.businessContactEmail)
        issues.push({
          path: ['businessContactEmail'],
          message: 'businessContactEmail is required for PUBLIC_PROFIT',
        });
      if (!brand.stockSymbol)
        issues.push({ path: ['stockSymbol'], message: 'stockSymbol is required for PUBLIC_PROFIT' });
      if (!brand.stockExchange)
        issues.push({ path: ['stockExchange'], message: 'stockExchange is required for PUBLIC_PROFIT' });
      break;
    case 'NON_PROFIT':
      if (country !== 'US' && brand.einIssuingCountry?.toUpperCase() !== 'US')
        issues.push({
          path: ['country'],
          message:
            'NON_PROFIT is accepted only for US organizations or holders of a US EIN; register as PRIVATE_PROFIT',
        });
      break;
    case 'GOVERNMENT':
      if (country !== 'US')
        issues.push({
          path: ['country'],
          message: 'GOVERNMENT is accepted only for US government organizations; register as PRIVATE_PROFIT',
        });
      break;
    case 'SOLE_PROPRIETOR':
      if (country !== 'US' && country !== 'CA')
        issues.push({ path: ['country'], message: 'SOLE_PROPRIETOR is accepted only from the US or Canada' });
      // Their "further verification" is a one-time password to this phone.
      if (!brand.mobilePhone)
        issues.push({ path: ['mobilePhone'], message: 'mobilePhone is required for SOLE_PROPRIETOR' });
      break;
    default:
      break;
  }
  if (brand.entityType && brand.entityType !== 'SOLE_PROPRIETOR') {
    if (!brand.companyName)
      issues.push({ path: ['companyName'], message: `companyName is required for ${brand.entityType}` });
    if (!brand.ein) issues.push({ path: ['ein'], message: `ein is required for ${brand.entityType}` });
  }
  return issues;
}

/** A brand registration order: the spec's registration fields plus the CSP's `referenceId`. */
/** The string-valued fields of an object: what the entity-type rules can judge on unparsed input. */
function stringFields(value: unknown): Record<string, string> {
  if (typeof value !== 'object' || value === null) return {};
  return Object.fromEntries(Object.entries(value).filter(([, v]) => typeof v === 'string')) as Record<
    string,
    string
  >;
}

export const BrandRegistrationSchema = z
  .object({ referenceId: ReferenceIdSchema, ...brandFields })
  .superRefine(
    (brand, ctx) => {
      for (const issue of entityTypeIssues(stringFields(brand))) ctx.addIssue({ code: 'custom', ...issue });
    },
    {
      // Run the entity-type rules even when other fields failed, so a bad order gets every error at
      // once; they judge only fields that are strings and a known entity type.
      when: (payload) => EntityTypeSchema.safeParse(stringFields(payload.value).entityType).success,
    },
  );
export type BrandRegistration = z.infer<typeof BrandRegistrationSchema>;
export type BrandRegistrationInput = z.input<typeof BrandRegistrationSchema>;

/**
 * A brand update (`PUT /brand/{id}`): any subset of the registration fields, at least one. Entity-type
 * rules are checked for the fields present (an update naming entityType PUBLIC_PROFIT must carry
 * the stock fields etc. only if it also changes them; the registry holds the rest).
 */
export const BrandUpdateSchema = z
  .object(brandFields)
  .partial()
  .superRefine((patch, ctx) => {
    if (Object.keys(patch).length === 0)
      ctx.addIssue({ code: 'custom', path: [], message: 'an update needs at least one field' });
    if (patch.entityType && patch.country) {
      // Only the country rules can be judged from a patch; the registry holds the other fields.
      for (const issue of entityTypeIssues(patch))
        if (issue.path[0] === 'country') ctx.addIssue({ code: 'custom', ...issue });
    }
  });
export type BrandUpdate = z.infer<typeof BrandUpdateSchema>;

/** `POST /brand/{id}/appeal`. */
export const AppealSchema = z.object({
  appealCategories: cappedArray(reqStr.max(LIMIT.idLength), LIMIT.appealCategories).min(
    1,
    'at least one appeal category',
  ),
  attachmentUuids: cappedArray(reqStr.max(LIMIT.idLength), LIMIT.attachmentUuids).default([]),
  explanation: reqStr.max(4000),
  evpId: reqStr.max(LIMIT.idLength).optional(),
  vettingId: reqStr.max(LIMIT.idLength).optional(),
});
export type Appeal = z.infer<typeof AppealSchema>;
export type AppealInput = z.input<typeof AppealSchema>;

/**
 * `POST /brand/{id}/externalVetting`: order a new vet. "Political vets need an additional payload: not
 * shown": `politicalPayload`, a JSON object for POLITICAL orders only, whose members the client sends
 * in the body beside `evpId` and `vettingClass` (which it may not redefine).
 */
export const VetOrderSchema = z
  .object({
    evpId: reqStr.max(LIMIT.idLength),
    vettingClass: VettingClassSchema,
    politicalPayload: z.record(z.string(), z.json()).optional(),
  })
  .superRefine((order, ctx) => {
    const payload = order.politicalPayload;
    if (payload === undefined) return;
    if (order.vettingClass !== 'POLITICAL')
      ctx.addIssue({
        code: 'custom',
        path: ['politicalPayload'],
        message: 'only a POLITICAL vet order takes a payload',
      });
    const clash = ['evpId', 'vettingClass'].filter((key) => Object.hasOwn(payload, key));
    if (clash.length > 0)
      ctx.addIssue({
        code: 'custom',
        path: ['politicalPayload'],
        message: `may not redefine ${clash.join(', ')}`,
      });
    if (JSON.stringify(payload).length > LIMIT.politicalPayloadChars)
      ctx.addIssue({
        code: 'custom',
        path: ['politicalPayload'],
        message: `at most ${LIMIT.politicalPayloadChars} characters as JSON`,
      });
  });
export type VetOrder = z.infer<typeof VetOrderSchema>;

/** `PUT /brand/{id}/externalVetting`: import an existing vet. */
export const VetImportSchema = z.object({
  evpId: reqStr.max(LIMIT.idLength),
  vettingId: reqStr.max(LIMIT.idLength),
  vettingToken: reqStr.max(LIMIT.vettingToken).optional(),
});
export type VetImport = z.infer<typeof VetImportSchema>;

/**
 * An operator's vet import: the registry's body plus the class the operator declares, if any. The
 * class is not sent (the spec's import body has none); the workflow checks it against the provider's
 * classes and refuses a Political import for a 501(c)(3-6) non-profit.
 */
export const VetImportRequestSchema = VetImportSchema.extend({ vettingClass: VettingClassSchema.optional() });

const campaignContentFields = {
  subUsecases: cappedArray(shortStr, LIMIT.subUsecases).default([]),
  resellerId: shortStr.optional(),
  description: reqStr.max(4096),
  embeddedLink: z.boolean().optional(),
  embeddedPhone: z.boolean().optional(),
  termsAndConditions: z.boolean().optional(),
  numberPool: z.boolean().optional(),
  ageGated: z.boolean().optional(),
  directLending: z.boolean().optional(),
  subscriberOptin: z.boolean().optional(),
  subscriberOptout: z.boolean().optional(),
  subscriberHelp: z.boolean().optional(),
  sample1: reqStr.max(1024).optional(),
  sample2: reqStr.max(1024).optional(),
  sample3: reqStr.max(1024).optional(),
  sample4: reqStr.max(1024).optional(),
  sample5: reqStr.max(1024).optional(),
  messageFlow: reqStr.max(4096).optional(),
  helpMessage: messageStr.optional(),
  optinMessage: messageStr.optional(),
  optoutMessage: messageStr.optional(),
  optinKeywords: shortStr.optional(),
  optoutKeywords: shortStr.optional(),
  helpKeywords: shortStr.optional(),
  privacyPolicyLink: url.optional(),
  termsAndConditionsLink: url.optional(),
  embeddedLinkSample: z.string().max(MESSAGE_TEXT_MAX).optional(),
  mnoIDs: cappedArray(z.number().int(), LIMIT.mnoIDs).optional(),
  autoRenewal: z.boolean().optional(),
  tag: cappedArray(z.string().max(LIMIT.tagLength), LIMIT.tag).optional(),
};

/** A campaign creation order (`POST /campaignBuilder`) with the CSP's `referenceId`. */
export const CampaignCreationSchema = z.object({
  referenceId: ReferenceIdSchema,
  brandId: shortStr,
  usecase: shortStr,
  ...campaignContentFields,
});
export type CampaignCreation = z.infer<typeof CampaignCreationSchema>;
export type CampaignCreationInput = z.input<typeof CampaignCreationSchema>;

/** `PUT /campaign/{id}`: any subset of campaign fields. */
export const CampaignUpdateSchema = z
  .object({ ...campaignContentFields, subUsecases: cappedArray(shortStr, LIMIT.subUsecases) })
  .partial()
  .refine((patch) => Object.keys(patch).length > 0, { message: 'an update needs at least one field' });
export type CampaignUpdate = z.infer<typeof CampaignUpdateSchema>;

export const WebhookSubscriptionRequestSchema = z.object({
  eventCategory: reqStr,
  webhookEndpoint: z.url(),
});
export type WebhookSubscriptionRequest = z.infer<typeof WebhookSubscriptionRequestSchema>;

/** Checks optional attribute values against `GET /enum/optionalAttributeNames` (types and the 512 limit). */
export function optionalAttributeIssues(
  values: Record<string, unknown>,
  names: OptionalAttributeName[],
): { path: string[]; message: string }[] {
  const issues: { path: string[]; message: string }[] = [];
  const byId = new Map(names.map((n) => [n.id, n]));
  for (const [key, value] of Object.entries(values)) {
    const path = ['optionalAttributes', key];
    const def = byId.get(key);
    if (!def) {
      issues.push({ path, message: `unknown optional attribute ${key}` });
      continue;
    }
    switch (def.dataType) {
      case 'STRING':
        if (typeof value !== 'string') issues.push({ path, message: `${key} must be a string` });
        else if (value.length > OPTIONAL_ATTRIBUTE_STRING_MAX)
          issues.push({ path, message: `${key} holds at most ${OPTIONAL_ATTRIBUTE_STRING_MAX} characters` });
        break;
      case 'INTEGER':
        if (typeof value !== 'number' || !Number.isInteger(value))
          issues.push({ path, message: `${key} must be an integer` });
        break;
      case 'DECIMAL':
        if (typeof value !== 'number' || !Number.isFinite(value))
          issues.push({ path, message: `${key} must be a number` });
        break;
      case 'BOOLEAN':
        if (typeof value !== 'boolean') issues.push({ path, message: `${key} must be a boolean` });
        break;
      default:
        break;
    }
  }
  return issues;
}

// ---------------------------------------------------------------------------------------------------
// Query filters
// ---------------------------------------------------------------------------------------------------

export interface PageQuery {
  page?: number;
  recordsPerPage?: number;
}
export interface BrandQuery extends PageQuery {
  entityType?: EntityType;
  identityStatus?: string;
  status?: string;
  state?: string;
  country?: string;
  mock?: boolean;
  referenceId?: string;
}
export interface CampaignQuery extends PageQuery {
  brandId?: string;
  referenceId?: string;
}
export interface DcaFilter {
  soleProprietorEnabled?: boolean;
  cnpMigrationSupported?: boolean;
}
export interface UseCaseFilter {
  validSubUsecase?: boolean;
}
