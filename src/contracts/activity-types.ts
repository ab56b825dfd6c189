/**
 * The activity interface between workflows and the registry. Inputs name the CSP account (never its
 * credentials: workers hold those, per account); results are small records without secrets. These
 * records are what workflow history stores, so they carry only what workflows decide on.
 */
import type { BrandRegistration, BrandUpdate } from '../registry/schemas.js';

export interface AccountInput {
  /** CSP account name from worker configuration (TCR_ACCOUNTS[].name). */
  account: string;
}

export interface BrandInput extends AccountInput {
  brandId: string;
}

/** The part of a registry brand record the workflows decide on. */
export interface BrandSnapshot {
  brandId: string;
  referenceId?: string | null;
  entityType: string;
  /** 'ACTIVE' while the brand exists; anything else (e.g. 'DELETED') ends its workflow. */
  status: string;
  identityStatus: string;
  businessContactEmailVerifiedDate?: string | null;
  /**
   * When a sole proprietor's mobile phone passed its one-time-password check: the "further
   * verification" the spec requires of sole proprietors before campaigns. The spec names no field for
   * it; the simulator reports `mobilePhoneVerifiedDate` and the product reads that name.
   */
  mobilePhoneVerifiedDate?: string | null;
  optionalAttributes: Record<string, unknown>;
}

export interface VetRecord {
  evpId: string;
  vettingId?: string | null;
  vettingClass?: string | null;
  vettingStatus: string;
  vettingScore?: number | null;
  reasons?: string[] | null;
  vettedDate?: string | null;
  createDate?: string | null;
}

export interface AppealRequestBody {
  appealCategories: string[];
  attachmentUuids: string[];
  explanation: string;
  evpId?: string;
  vettingId?: string;
}

/** What the campaign builder says about a brand and a use case (`brandUseCaseSupport`). */
export interface UseCaseSupportAnswer {
  /** A 2xx whose JSON does not explicitly say no. */
  supported: boolean;
  /** The HTTP status that answered: 2xx, or the 4xx that means "not (yet)". */
  status: number;
  /** Why not, when the registry said (bounded). */
  reason?: string;
}

/** GETs: run on `registry-reads/{account}` (20 per second per account). */
export interface RegistryReadActivities {
  getBrand(input: BrandInput): Promise<BrandSnapshot>;
  listExternalVets(input: BrandInput): Promise<VetRecord[]>;
  /** The brand registered under this referenceId, or null (`GET /brand` list): confirms a 404. */
  findBrandByReference(input: AccountInput & { referenceId: string }): Promise<BrandSnapshot | null>;
  /** Campaigns of the brand whose status is ACTIVE (brand update group 1 needs none). */
  countActiveCampaigns(input: BrandInput): Promise<number>;
  /**
   * `GET /campaignBuilder/brand/{brandId}/usecase/{usecase}`, read safely (shape not shown): a 2xx not
   * explicitly saying no is supported; a 4xx (400, 404, 422 ...) is "not yet", returned; 429, 5xx and
   * network failures throw and are retried like other reads. A sole proprietor's readiness.
   */
  brandUseCaseSupport(input: BrandInput & { usecase: string }): Promise<UseCaseSupportAnswer>;
  /**
   * What the provider's `/enum/extVettingProvider` record says about ordering or importing a vet
   * (the worker's cached list: src/activities/reference-lists.ts). Asked before a vet costs money.
   */
  vettingProviderOffer: ReferenceListActivities['vettingProviderOffer'];
}

/**
 * Writes: run on `registry-writes/{account}`, and an operator's or a webhook's on
 * `registry-writes/{account}/interactive` (both paced by the account's write budget: 20 per 10 s).
 */
export interface RegistryWriteActivities {
  /** Idempotent by `registration.referenceId`: a retry after a timeout finds the brand it created. */
  registerBrand(input: AccountInput & { registration: BrandRegistration }): Promise<BrandSnapshot>;
  updateBrand(input: BrandInput & { patch: BrandUpdate }): Promise<BrandSnapshot>;
  revetBrand(input: BrandInput): Promise<BrandSnapshot>;
  appealBrand(input: BrandInput & { appeal: AppealRequestBody }): Promise<void>;
  /**
   * May be billed. On a retried attempt, or when the workflow asks (`adoptInProgress`: an earlier call
   * may have reached the registry), a vet of this provider and class still in progress is returned
   * instead of ordering another.
   */
  orderExternalVet(
    input: BrandInput & {
      evpId: string;
      vettingClass: string;
      adoptInProgress?: boolean;
      /** A POLITICAL order's additional payload (a JSON object), sent in the order's body. */
      politicalPayload?: Record<string, unknown>;
    },
  ): Promise<VetRecord>;
  importExternalVet(
    input: BrandInput & { evpId: string; vettingId: string; vettingToken?: string },
  ): Promise<VetRecord>;
}

export type RegistryActivities = RegistryReadActivities & RegistryWriteActivities;

/** What a vetting provider's `/enum/extVettingProvider` record says about ordering or importing a vet. */
export interface VettingProviderOffer {
  /** The provider is in the list. */
  known: boolean;
  /** The class is in its `vettingClasses`; 'unknown' when the record has no usable list (or no class asked). */
  classOffered: boolean | 'unknown';
  /** `newVet.supported` (order) or `importVet.supported` (import); 'unknown' when `vettingInstruction` does not say. */
  supported: boolean | 'unknown';
  /** A sentence for the operator: why refused, or what is unknown. */
  reason: string;
  /** When the list that answered was read from the registry (ISO 8601). */
  checkedAt: string;
  /** The provider's `vettingClasses`, when its record lists them. */
  vettingClasses?: string[];
}

/**
 * Reads of the registry's reference lists, cached per account in the worker process
 * (src/activities/reference-lists.ts). Run on `registry-reads/{account}` like the other GETs. (The
 * campaign's partner check is `checkUpstreamPartner`, src/contracts/campaign-activity-types.ts.)
 */
export interface ReferenceListActivities {
  vettingProviderOffer(
    input: AccountInput & { evpId: string; vettingClass?: string | null; kind: 'order' | 'import' },
  ): Promise<VettingProviderOffer>;
}

/**
 * ApplicationFailure types the activities throw. Workflows turn the non-retryable ones into an
 * operator action (needs-action with the registry's message) instead of failing.
 */
export const RegistryFailureTypes = {
  /** 400: the registry refused the request; details: RegistryFailureDetails. Non-retryable. */
  validation: 'RegistryValidation',
  /** 401: the worker's credentials for the account are wrong. Non-retryable. */
  unauthorized: 'RegistryUnauthorized',
  /** 404: no such record. Non-retryable. */
  notFound: 'RegistryNotFound',
  /** The request failed the client's own checks; nothing was sent. Non-retryable. */
  invalidRequest: 'RegistryInvalidRequest',
  /** 429: retried after the registry's delay (`nextRetryDelay`). */
  rateLimited: 'RegistryRateLimited',
  /** 5xx, 590, timeouts, network: retried with backoff. */
  transient: 'RegistryTransient',
  /** The worker has no configuration for the account named. Non-retryable. */
  unknownAccount: 'UnknownAccount',
  /** The account's configuration is unsafe or inconsistent (e.g. a refused base URL). Non-retryable. */
  configuration: 'RegistryConfiguration',
  /** The registry answered 2xx with a body that is not the spec's record. Retried within the window. */
  unparsable: 'RegistryUnparsable',
} as const;

export const nonRetryableRegistryFailureTypes: string[] = [
  RegistryFailureTypes.validation,
  RegistryFailureTypes.unauthorized,
  RegistryFailureTypes.notFound,
  RegistryFailureTypes.invalidRequest,
  RegistryFailureTypes.unknownAccount,
  RegistryFailureTypes.configuration,
];

/** `details[0]` of a non-retryable registry failure. */
export interface RegistryFailureDetails {
  status?: number;
  errors: { code?: number | string; description: string; fields: string[] }[];
}
