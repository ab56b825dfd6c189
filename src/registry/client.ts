/**
 * The typed registry API client: one method per endpoint of the spec (all under `/v2`) plus the
 * webhook subscription calls the simulator offers. Requests are validated before they are sent,
 * responses are parsed with the loose schemas of ./schemas.ts, failures become the typed errors of
 * ./errors.ts. Writes are rate limited per account (./rate-limiter.ts); brand registration and campaign
 * creation are idempotent by the CSP's `referenceId` (look up before create, and again after an
 * ambiguous failure). See docs/registry-client.md.
 */
import { createHash } from 'node:crypto';
import { RegistryBrandEndpoints } from './brand-endpoints.js';
import { type CallOptions, checked, type RegistryClientOptions, segment } from './client-core.js';
import { RegistryRequestInvalidError } from './errors.js';
import {
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
  type MnoMetadata,
  type Page,
  type SharingRecord,
  SharingRecordSchema,
  subUsecaseIssues,
  type UseCaseMap,
  type WebhookSubscription,
  type WebhookSubscriptionRequest,
  WebhookSubscriptionRequestSchema,
  WebhookSubscriptionSchema,
} from './schemas.js';

export type { RegisteredBrand } from './brand-endpoints.js';
export type { CallOptions, RegistryClientOptions } from './client-core.js';
export type { RegistryEnvironment } from './environments.js';
export type { RateLimitConfig } from './rate-limiter.js';
export { parseRegistryErrorBody, zodIssues } from './transport.js';

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

/**
 * One method per endpoint. Built in layers, one endpoint family a file: the core (./client-core.ts:
 * transport, create-once, paging) → reference lists (./reference-endpoints.ts) → brands and vetting
 * (./brand-endpoints.ts) → campaigns, the access check and webhook subscriptions (here).
 */
export class RegistryClient extends RegistryBrandEndpoints {
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
      () =>
        this.findCampaignByReference(campaign.referenceId, {
          signal: opts.signal,
          brandId: campaign.brandId,
        }),
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

  /**
   * The campaign created with this `referenceId`, if any (server filter, client-side fallback over
   * every page). With `brandId` (a create knows its brand) the scan asks for that brand's campaigns
   * only: `brandId` is a filter the spec documents for `GET /campaign`.
   */
  async findCampaignByReference(
    referenceId: string,
    opts: CallOptions & { brandId?: string } = {},
  ): Promise<Campaign | undefined> {
    const { brandId, ...call } = opts;
    return this.findByReference(referenceId, (query) =>
      this.listCampaigns(brandId ? { ...query, brandId } : query, call),
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
}

// -------------------------------------------------------------------------------------------------
// One client per account, reused
// -------------------------------------------------------------------------------------------------

export type RegistryAccountConfig = RegistryClientOptions;

const clients = new Map<string, RegistryClient>();

function clientKey(config: RegistryAccountConfig): string {
  const secretHash = createHash('sha256').update(`${config.apiKey}\u0000${config.apiSecret}`).digest('hex');
  return JSON.stringify([
    config.account ?? null,
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
