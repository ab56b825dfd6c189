/**
 * Issue 33: the strict simulator (`startSimulator({ strict: true })`, `--strict`). Its /v2 API answers
 * only what the registry's spec documents: every record's keys are within the spec's table for its
 * resource, undocumented list filters are ignored, and the campaign builder (whose response shape the
 * spec does not show) answers a bare `{usecase}` or a 400. The field lists here are copied from
 * spec/registry-api.md as literals, not imported from src/simulator/strict.ts, so a wrong list there
 * fails here.
 */
import { afterEach, describe, expect, test } from 'vitest';
import {
  type Api,
  campaignBody,
  type Json,
  privateBrand,
  type ReceivedWebhook,
  soleBrand,
  startApi,
  startReceiver,
  until,
} from './helpers.js';

const SPEC = {
  brand: [
    ...['brandId', 'cspId', 'entityType', 'status', 'identityStatus', 'displayName', 'companyName', 'ein'],
    ...['einIssuingCountry', 'universalEin', 'phone', 'mobilePhone', 'street', 'city', 'state', 'postalCode'],
    ...['country', 'email', 'website', 'stockSymbol', 'stockExchange', 'brandRelationship', 'vertical'],
    ...['optionalAttributes', 'mock', 'createDate', 'businessContactTitle', 'businessContactFirstName'],
    ...['businessContactLastName', 'businessContactEmail', 'businessContactEmailVerifiedDate'],
    'altBusinessIdType',
    // Not in the Brand table; the spec's events imply it (brandReferenceId).
    'referenceId',
  ],
  campaign: [
    ...['campaignId', 'cspId', 'resellerId', 'brandId', 'status', 'createDate', 'billedDate', 'autoRenewal'],
    ...['nextRenewalOrExpirationDate', 'expirationDate', 'vertical', 'usecase', 'subUsecases', 'description'],
    ...['embeddedLink', 'embeddedPhone', 'termsAndConditions', 'numberPool', 'ageGated', 'directLending'],
    ...['subscriberOptin', 'subscriberOptout', 'subscriberHelp', 'sample1', 'sample2', 'sample3', 'sample4'],
    ...['sample5', 'messageFlow', 'helpMessage', 'optinMessage', 'optoutMessage', 'optinKeywords'],
    ...[
      'optoutKeywords',
      'helpKeywords',
      'privacyPolicyLink',
      'termsAndConditionsLink',
      'embeddedLinkSample',
    ],
    ...['referenceId', 'mock', 'monthlyFee', 'tag', 'mnoIDs'],
  ],
  mnoMetadata: [
    ...['minMsgSamples', 'reqSubscriberHelp', 'reqSubscriberOptout', 'reqSubscriberOptin', 'brandDailyCap'],
    ...['mnoReview', 'mnoSupport', 'brandTier', 'noEmbeddedLink', 'noEmbeddedPhone', 'qualify', 'mno'],
  ],
  sharing: [
    ...['downstreamCnpId', 'upstreamCnpId', 'sharingStatus', 'explanation', 'sharedDate', 'statusDate'],
    'cnpMigration',
  ],
  vet: [
    ...['evpId', 'vettingId', 'vettingToken', 'vettingScore', 'vettingClass', 'vettingStatus', 'reasons'],
    ...['vettingDetails', 'vettedDate', 'createDate'],
  ],
  page: ['records', 'page', 'totalRecords'],
  dca: ['id', 'displayName', 'escalateEmail', 'dpaSigned', 'soleProprietorEnabled', 'dca2AutoAccept'],
  event: [
    ...['eventType', 'cspId', 'cnpId', 'cspName', 'brandId', 'brandName', 'brandReferenceId'],
    ...['brandIdentityStatus', 'campaignId', 'campaignReferenceId', 'dcaId', 'dcaName', 'description'],
    ...['evpId', 'evpName', 'vettingId', 'mnoId', 'mnoName', 'mock', 'nudgeIntent'],
  ],
};
/** "monthlyFee: Present on single-campaign retrieval": list records and PUT answers go without it. */
const CAMPAIGN_IN_LIST = SPEC.campaign.filter((f) => f !== 'monthlyFee');

/** `value` is an object whose keys all lie within `fields`. */
function within(value: Json, fields: string[], what: string): void {
  expect(value, what).toBeTypeOf('object');
  expect(value, what).not.toBeNull();
  const extra = Object.keys(value).filter((k) => !fields.includes(k));
  expect(extra, `${what}: keys beyond the spec`).toEqual([]);
}

const START = new Date('2026-06-01T12:00:00.000Z');
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function started(strict: boolean): Promise<Api> {
  const api = await startApi({ now: () => START, strict });
  cleanups.push(() => api.close());
  return api;
}

async function ok(api: Api, method: string, path: string, body?: unknown): Promise<Json> {
  const r = await api.call(method, path, body);
  expect(r.status, `${method} ${path}: ${JSON.stringify(r.body)}`).toBe(200);
  return r.body;
}

describe('strict: every answer within the spec', () => {
  test('brand, campaign, creation answer, sharing, vetting record, page object, DCA', async () => {
    const api = await started(true);
    const receiver = await startReceiver();
    cleanups.push(() => receiver.close());
    for (const eventCategory of ['BRAND', 'VETTING', 'CAMPAIGN', 'CAMPAIGN_SHARING'])
      await ok(api, 'PUT', '/webhook/subscription', { eventCategory, webhookEndpoint: receiver.url });

    // Brands: registration, read, update, revet, list.
    const created = await ok(api, 'POST', '/brand/nonBlocking', privateBrand({ referenceId: 'acme' }));
    within(created, SPEC.brand, 'POST /brand/nonBlocking');
    expect(created.referenceId).toBe('acme');
    const sole = await ok(api, 'POST', '/brand/nonBlocking', soleBrand({ referenceId: 'jane' }));
    within(sole, SPEC.brand, 'sole proprietor');
    expect(sole).not.toHaveProperty('mobilePhoneVerifiedDate');
    within(await ok(api, 'GET', `/brand/${sole.brandId}`), SPEC.brand, 'GET /brand/{id}');
    const updated = await ok(api, 'PUT', `/brand/${created.brandId}`, { website: 'https://acme.example/x' });
    within(updated, SPEC.brand, 'PUT /brand/{id}');
    within(await ok(api, 'PUT', `/brand/${created.brandId}/revet`), SPEC.brand, 'revet');
    const brands = await ok(api, 'GET', '/brand?recordsPerPage=50');
    within(brands, SPEC.page, 'GET /brand');
    expect(brands.records).toHaveLength(2);
    for (const b of brands.records) within(b, SPEC.brand, 'GET /brand record');

    // Vets: order, import, poll.
    within(
      await ok(api, 'POST', `/brand/${created.brandId}/externalVetting`, {
        evpId: 'AEGIS',
        vettingClass: 'STANDARD',
      }),
      SPEC.vet,
      'POST externalVetting',
    );
    within(
      await ok(api, 'PUT', `/brand/${created.brandId}/externalVetting`, {
        evpId: 'WMC',
        vettingId: 'wmc-123',
        vettingToken: 'tok',
      }),
      SPEC.vet,
      'PUT externalVetting',
    );
    await api.control.advanceClock(3700);
    const vets = await ok(api, 'GET', `/brand/${created.brandId}/externalVetting`);
    expect(vets.length).toBeGreaterThan(0);
    for (const v of vets) within(v, SPEC.vet, 'GET externalVetting');
    expect(vets.map((v: Json) => v.vettingStatus)).toContain('ACTIVE');

    // Campaigns: creation answer, read, list, update.
    const campaign = await ok(api, 'POST', '/campaignBuilder', campaignBody(created.brandId));
    expect(Object.keys(campaign).sort()).toEqual(['campaignId', 'mnoMetadata']);
    const metadata = Object.values<Json>(campaign.mnoMetadata);
    expect(metadata.length).toBeGreaterThan(0);
    for (const m of metadata) within(m, SPEC.mnoMetadata, 'mnoMetadata');
    const single = await ok(api, 'GET', `/campaign/${campaign.campaignId}`);
    within(single, SPEC.campaign, 'GET /campaign/{id}');
    expect(single.monthlyFee).toBeTypeOf('number');
    expect(single).not.toHaveProperty('mnoOperationStatus');
    expect(single).not.toHaveProperty('mnoMetadata');
    const campaigns = await ok(api, 'GET', '/campaign');
    within(campaigns, SPEC.page, 'GET /campaign');
    expect(campaigns.records).toHaveLength(1);
    within(campaigns.records[0], CAMPAIGN_IN_LIST, 'GET /campaign record');
    const changed = await ok(api, 'PUT', `/campaign/${campaign.campaignId}`, { autoRenewal: false });
    within(changed, CAMPAIGN_IN_LIST, 'PUT /campaign/{id}');
    expect(changed.autoRenewal).toBe(false);

    // Sharing.
    const emptySharing = await ok(api, 'GET', `/campaign/${campaign.campaignId}/sharing`);
    expect(Object.keys(emptySharing)).toEqual(['sharedByMe']);
    within(
      await ok(api, 'PUT', `/campaign/${campaign.campaignId}/sharing/SINCH`),
      SPEC.sharing,
      'PUT sharing',
    );
    await api.control.advanceClock(61);
    const sharing = await ok(api, 'GET', `/campaign/${campaign.campaignId}/sharing`);
    expect(Object.keys(sharing)).toEqual(['sharedByMe']);
    within(sharing.sharedByMe, SPEC.sharing, 'sharedByMe');
    expect(sharing.sharedByMe.sharingStatus).toBe('ACCEPTED');

    // Reference: DCA records.
    for (const d of await ok(api, 'GET', '/enum/dca')) within(d, SPEC.dca, 'GET /enum/dca');
    expect((await ok(api, 'GET', '/enum/dca?cnpMigrationSupported=true')).length).toBeGreaterThan(0);

    // Webhook bodies carry only the spec's event properties (in strict as in default mode).
    const hooks = await until(() => (receiver.received.length >= 8 ? receiver.received : undefined));
    const types = new Set(hooks.map((h: ReceivedWebhook) => h.body.eventType));
    for (const t of ['BRAND_ADD', 'CAMPAIGN_ADD', 'CAMPAIGN_SHARE_ACCEPT', 'CAMPAIGN_DCA_COMPLETE'])
      await until(() => receiver.received.some((h) => h.body.eventType === t) || undefined);
    expect(types.size).toBeGreaterThan(1);
    for (const h of receiver.received) within(h.body, SPEC.event, `event ${String(h.body.eventType)}`);
  });

  test('the control API is not the registry: it answers the full records in strict mode too', async () => {
    const api = await started(true);
    const sole = await ok(api, 'POST', '/brand/nonBlocking', soleBrand());
    const verified = await api.control.verifyContact(sole.brandId);
    expect(verified.mobilePhoneVerifiedDate).toEqual(expect.any(String));
    // ... and the verification it records shows through /v2 only as the builder's answer.
    expect(await ok(api, 'GET', `/brand/${sole.brandId}`)).not.toHaveProperty('mobilePhoneVerifiedDate');
  });

  test('default mode keeps the extras', async () => {
    const api = await started(false);
    const brand = await ok(api, 'POST', '/brand/nonBlocking', privateBrand());
    expect(brand).toHaveProperty('mobilePhoneVerifiedDate');
    const campaign = await ok(api, 'POST', '/campaignBuilder', campaignBody(brand.brandId));
    const single = await ok(api, 'GET', `/campaign/${campaign.campaignId}`);
    expect(single).toHaveProperty('mnoOperationStatus');
    expect(single).toHaveProperty('mnoMetadata');
    expect(await ok(api, 'GET', `/campaign/${campaign.campaignId}/sharing`)).toEqual({
      sharedByMe: null,
      sharedWithMe: null,
    });
  });
});

describe('strict: list filters the spec does not document are ignored', () => {
  async function estate(api: Api) {
    const a = await ok(
      api,
      'POST',
      '/brand/nonBlocking',
      privateBrand({ referenceId: 'a', displayName: 'A' }),
    );
    await ok(api, 'POST', '/brand/nonBlocking', privateBrand({ referenceId: 'b', displayName: 'B' }));
    await ok(api, 'POST', '/brand/nonBlocking', soleBrand({ referenceId: 's' }));
    await ok(api, 'POST', '/campaignBuilder', campaignBody(a.brandId, { referenceId: 'c1' }));
    await ok(api, 'POST', '/campaignBuilder', campaignBody(a.brandId, { referenceId: 'c2' }));
    return a.brandId as string;
  }
  const total = async (api: Api, path: string) => (await ok(api, 'GET', path)).totalRecords as number;

  test('strict: /brand referenceId, displayName; /campaign referenceId, status, usecase', async () => {
    const api = await started(true);
    const brandId = await estate(api);
    expect(await total(api, '/brand?referenceId=a')).toBe(3);
    expect(await total(api, '/brand?displayName=B')).toBe(3);
    expect(await total(api, '/brand?referenceId=nobody&displayName=nobody')).toBe(3);
    expect(await total(api, '/campaign?referenceId=c1')).toBe(2);
    expect(await total(api, '/campaign?status=EXPIRED')).toBe(2);
    expect(await total(api, '/campaign?usecase=MARKETING')).toBe(2);
    // The documented ones still filter.
    expect(await total(api, '/brand?entityType=SOLE_PROPRIETOR')).toBe(1);
    expect(await total(api, '/brand?identityStatus=VERIFIED&country=US')).toBe(2);
    expect(await total(api, '/brand?mock=true')).toBe(0);
    expect(await total(api, `/campaign?brandId=${brandId}`)).toBe(2);
    expect(await total(api, '/campaign?brandId=B999')).toBe(0);
  });

  test('default: the same filters are honoured', async () => {
    const api = await started(false);
    await estate(api);
    expect(await total(api, '/brand?referenceId=a')).toBe(1);
    expect(await total(api, '/brand?displayName=B')).toBe(1);
    expect(await total(api, '/campaign?referenceId=c1')).toBe(1);
    expect(await total(api, '/campaign?status=EXPIRED')).toBe(0);
  });
});

describe('the campaign builder and a sole proprietor’s mobile verification', () => {
  const useCasePath = (brandId: string, usecase: string) =>
    `/campaignBuilder/brand/${brandId}/usecase/${usecase}`;

  test('default: SOLE_PROPRIETOR is qualified: false with a reason until the OTP is done, then qualified', async () => {
    const api = await started(false);
    const sole = await ok(api, 'POST', '/brand/nonBlocking', soleBrand());
    const before = await ok(api, 'GET', useCasePath(sole.brandId, 'SOLE_PROPRIETOR'));
    expect(before.qualified).toBe(false);
    expect(before.reasons.join(' ')).toMatch(/mobile phone verification/);
    const listBefore = await ok(api, 'GET', `/campaignBuilder/brand/${sole.brandId}`);
    expect(listBefore.find((e: Json) => e.usecase === 'SOLE_PROPRIETOR').qualified).toBe(false);
    // The OTP completes by itself after contactVerificationSeconds (300 simulated seconds).
    await api.control.advanceClock(301);
    const after = await ok(api, 'GET', useCasePath(sole.brandId, 'SOLE_PROPRIETOR'));
    expect(after).toMatchObject({ usecase: 'SOLE_PROPRIETOR', qualified: true, reasons: [] });
    const listAfter = await ok(api, 'GET', `/campaignBuilder/brand/${sole.brandId}`);
    expect(listAfter.filter((e: Json) => e.qualified).map((e: Json) => e.usecase)).toEqual([
      'SOLE_PROPRIETOR',
    ]);
    expect(
      (await api.call('POST', '/campaignBuilder', campaignBody(sole.brandId, soleCampaign))).status,
    ).toBe(200);
  });

  test('strict: a 400 until the OTP is done, then {usecase}; the brand list names what is supported now', async () => {
    const api = await started(true);
    const sole = await ok(api, 'POST', '/brand/nonBlocking', soleBrand());
    const before = await api.call('GET', useCasePath(sole.brandId, 'SOLE_PROPRIETOR'));
    expect(before.status).toBe(400);
    expect(before.body).toEqual([
      { code: 506, description: expect.stringMatching(/mobile phone verification/), fields: ['mobilePhone'] },
    ]);
    expect(await ok(api, 'GET', `/campaignBuilder/brand/${sole.brandId}`)).toEqual([]);
    // Creating the campaign now meets the same refusal.
    const early = await api.call('POST', '/campaignBuilder', campaignBody(sole.brandId, soleCampaign));
    expect(early.body[0].code).toBe(506);
    await api.control.verifyContact(sole.brandId);
    expect(await ok(api, 'GET', useCasePath(sole.brandId, 'SOLE_PROPRIETOR'))).toEqual({
      usecase: 'SOLE_PROPRIETOR',
    });
    expect(await ok(api, 'GET', `/campaignBuilder/brand/${sole.brandId}`)).toEqual([
      { usecase: 'SOLE_PROPRIETOR' },
    ]);
    // A use case a sole proprietor may never use: 400 with the use-case code.
    const marketing = await api.call('GET', useCasePath(sole.brandId, 'MARKETING'));
    expect(marketing.status).toBe(400);
    expect(marketing.body[0]).toMatchObject({ code: 517, fields: ['usecase'] });
  });

  test('strict: a verified brand, an unknown use case, an unknown brand', async () => {
    const api = await started(true);
    const brand = await ok(api, 'POST', '/brand/nonBlocking', privateBrand());
    expect(await ok(api, 'GET', useCasePath(brand.brandId, 'MARKETING'))).toEqual({ usecase: 'MARKETING' });
    const political = await api.call('GET', useCasePath(brand.brandId, 'POLITICAL'));
    expect(political.status).toBe(400);
    expect(political.body[0].code).toBe(517);
    const all = await ok(api, 'GET', `/campaignBuilder/brand/${brand.brandId}`);
    for (const entry of all) expect(Object.keys(entry)).toEqual(['usecase']);
    const supported = all.map((e: Json) => e.usecase);
    expect(supported).toContain('MARKETING');
    expect(supported).not.toContain('POLITICAL');
    expect(supported).not.toContain('SOLE_PROPRIETOR');
    expect((await api.call('GET', useCasePath(brand.brandId, 'NOPE'))).status).toBe(404);
    expect((await api.call('GET', '/campaignBuilder/brand/B999/usecase/MARKETING')).status).toBe(404);
    // An UNVERIFIED brand supports nothing yet: the brand's own obstacle (505).
    const bad = await ok(api, 'POST', '/brand/nonBlocking', privateBrand({ companyName: 'UNVERIFIED Co' }));
    expect(await ok(api, 'GET', `/campaignBuilder/brand/${bad.brandId}`)).toEqual([]);
    expect((await api.call('GET', useCasePath(bad.brandId, 'MARKETING'))).body[0].code).toBe(505);
  });
});

const soleCampaign = {
  usecase: 'SOLE_PROPRIETOR',
  subUsecases: [],
  mnoIDs: [10017],
};
