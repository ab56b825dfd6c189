/**
 * The typed registry API client: one method per endpoint of the spec (all under `/v2`) plus the
 * webhook subscription calls the simulator offers. Requests are validated before they are sent,
 * responses are parsed with the loose schemas of ./schemas.ts, failures become the typed errors of
 * ./errors.ts. Writes are rate limited per account (./rate-limiter.ts); brand registration and campaign
 * creation are idempotent by the CSP's `referenceId` (look up before create, and again after an
 * ambiguous failure). See docs/registry-client.md.
 */
import { createHash } from 'node:crypto';
import { inspect } from 'node:util';
import { type Dispatcher, Pool } from 'undici';
import { z } from 'zod';
import { checkBaseUrl, type RegistryEnvironment } from './environments.js';
import {
  type HttpMethod,
  RegistryAbortedError,
  RegistryError,
  RegistryInternalError,
  RegistryRequestInvalidError,
  RegistryResponseInvalidError,
  RegistryValidationError,
} from './errors.js';
import { DEFAULT_RATE_LIMITS, type RateLimitConfig, rateLimiterFor, rateLimiterKey } from './rate-limiter.js';
import {
  type AppealCategory,
  AppealCategorySchema,
  type AppealInput,
  AppealSchema,
  type Brand,
  type BrandAppealCategory,
  BrandAppealCategorySchema,
  BrandPageSchema,
  type BrandQuery,
  type BrandRegistrationInput,
  BrandRegistrationSchema,
  BrandSchema,
  type BrandUpdate,
  BrandUpdateSchema,
  type Campaign,
  type CampaignBuilderBrand,
  CampaignBuilderBrandSchema,
  type CampaignBuilderUseCase,
  CampaignBuilderUseCaseSchema,
  CampaignCreatedSchema,
  type CampaignCreationInput,
  CampaignCreationSchema,
  CampaignPageSchema,
  type CampaignQuery,
  CampaignSchema,
  type CampaignSharing,
  CampaignSharingSchema,
  type CampaignUpdate,
  CampaignUpdateSchema,
  type ConnectivityPartner,
  ConnectivityPartnerSchema,
  type Dca,
  type DcaFilter,
  DcaSchema,
  type ExternalVet,
  ExternalVetSchema,
  type Mno,
  type MnoMetadata,
  MnoSchema,
  type OptionalAttributeName,
  OptionalAttributeNameSchema,
  type Page,
  type SharingRecord,
  SharingRecordSchema,
  StringListSchema,
  subUsecaseIssues,
  type UseCaseFilter,
  type UseCaseMap,
  UseCaseMapSchema,
  type UsStateMap,
  UsStateMapSchema,
  type VerticalMap,
  VerticalMapSchema,
  type VetImport,
  VetImportSchema,
  type VetOrder,
  VetOrderSchema,
  type VettingClassRecord,
  VettingClassRecordSchema,
  type VettingProvider,
  VettingProviderSchema,
  type WebhookSubscription,
  type WebhookSubscriptionRequest,
  WebhookSubscriptionRequestSchema,
  WebhookSubscriptionSchema,
} from './schemas.js';
import { RegistryTransport, type SendOptions, zodIssues } from './transport.js';

export type { RegistryEnvironment } from './environments.js';
export type { RateLimitConfig } from './rate-limiter.js';
export { parseRegistryErrorBody, zodIssues } from './transport.js';

export interface RegistryClientOptions {
  environment: RegistryEnvironment;
  /** Base URL without `/v2` (a trailing `/v2` is tolerated). */
  baseUrl: string;
  apiKey: string;
  apiSecret: string;
  /** Per-request timeout (headers and body), default 30 000 ms. */
  timeoutMs?: number;
  /** Client-side limits for this account; default the spec's 20 GET/s and 20 writes/10 s. `false` = off. */
  rateLimits?: RateLimitConfig | false;
  /** Extra hosts allowed for a remote environment (besides `configureEnvironmentHosts`). */
  allowedHosts?: string[];
  /** How often a request answered 429 is retried before RateLimitedError reaches the caller; default 8. */
  maxRateLimitRetries?: number;
  /** Create attempts of registerBrand / createCampaign when a create's outcome is unknown; default 3. */
  createAttempts?: number;
  /** Page size used by the paging iterators and reference lookups; default 100. */
  pageSize?: number;
  /** An undici dispatcher to use instead of the client's own keep-alive pool (tests: MockAgent). */
  dispatcher?: Dispatcher;
}

export interface CallOptions {
  signal?: AbortSignal;
}

export type RegisteredBrand = Brand & { alreadyExisted: boolean };

export interface CreatedCampaign {
  campaignId: string;
  /** Per-MNO qualification as returned by the create. Empty when the campaign already existed. */
  mnoMetadata: Record<string, MnoMetadata>;
  alreadyExisted: boolean;
}

/**
 * The webhook event categories a deployment subscribes to (the simulator's; the spec leaves the list
 * out, docs/simulator.md lists the event types of each).
 */
export const WEBHOOK_EVENT_CATEGORIES = ['BRAND', 'VETTING', 'CAMPAIGN', 'CAMPAIGN_SHARING'] as const;

/** What one cheap authenticated read says about an account. */
export interface AccessCheck {
  /** The registry's clock (its `Date` header), when it sent one. */
  registryDate?: Date;
  /** Our clock when the response arrived. */
  localDate: Date;
}

function checked<S extends z.ZodType>(operation: string, schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (!result.success) throw new RegistryRequestInvalidError(operation, zodIssues(result.error));
  return result.data;
}

function segment(value: string, name: string): string {
  if (typeof value !== 'string' || value.length === 0)
    throw new RegistryRequestInvalidError(name, [{ path: name, message: `${name} is required` }]);
  return encodeURIComponent(value);
}

export class RegistryClient {
  readonly environment: RegistryEnvironment;
  /** Base URL without `/v2`. */
  readonly baseUrl: string;
  readonly timeoutMs: number;
  readonly #http: RegistryTransport;
  readonly #dispatcher: Dispatcher;
  readonly #ownsDispatcher: boolean;
  readonly #createAttempts: number;
  readonly #pageSize: number;

  constructor(options: RegistryClientOptions) {
    const checkedUrl = checkBaseUrl(options.environment, options.baseUrl, options.allowedHosts);
    if (!options.apiKey || !options.apiSecret)
      throw new RegistryRequestInvalidError('RegistryClient', [
        { path: options.apiKey ? 'apiSecret' : 'apiKey', message: 'registry credentials are required' },
      ]);
    this.environment = options.environment;
    this.baseUrl = checkedUrl.baseUrl;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.#ownsDispatcher = options.dispatcher === undefined;
    this.#dispatcher =
      options.dispatcher ??
      new Pool(checkedUrl.origin, {
        connections: 16,
        keepAliveTimeout: 30_000,
        keepAliveMaxTimeout: 120_000,
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
      });
    this.#http = new RegistryTransport({
      origin: checkedUrl.origin,
      basePath: checkedUrl.basePath,
      authorization: `Basic ${Buffer.from(`${options.apiKey}:${options.apiSecret}`).toString('base64')}`,
      dispatcher: this.#dispatcher,
      limiter:
        options.rateLimits === false
          ? undefined
          : rateLimiterFor(
              rateLimiterKey(options.environment, this.baseUrl, options.apiKey),
              options.rateLimits ?? DEFAULT_RATE_LIMITS,
            ),
      timeoutMs: this.timeoutMs,
      maxRateLimitRetries: options.maxRateLimitRetries ?? 8,
    });
    this.#createAttempts = Math.max(1, options.createAttempts ?? 3);
    this.#pageSize = options.pageSize ?? 100;
  }

  /** Closes the client's own connection pool (not a dispatcher passed in). */
  async close(): Promise<void> {
    if (this.#ownsDispatcher) await this.#dispatcher.close();
  }

  [inspect.custom](): string {
    return `RegistryClient { environment: '${this.environment}', baseUrl: '${this.baseUrl}' }`;
  }

  toJSON(): { environment: RegistryEnvironment; baseUrl: string } {
    return { environment: this.environment, baseUrl: this.baseUrl };
  }

  // ---------------------------------------------------------------------------------------------
  // Reference lists
  // ---------------------------------------------------------------------------------------------

  listDcas(filter: DcaFilter = {}, opts: CallOptions = {}): Promise<Dca[]> {
    return this.get('/enum/dca', DcaSchema.array(), { ...filter }, opts);
  }
  listMnos(opts: CallOptions = {}): Promise<Mno[]> {
    return this.get('/enum/mno', MnoSchema.array(), undefined, opts);
  }
  listOptionalAttributeNames(opts: CallOptions = {}): Promise<OptionalAttributeName[]> {
    return this.get('/enum/optionalAttributeNames', OptionalAttributeNameSchema.array(), undefined, opts);
  }
  listUseCases(filter: UseCaseFilter = {}, opts: CallOptions = {}): Promise<UseCaseMap> {
    return this.get('/enum/usecase', UseCaseMapSchema, { ...filter }, opts);
  }
  listVerticals(opts: CallOptions = {}): Promise<VerticalMap> {
    return this.get('/enum/vertical', VerticalMapSchema, undefined, opts);
  }
  listAltBusinessIdTypes(opts: CallOptions = {}): Promise<string[]> {
    return this.get('/enum/altBusinessIdType', StringListSchema, undefined, opts);
  }
  listBrandIdentityStatuses(opts: CallOptions = {}): Promise<string[]> {
    return this.get('/enum/brandIdentityStatus', StringListSchema, undefined, opts);
  }
  listBrandRelationships(opts: CallOptions = {}): Promise<string[]> {
    return this.get('/enum/brandRelationship', StringListSchema, undefined, opts);
  }
  listCampaignStatuses(opts: CallOptions = {}): Promise<string[]> {
    return this.get('/enum/campaignStatus', StringListSchema, undefined, opts);
  }
  listEntityTypes(opts: CallOptions = {}): Promise<string[]> {
    return this.get('/enum/entityType', StringListSchema, undefined, opts);
  }
  listVettingProviders(opts: CallOptions = {}): Promise<VettingProvider[]> {
    return this.get('/enum/extVettingProvider', VettingProviderSchema.array(), undefined, opts);
  }
  listVettingStatuses(opts: CallOptions = {}): Promise<string[]> {
    return this.get('/enum/vettingStatus', StringListSchema, undefined, opts);
  }
  listUsStates(opts: CallOptions = {}): Promise<UsStateMap> {
    return this.get('/enum/usState', UsStateMapSchema, undefined, opts);
  }
  listAssetAppealCategories(opts: CallOptions = {}): Promise<AppealCategory[]> {
    return this.get('/enum/assetAppealCategory', AppealCategorySchema.array(), undefined, opts);
  }
  listBrandAppealCategories(opts: CallOptions = {}): Promise<BrandAppealCategory[]> {
    return this.get('/enum/brandAppealCategory', BrandAppealCategorySchema.array(), undefined, opts);
  }
  listConnectivityPartners(opts: CallOptions = {}): Promise<ConnectivityPartner[]> {
    return this.get('/enum/cnp', ConnectivityPartnerSchema.array(), undefined, opts);
  }
  listVettingClasses(opts: CallOptions = {}): Promise<VettingClassRecord[]> {
    return this.get('/enum/vettingClass', VettingClassRecordSchema.array(), undefined, opts);
  }

  // ---------------------------------------------------------------------------------------------
  // Brands
  // ---------------------------------------------------------------------------------------------

  /**
   * `POST /brand/nonBlocking`, idempotent by `referenceId`: returns the existing brand with that
   * reference (`alreadyExisted: true`) instead of registering a second one, and after an ambiguous
   * failure (timeout, 5xx, connection lost after sending) looks up again before retrying.
   */
  async registerBrand(input: BrandRegistrationInput, opts: CallOptions = {}): Promise<RegisteredBrand> {
    const brand = checked('registerBrand', BrandRegistrationSchema, input);
    return this.createOnce(
      () => this.findBrandByReference(brand.referenceId, opts),
      async () =>
        this.send('POST', '/brand/nonBlocking', {
          body: brand,
          schema: BrandSchema,
          signal: opts.signal,
          idempotentByReference: true,
        }),
      (existing): RegisteredBrand => ({ ...existing, alreadyExisted: true }),
      (created): RegisteredBrand => ({ ...created, alreadyExisted: false }),
    );
  }

  /** The brand registered with this `referenceId`, if any (see docs: server filter, client-side fallback). */
  async findBrandByReference(referenceId: string, opts: CallOptions = {}): Promise<Brand | undefined> {
    return this.findByReference(
      referenceId,
      (query) => this.listBrands(query, opts),
      (query) => this.brands(query, opts),
    );
  }

  listBrands(query: BrandQuery = {}, opts: CallOptions = {}): Promise<Page<Brand>> {
    return this.get('/brand', BrandPageSchema, { ...query }, opts);
  }

  /** Every brand matching the filters, page by page (starting at `query.page`, default 1). */
  brands(query: BrandQuery = {}, opts: CallOptions = {}): AsyncGenerator<Brand> {
    return this.paginate((page) => this.listBrands(page, opts), query);
  }

  getBrand(brandId: string, opts: CallOptions = {}): Promise<Brand> {
    return this.get(`/brand/${segment(brandId, 'brandId')}`, BrandSchema, undefined, opts);
  }

  updateBrand(brandId: string, patch: BrandUpdate, opts: CallOptions = {}): Promise<Brand> {
    const body = checked('updateBrand', BrandUpdateSchema, patch);
    return this.send('PUT', `/brand/${segment(brandId, 'brandId')}`, {
      body,
      schema: BrandSchema,
      signal: opts.signal,
    });
  }

  revetBrand(brandId: string, opts: CallOptions = {}): Promise<Brand> {
    return this.send('PUT', `/brand/${segment(brandId, 'brandId')}/revet`, {
      schema: BrandSchema,
      signal: opts.signal,
    });
  }

  async appealBrand(brandId: string, appeal: AppealInput, opts: CallOptions = {}): Promise<void> {
    const body = checked('appealBrand', AppealSchema, appeal);
    await this.send('POST', `/brand/${segment(brandId, 'brandId')}/appeal`, {
      body,
      schema: undefined,
      signal: opts.signal,
    });
  }

  /** `POST /brand/{id}/externalVetting`: order a new vet (billed by some providers; not retried on ambiguity). */
  orderExternalVet(brandId: string, order: VetOrder, opts: CallOptions = {}): Promise<ExternalVet> {
    const body = checked('orderExternalVet', VetOrderSchema, order);
    return this.send('POST', `/brand/${segment(brandId, 'brandId')}/externalVetting`, {
      body,
      schema: ExternalVetSchema,
      signal: opts.signal,
    });
  }

  /** `PUT /brand/{id}/externalVetting`: import an existing vet. */
  importExternalVet(brandId: string, vet: VetImport, opts: CallOptions = {}): Promise<ExternalVet> {
    const body = checked('importExternalVet', VetImportSchema, vet);
    return this.send('PUT', `/brand/${segment(brandId, 'brandId')}/externalVetting`, {
      body,
      schema: ExternalVetSchema,
      signal: opts.signal,
    });
  }

  /** `GET /brand/{id}/externalVetting` (shape not in the spec): an array, or a single record, or `{records}`. */
  async listExternalVets(brandId: string, opts: CallOptions = {}): Promise<ExternalVet[]> {
    const raw = await this.get(
      `/brand/${segment(brandId, 'brandId')}/externalVetting`,
      z.unknown(),
      undefined,
      opts,
    );
    const list = Array.isArray(raw)
      ? raw
      : raw && typeof raw === 'object' && Array.isArray((raw as { records?: unknown }).records)
        ? (raw as { records: unknown[] }).records
        : raw == null
          ? []
          : [raw];
    const parsed = ExternalVetSchema.array().safeParse(list);
    if (!parsed.success)
      throw new RegistryResponseInvalidError(zodIssues(parsed.error), {
        method: 'GET',
        path: `/v2/brand/${brandId}/externalVetting`,
      });
    return parsed.data;
  }

  // ---------------------------------------------------------------------------------------------
  // Campaigns
  // ---------------------------------------------------------------------------------------------

  getCampaignBuilderBrand(brandId: string, opts: CallOptions = {}): Promise<CampaignBuilderBrand> {
    return this.get(
      `/campaignBuilder/brand/${segment(brandId, 'brandId')}`,
      CampaignBuilderBrandSchema,
      undefined,
      opts,
    );
  }

  getCampaignBuilderUseCase(
    brandId: string,
    usecase: string,
    opts: CallOptions = {},
  ): Promise<CampaignBuilderUseCase> {
    return this.get(
      `/campaignBuilder/brand/${segment(brandId, 'brandId')}/usecase/${segment(usecase, 'usecase')}`,
      CampaignBuilderUseCaseSchema,
      undefined,
      opts,
    );
  }

  /**
   * `POST /campaignBuilder`, idempotent by `referenceId` (campaign creation is billed). With
   * `useCases` (from `listUseCases()`), the sub-use-case count is checked before sending.
   */
  async createCampaign(
    input: CampaignCreationInput,
    opts: CallOptions & { useCases?: UseCaseMap } = {},
  ): Promise<CreatedCampaign> {
    const campaign = checked('createCampaign', CampaignCreationSchema, input);
    if (opts.useCases) {
      const issues = subUsecaseIssues(campaign, opts.useCases);
      if (issues.length > 0)
        throw new RegistryRequestInvalidError(
          'createCampaign',
          issues.map((i) => ({ path: i.path.join('.'), message: i.message })),
        );
    }
    return this.createOnce(
      () => this.findCampaignByReference(campaign.referenceId, opts),
      async () =>
        this.send('POST', '/campaignBuilder', {
          body: campaign,
          schema: CampaignCreatedSchema,
          signal: opts.signal,
          idempotentByReference: true,
        }),
      (existing): CreatedCampaign => ({
        campaignId: existing.campaignId,
        mnoMetadata: {},
        alreadyExisted: true,
      }),
      (created): CreatedCampaign => ({
        campaignId: created.campaignId,
        mnoMetadata: created.mnoMetadata,
        alreadyExisted: false,
      }),
    );
  }

  async findCampaignByReference(referenceId: string, opts: CallOptions = {}): Promise<Campaign | undefined> {
    return this.findByReference(
      referenceId,
      (query) => this.listCampaigns(query, opts),
      (query) => this.campaigns(query, opts),
    );
  }

  listCampaigns(query: CampaignQuery = {}, opts: CallOptions = {}): Promise<Page<Campaign>> {
    return this.get('/campaign', CampaignPageSchema, { ...query }, opts);
  }

  campaigns(query: CampaignQuery = {}, opts: CallOptions = {}): AsyncGenerator<Campaign> {
    return this.paginate((page) => this.listCampaigns(page, opts), query);
  }

  getCampaign(campaignId: string, opts: CallOptions = {}): Promise<Campaign> {
    return this.get(`/campaign/${segment(campaignId, 'campaignId')}`, CampaignSchema, undefined, opts);
  }

  updateCampaign(campaignId: string, patch: CampaignUpdate, opts: CallOptions = {}): Promise<Campaign> {
    const body = checked('updateCampaign', CampaignUpdateSchema, patch);
    return this.send('PUT', `/campaign/${segment(campaignId, 'campaignId')}`, {
      body,
      schema: CampaignSchema,
      signal: opts.signal,
    });
  }

  shareCampaign(campaignId: string, upstreamCnpId: string, opts: CallOptions = {}): Promise<SharingRecord> {
    return this.send(
      'PUT',
      `/campaign/${segment(campaignId, 'campaignId')}/sharing/${segment(upstreamCnpId, 'upstreamCnpId')}`,
      { schema: SharingRecordSchema, signal: opts.signal },
    );
  }

  getCampaignSharing(campaignId: string, opts: CallOptions = {}): Promise<CampaignSharing> {
    return this.get(
      `/campaign/${segment(campaignId, 'campaignId')}/sharing`,
      CampaignSharingSchema,
      undefined,
      opts,
    );
  }

  /**
   * One cheap authenticated read (`GET /enum/mno`): resolves when the credentials work, and reports
   * the registry's clock; UnauthorizedError when they do not.
   */
  async checkAccess(opts: CallOptions = {}): Promise<AccessCheck> {
    let date: string | undefined;
    await this.send('GET', '/enum/mno', {
      schema: undefined,
      signal: opts.signal,
      onHeaders: (headers) => {
        const value = headers.date;
        date = Array.isArray(value) ? value[0] : value;
      },
    });
    const localDate = new Date();
    const parsed = date ? Date.parse(date) : Number.NaN;
    return Number.isFinite(parsed) ? { registryDate: new Date(parsed), localDate } : { localDate };
  }

  // ---------------------------------------------------------------------------------------------
  // Webhook subscriptions (not in the spec; as the simulator offers them)
  // ---------------------------------------------------------------------------------------------

  putWebhookSubscription(
    subscription: WebhookSubscriptionRequest,
    opts: CallOptions = {},
  ): Promise<WebhookSubscription> {
    const body = checked('putWebhookSubscription', WebhookSubscriptionRequestSchema, subscription);
    return this.send('PUT', '/webhook/subscription', {
      body,
      schema: WebhookSubscriptionSchema,
      signal: opts.signal,
    });
  }

  listWebhookSubscriptions(opts: CallOptions = {}): Promise<WebhookSubscription[]> {
    return this.get('/webhook/subscription', WebhookSubscriptionSchema.array(), undefined, opts);
  }

  async deleteWebhookSubscription(eventCategory: string, opts: CallOptions = {}): Promise<void> {
    await this.send('DELETE', `/webhook/subscription/${segment(eventCategory, 'eventCategory')}`, {
      schema: undefined,
      signal: opts.signal,
    });
  }

  // ---------------------------------------------------------------------------------------------
  // Internals
  // ---------------------------------------------------------------------------------------------

  private async createOnce<E, C, R>(
    lookup: () => Promise<E | undefined>,
    create: () => Promise<C>,
    fromExisting: (existing: E) => R,
    fromCreated: (created: C) => R,
  ): Promise<R> {
    const before = await lookup();
    if (before !== undefined) return fromExisting(before);
    let lastError: unknown;
    for (let attempt = 1; attempt <= this.#createAttempts; attempt++) {
      try {
        return fromCreated(await create());
      } catch (err) {
        lastError = err;
        const ambiguous =
          err instanceof RegistryError && err.mayHaveCommitted && !(err instanceof RegistryAbortedError);
        // A 400 naming referenceId: the registry says the reference is taken (the simulator does this for campaigns).
        const duplicate =
          err instanceof RegistryValidationError &&
          !(err instanceof RegistryInternalError) &&
          err.fields.some((f) => f === 'referenceId' || f.endsWith('.referenceId'));
        if (!ambiguous && !duplicate) throw err;
        const after = await lookup();
        if (after !== undefined) return fromExisting(after);
        if (duplicate) throw err;
      }
    }
    throw lastError;
  }

  private async findByReference<T extends { referenceId?: string | null | undefined }>(
    referenceId: string,
    listFiltered: (query: { referenceId: string; recordsPerPage: number; page: number }) => Promise<Page<T>>,
    iterateAll: (query: { recordsPerPage: number }) => AsyncGenerator<T>,
  ): Promise<T | undefined> {
    if (typeof referenceId !== 'string' || referenceId.length === 0)
      throw new RegistryRequestInvalidError('findByReference', [
        { path: 'referenceId', message: 'referenceId is required' },
      ]);
    const page = await listFiltered({ referenceId, recordsPerPage: this.#pageSize, page: 1 });
    const filterHonoured = page.records.every((r) => r.referenceId === referenceId);
    if (filterHonoured) return page.records[0];
    // The server ignored the filter: match client-side over every page.
    for await (const record of iterateAll({ recordsPerPage: this.#pageSize })) {
      if (record.referenceId === referenceId) return record;
    }
    return undefined;
  }

  private async *paginate<T, Q extends { page?: number; recordsPerPage?: number }>(
    fetchPage: (query: Q) => Promise<Page<T>>,
    query: Q,
  ): AsyncGenerator<T> {
    const recordsPerPage = query.recordsPerPage ?? this.#pageSize;
    let page = query.page ?? 1;
    let seen = 0;
    for (;;) {
      const result = await fetchPage({ ...query, page, recordsPerPage });
      for (const record of result.records) yield record;
      seen += result.records.length;
      if (
        result.records.length === 0 ||
        result.records.length < recordsPerPage ||
        seen >= result.totalRecords
      )
        return;
      page += 1;
    }
  }

  private get<S extends z.ZodType | undefined>(
    path: string,
    schema: S,
    query: SendOptions<S>['query'],
    opts: CallOptions,
  ): Promise<S extends z.ZodType ? z.output<S> : unknown> {
    return this.#http.send('GET', path, { schema, query, signal: opts.signal });
  }

  private send<S extends z.ZodType | undefined>(
    method: HttpMethod,
    path: string,
    options: SendOptions<S>,
  ): Promise<S extends z.ZodType ? z.output<S> : unknown> {
    return this.#http.send(method, path, options);
  }
}

// -------------------------------------------------------------------------------------------------
// One client per account, reused
// -------------------------------------------------------------------------------------------------

export type RegistryAccountConfig = RegistryClientOptions;

const clients = new Map<string, RegistryClient>();

function clientKey(config: RegistryAccountConfig): string {
  const secretHash = createHash('sha256').update(`${config.apiKey}\u0000${config.apiSecret}`).digest('hex');
  return JSON.stringify([
    config.environment,
    config.baseUrl,
    secretHash,
    config.timeoutMs ?? null,
    config.rateLimits ?? null,
    config.allowedHosts ?? null,
  ]);
}

/** The process-wide client of an account (same configuration, same instance). */
export function registryClientFor(config: RegistryAccountConfig): RegistryClient {
  if (config.dispatcher) return new RegistryClient(config);
  const key = clientKey(config);
  let client = clients.get(key);
  if (!client) {
    client = new RegistryClient(config);
    clients.set(key, client);
  }
  return client;
}

/** Closes and forgets every cached client (shutdown, tests). */
export async function closeRegistryClients(): Promise<void> {
  const all = [...clients.values()];
  clients.clear();
  await Promise.all(all.map((c) => c.close()));
}
