import { z } from 'zod';
import { appealBrand, listBrands, registerBrand, revetBrand, updateBrand } from './brands.js';
import {
  builderBrand,
  builderUseCase,
  createCampaign,
  findCampaign,
  listCampaigns,
  updateCampaign,
} from './campaigns.js';
import type { SimContext, SimulatorAccount } from './context.js';
import { badRequest, ErrorCode, notFound } from './errors.js';
import { EVENT_CATEGORIES, isEventCategory } from './events.js';
import { type Route, route } from './http.js';
import { findBrand, parse } from './records.js';
import * as ref from './reference-data.js';
import { getSharing, shareCampaign } from './sharing.js';
import { type RegistryView, registryView } from './strict.js';
import { importVet, listVets, orderVet } from './vetting.js';
import { newWebhookSecret } from './webhooks.js';

type R = Route<SimulatorAccount>;

const ok = (body: unknown) => ({ status: 200, body });

function boolQuery(query: URLSearchParams, name: string): boolean | undefined {
  const value = query.get(name);
  if (value === null || value === '') return undefined;
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw badRequest(ErrorCode.VALIDATION, `${name}: must be true or false`, [name]);
}

const SubscriptionSchema = z.object({
  eventCategory: z.string().refine(isEventCategory, {
    message: `must be one of ${Object.keys(EVENT_CATEGORIES).join(', ')}`,
  }),
  webhookEndpoint: z.url().refine((u) => /^https?:\/\//.test(u), { message: 'must be an http(s) URL' }),
});

function referenceRoutes(view: RegistryView): R[] {
  return [
    route('GET', '/v2/enum/dca', (req) => {
      const sole = boolQuery(req.query, 'soleProprietorEnabled');
      const migration = boolQuery(req.query, 'cnpMigrationSupported');
      return ok(
        view.dcas(
          ref.DCAS.filter(
            (d) =>
              (sole === undefined || d.soleProprietorEnabled === sole) &&
              (migration === undefined || d.cnpMigrationSupported === migration),
          ),
        ),
      );
    }),
    route('GET', '/v2/enum/mno', () => ok(ref.MNOS)),
    route('GET', '/v2/enum/optionalAttributeNames', () => ok(ref.OPTIONAL_ATTRIBUTE_NAMES)),
    route('GET', '/v2/enum/usecase', (req) => {
      const valid = boolQuery(req.query, 'validSubUsecase');
      return ok(
        Object.fromEntries(
          Object.entries(ref.USE_CASES)
            .filter(([, u]) => valid === undefined || u.validSubUsecase === valid)
            .map(([id, { monthlyFee: _fee, ...u }]) => [id, u]),
        ),
      );
    }),
    route('GET', '/v2/enum/vertical', () => ok(ref.VERTICALS)),
    route('GET', '/v2/enum/altBusinessIdType', () => ok(ref.ALT_BUSINESS_ID_TYPES)),
    route('GET', '/v2/enum/brandIdentityStatus', () => ok(ref.BRAND_IDENTITY_STATUSES)),
    route('GET', '/v2/enum/brandRelationship', () => ok(ref.BRAND_RELATIONSHIPS)),
    route('GET', '/v2/enum/campaignStatus', () => ok(ref.CAMPAIGN_STATUSES)),
    route('GET', '/v2/enum/entityType', () => ok(ref.ENTITY_TYPES)),
    route('GET', '/v2/enum/extVettingProvider', () =>
      ok(ref.VETTING_PROVIDERS.map(({ orderable: _o, ...p }) => p)),
    ),
    route('GET', '/v2/enum/vettingStatus', () => ok(ref.VETTING_STATUSES)),
    route('GET', '/v2/enum/usState', () => ok(ref.US_STATES)),
    route('GET', '/v2/enum/assetAppealCategory', () => ok(ref.ASSET_APPEAL_CATEGORIES)),
    route('GET', '/v2/enum/brandAppealCategory', () => ok(ref.BRAND_APPEAL_CATEGORIES)),
    route('GET', '/v2/enum/cnp', () =>
      ok(ref.CNPS.map((c) => ({ cnpId: c.cnpId, displayName: c.displayName, dca: c.dca }))),
    ),
    route('GET', '/v2/enum/vettingClass', () => ok(ref.VETTING_CLASS_RECORDS)),
  ];
}

export function registryRoutes(ctx: SimContext): R[] {
  // Every record leaves through the view: the full answer, or in strict mode only the spec's fields.
  const view = registryView(ctx.api.strict);
  return [
    ...referenceRoutes(view),
    // Brands
    route('POST', '/v2/brand/nonBlocking', (req, a) => ok(view.brand(registerBrand(ctx, a.cspId, req.body)))),
    route('GET', '/v2/brand', (req, a) =>
      ok(view.brandPage(listBrands(ctx, a.cspId, view.listQuery('brand', req.query)))),
    ),
    route('GET', '/v2/brand/:brandId', (req, a) => ok(view.brand(findBrand(ctx, a.cspId, req.params[0]!)))),
    route('PUT', '/v2/brand/:brandId', (req, a) =>
      ok(view.brand(updateBrand(ctx, a.cspId, req.params[0]!, req.body))),
    ),
    route('PUT', '/v2/brand/:brandId/revet', (req, a) =>
      ok(view.brand(revetBrand(ctx, a.cspId, req.params[0]!))),
    ),
    route('POST', '/v2/brand/:brandId/appeal', (req, a) => {
      appealBrand(ctx, a.cspId, req.params[0]!, req.body);
      return { status: 204 };
    }),
    route('POST', '/v2/brand/:brandId/externalVetting', (req, a) =>
      ok(view.vet(orderVet(ctx, a.cspId, req.params[0]!, req.body))),
    ),
    route('PUT', '/v2/brand/:brandId/externalVetting', (req, a) =>
      ok(view.vet(importVet(ctx, a.cspId, req.params[0]!, req.body))),
    ),
    route('GET', '/v2/brand/:brandId/externalVetting', (req, a) =>
      ok(view.vets(listVets(ctx, a.cspId, req.params[0]!))),
    ),
    // Campaigns
    route('GET', '/v2/campaignBuilder/brand/:brandId', (req, a) =>
      ok(view.builderBrand(builderBrand(ctx, a.cspId, req.params[0]!))),
    ),
    route('GET', '/v2/campaignBuilder/brand/:brandId/usecase/:usecase', (req, a) =>
      ok(view.builderUseCase(builderUseCase(ctx, a.cspId, req.params[0]!, req.params[1]!))),
    ),
    route('POST', '/v2/campaignBuilder', (req, a) =>
      ok(view.campaignCreated(createCampaign(ctx, a.cspId, req.body))),
    ),
    route('GET', '/v2/campaign', (req, a) =>
      ok(view.campaignPage(listCampaigns(ctx, a.cspId, view.listQuery('campaign', req.query)))),
    ),
    route('GET', '/v2/campaign/:campaignId', (req, a) =>
      ok(view.campaign(findCampaign(ctx, a.cspId, req.params[0]!))),
    ),
    route('PUT', '/v2/campaign/:campaignId', (req, a) =>
      ok(view.campaignInList(updateCampaign(ctx, a.cspId, req.params[0]!, req.body))),
    ),
    route('PUT', '/v2/campaign/:campaignId/sharing/:upstreamCnpId', (req, a) =>
      ok(view.sharing(shareCampaign(ctx, a.cspId, req.params[0]!, req.params[1]!))),
    ),
    route('GET', '/v2/campaign/:campaignId/sharing', (req, a) =>
      ok(view.sharingAnswer(getSharing(ctx, a.cspId, req.params[0]!))),
    ),
    // Webhook subscriptions
    route('PUT', '/v2/webhook/subscription', (req, a) => {
      const input = parse(SubscriptionSchema, req.body);
      const account = ctx.store.account(a.cspId);
      const existing = account.subscriptions[input.eventCategory];
      const subscription = {
        eventCategory: input.eventCategory,
        webhookEndpoint: input.webhookEndpoint,
        secret: existing?.secret ?? account.webhookDefaults.secret ?? newWebhookSecret(),
        digestEncoding: existing?.digestEncoding ?? account.webhookDefaults.digestEncoding,
      };
      account.subscriptions[input.eventCategory] = subscription;
      ctx.store.changed();
      return ok({
        eventCategory: subscription.eventCategory,
        webhookEndpoint: subscription.webhookEndpoint,
        webhookSecret: subscription.secret,
      });
    }),
    route('GET', '/v2/webhook/subscription', (_req, a) =>
      ok(
        Object.values(ctx.store.account(a.cspId).subscriptions).map((s) => ({
          eventCategory: s.eventCategory,
          webhookEndpoint: s.webhookEndpoint,
        })),
      ),
    ),
    route('DELETE', '/v2/webhook/subscription/:eventCategory', (req, a) => {
      const account = ctx.store.account(a.cspId);
      const category = req.params[0]!;
      const existing = account.subscriptions[category];
      if (!existing) throw notFound('webhook subscription', category, 'eventCategory');
      delete account.subscriptions[category];
      ctx.store.changed();
      return ok({ eventCategory: existing.eventCategory, webhookEndpoint: existing.webhookEndpoint });
    }),
  ];
}
