/**
 * What the /v2 API answers, and which list filters it honours: the simulator's full answer by default,
 * and in strict mode (`startSimulator({ strict: true })`, `--strict`) only what the registry's spec
 * (spec/registry-api.md) documents. The field lists below are transcribed once from the spec's tables;
 * every record leaves the simulator through a `RegistryView`, so nothing else in the simulator knows
 * about strict mode. The simulator's behaviour (rules, scheduling, events, control API) is the same in
 * both modes. docs/simulator.md, "Beyond the spec, and what --strict does with it", lists the extras.
 */
import type { ApiError } from './errors.js';
import type { DcaDef } from './reference-data.js';
import type { BrandRecord, CampaignRecord, SharingRecord, VetRecord } from './state.js';

/** The spec's resource tables ("Resources and their fields"), field by field. */
export const SPEC_FIELDS = {
  /** The Brand table, plus `referenceId` (the spec's events carry a brand's `brandReferenceId`). */
  brand: [
    'brandId',
    'cspId',
    'entityType',
    'status',
    'identityStatus',
    'displayName',
    'companyName',
    'ein',
    'einIssuingCountry',
    'universalEin',
    'phone',
    'mobilePhone',
    'street',
    'city',
    'state',
    'postalCode',
    'country',
    'email',
    'website',
    'stockSymbol',
    'stockExchange',
    'brandRelationship',
    'vertical',
    'optionalAttributes',
    'mock',
    'createDate',
    'businessContactTitle',
    'businessContactFirstName',
    'businessContactLastName',
    'businessContactEmail',
    'businessContactEmailVerifiedDate',
    'altBusinessIdType',
    'referenceId',
  ],
  /** The Campaign table. `monthlyFee` is "present on single-campaign retrieval": see CAMPAIGN_LIST_FIELDS. */
  campaign: [
    'campaignId',
    'cspId',
    'resellerId',
    'brandId',
    'status',
    'createDate',
    'billedDate',
    'autoRenewal',
    'nextRenewalOrExpirationDate',
    'expirationDate',
    'vertical',
    'usecase',
    'subUsecases',
    'description',
    'embeddedLink',
    'embeddedPhone',
    'termsAndConditions',
    'numberPool',
    'ageGated',
    'directLending',
    'subscriberOptin',
    'subscriberOptout',
    'subscriberHelp',
    'sample1',
    'sample2',
    'sample3',
    'sample4',
    'sample5',
    'messageFlow',
    'helpMessage',
    'optinMessage',
    'optoutMessage',
    'optinKeywords',
    'optoutKeywords',
    'helpKeywords',
    'privacyPolicyLink',
    'termsAndConditionsLink',
    'embeddedLinkSample',
    'referenceId',
    'mock',
    'monthlyFee',
    'tag',
    'mnoIDs',
  ],
  /** `POST /campaignBuilder`'s answer. */
  campaignCreated: ['campaignId', 'mnoMetadata'],
  /** "Campaign MNO metadata (returned at creation, keyed by MNO id)". */
  mnoMetadata: [
    'minMsgSamples',
    'reqSubscriberHelp',
    'reqSubscriberOptout',
    'reqSubscriberOptin',
    'brandDailyCap',
    'mnoReview',
    'mnoSupport',
    'brandTier',
    'noEmbeddedLink',
    'noEmbeddedPhone',
    'qualify',
    'mno',
  ],
  /** The Campaign sharing record table. */
  sharing: [
    'downstreamCnpId',
    'upstreamCnpId',
    'sharingStatus',
    'explanation',
    'sharedDate',
    'statusDate',
    'cnpMigration',
  ],
  /** `GET /campaign/{id}/sharing`: "Object with `sharedByMe`"; its other members are not shown. */
  sharingAnswer: ['sharedByMe'],
  /** The External vetting record table. */
  vet: [
    'evpId',
    'vettingId',
    'vettingToken',
    'vettingScore',
    'vettingClass',
    'vettingStatus',
    'reasons',
    'vettingDetails',
    'vettedDate',
    'createDate',
  ],
  /** The page object of `GET /brand` and `GET /campaign`. */
  page: ['records', 'page', 'totalRecords'],
  /** The DCA reference record (`GET /enum/dca`). */
  dca: ['id', 'displayName', 'escalateEmail', 'dpaSigned', 'soleProprietorEnabled', 'dca2AutoAccept'],
  /** What strict mode answers for a supported use case (the builder's shape is "not shown"). */
  builderUseCase: ['usecase'],
} as const satisfies Record<string, readonly string[]>;

/** A campaign record in a list page or a `PUT` answer: the Campaign table without `monthlyFee`. */
export const CAMPAIGN_LIST_FIELDS = SPEC_FIELDS.campaign.filter((f) => f !== 'monthlyFee');

/** The query parameters the spec documents for each list. */
export const SPEC_FILTERS = {
  brand: ['entityType', 'identityStatus', 'status', 'state', 'country', 'mock', 'page', 'recordsPerPage'],
  campaign: ['brandId', 'page', 'recordsPerPage'],
} as const;

export interface Page<T> {
  page: number;
  totalRecords: number;
  records: T[];
}

/** One use case as the campaign builder sees it for a brand (the simulator's rich answer). */
export interface BuilderEntry {
  brandId: string;
  usecase: string;
  qualified: boolean;
  reasons: string[];
  [more: string]: unknown;
}

/** A builder entry and, when the brand cannot use the use case now, the error that says why. */
export interface BuilderCheck {
  entry: BuilderEntry;
  refusal?: ApiError;
}

/** How records leave the simulator through /v2. */
export interface RegistryView {
  brand(brand: BrandRecord): unknown;
  brandPage(page: Page<BrandRecord>): unknown;
  /** `GET /campaign/{id}`. */
  campaign(campaign: CampaignRecord): unknown;
  /** A campaign in a list page or a `PUT /campaign/{id}` answer. */
  campaignInList(campaign: CampaignRecord): unknown;
  campaignPage(page: Page<CampaignRecord>): unknown;
  campaignCreated(created: { campaignId: string; mnoMetadata: Record<string, unknown> }): unknown;
  sharing(record: SharingRecord): unknown;
  sharingAnswer(answer: { sharedByMe: SharingRecord | null; sharedWithMe: null }): unknown;
  vet(vet: VetRecord): unknown;
  vets(vets: VetRecord[]): unknown;
  dcas(dcas: DcaDef[]): unknown;
  /** `GET /campaignBuilder/brand/{id}`. */
  builderBrand(checks: BuilderCheck[]): unknown;
  /** `GET /campaignBuilder/brand/{id}/usecase/{usecase}`; may throw the refusal. */
  builderUseCase(check: BuilderCheck): unknown;
  /** The list query with only the filters this view honours. */
  listQuery(list: keyof typeof SPEC_FILTERS, query: URLSearchParams): URLSearchParams;
}

/** `record`'s own properties named in `fields`, in that order. */
export function pick(record: object, fields: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of fields)
    if (Object.hasOwn(record, field)) out[field] = (record as Record<string, unknown>)[field];
  return out;
}

/** The simulator's full answers: records as kept, every filter honoured. */
export const FULL_VIEW: RegistryView = {
  brand: (b) => b,
  brandPage: (p) => p,
  campaign: (c) => c,
  campaignInList: (c) => c,
  campaignPage: (p) => p,
  campaignCreated: (c) => c,
  sharing: (s) => s,
  sharingAnswer: (a) => a,
  vet: (v) => v,
  vets: (v) => v,
  dcas: (d) => d,
  builderBrand: (checks) => checks.map((c) => c.entry),
  builderUseCase: (check) => check.entry,
  listQuery: (_list, query) => query,
};

const strictCampaignInList = (c: CampaignRecord) => pick(c, CAMPAIGN_LIST_FIELDS);
const strictBrand = (b: BrandRecord) => pick(b, SPEC_FIELDS.brand);
const strictVet = (v: VetRecord) => pick(v, SPEC_FIELDS.vet);
const strictSharing = (s: SharingRecord) => pick(s, SPEC_FIELDS.sharing);

/** Only what the spec documents. */
export const STRICT_VIEW: RegistryView = {
  brand: strictBrand,
  brandPage: (p) => ({ records: p.records.map(strictBrand), page: p.page, totalRecords: p.totalRecords }),
  campaign: (c) => pick(c, SPEC_FIELDS.campaign),
  campaignInList: strictCampaignInList,
  campaignPage: (p) => ({
    records: p.records.map(strictCampaignInList),
    page: p.page,
    totalRecords: p.totalRecords,
  }),
  campaignCreated: (c) => ({
    campaignId: c.campaignId,
    mnoMetadata: Object.fromEntries(
      Object.entries(c.mnoMetadata).map(([id, m]) => [id, pick(m as object, SPEC_FIELDS.mnoMetadata)]),
    ),
  }),
  sharing: strictSharing,
  sharingAnswer: (a) => ({ sharedByMe: a.sharedByMe && strictSharing(a.sharedByMe) }),
  vet: strictVet,
  vets: (v) => v.map(strictVet),
  dcas: (d) => d.map((x) => pick(x, SPEC_FIELDS.dca)),
  builderBrand: (checks) => checks.filter((c) => !c.refusal).map((c) => ({ usecase: c.entry.usecase })),
  builderUseCase: (check) => {
    if (check.refusal) throw check.refusal;
    return { usecase: check.entry.usecase };
  },
  listQuery: (list, query) => {
    const documented: readonly string[] = SPEC_FILTERS[list];
    return new URLSearchParams([...query].filter(([name]) => documented.includes(name)));
  },
};

export function registryView(strict: boolean): RegistryView {
  return strict ? STRICT_VIEW : FULL_VIEW;
}
