/**
 * The client against the local registry simulator (src/simulator): every endpoint, the error classes
 * the simulator can produce, 429 absorbed by the client, and a create retried after the simulator's
 * `timeout-after-commit` fault leaving exactly one campaign and one fee.
 */
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RegistryClient, type RegistryClientOptions } from '../../src/registry/client.js';
import {
  NotFoundError,
  RegistryInternalError,
  RegistryValidationError,
  UnauthorizedError,
} from '../../src/registry/errors.js';
import { clearRateLimiters } from '../../src/registry/rate-limiter.js';
import { DEFAULT_ACCOUNT, type RunningSimulator, startSimulator } from '../../src/simulator/index.js';
import { qualifyingCampaign } from '../fixtures/campaign-env.js';

let sim: RunningSimulator;
let client: RegistryClient;

function clientFor(extra: Partial<RegistryClientOptions> = {}): RegistryClient {
  return new RegistryClient({
    environment: 'local',
    baseUrl: sim.url,
    apiKey: DEFAULT_ACCOUNT.apiKey,
    apiSecret: DEFAULT_ACCOUNT.apiSecret,
    timeoutMs: 5000,
    ...extra,
  });
}

async function control(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<unknown> {
  const res = await request(`${sim.url}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? null : JSON.stringify(body),
  });
  const text = await res.body.text();
  if (res.statusCode >= 300) throw new Error(`control ${method} ${path}: ${res.statusCode} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

beforeAll(async () => {
  // The simulator's own rate limits stay on (the spec's 20/s and 20/10 s); the client must stay under them.
  sim = await startSimulator({ port: 0 });
  client = clientFor();
});

afterAll(async () => {
  await client?.close();
  await sim?.close();
  clearRateLimiters();
});

const brandOrder = (referenceId: string, extra: Record<string, unknown> = {}) => ({
  referenceId,
  entityType: 'PRIVATE_PROFIT' as const,
  displayName: 'Acme Widgets',
  companyName: 'Acme Widgets Inc',
  ein: '123456789',
  einIssuingCountry: 'US',
  phone: '+12025550100',
  street: '1 Main St',
  city: 'Austin',
  state: 'TX',
  postalCode: '78701',
  country: 'US',
  email: 'ops@acme.example',
  website: 'https://acme.example',
  vertical: 'RETAIL',
  brandRelationship: 'BASIC_ACCOUNT' as const,
  ...extra,
});

const campaignOrder = (referenceId: string, brandId: string) => ({
  referenceId,
  brandId,
  ...qualifyingCampaign({
    usecase: 'MARKETING',
    description: 'Weekly offers for customers who opted in at checkout.',
    messageFlow: 'Customers opt in at checkout by ticking a box next to the phone number field.',
    sample1: 'Acme: 20% off this week. Reply STOP to opt out.',
    sample2: 'Acme: new arrivals are in. Reply HELP for help, STOP to opt out.',
    optinMessage: 'Acme: you are subscribed. Reply STOP to opt out.',
    optoutMessage: 'Acme: you are unsubscribed.',
    helpMessage: 'Acme: help at acme.example. Reply STOP to opt out.',
  }),
});

describe('client against the simulator', () => {
  it('reference endpoints (17)', async () => {
    expect((await client.listDcas()).length).toBeGreaterThan(0);
    const sole = await client.listDcas({ soleProprietorEnabled: true });
    expect(sole.map((d) => d.id).sort()).toEqual(['BANDWIDTH', 'SINCH']);
    await client.listDcas({ cnpMigrationSupported: true });
    const mnos = await client.listMnos();
    expect(mnos[0]).toMatchObject({ networkId: expect.any(Number), displayName: expect.any(String) });
    expect((await client.listOptionalAttributeNames()).some((a) => a.id === 'taxExemptStatus')).toBe(true);
    const useCases = await client.listUseCases();
    expect(useCases.MARKETING).toMatchObject({ classification: 'STANDARD', validSubUsecase: true });
    const withSubs = await client.listUseCases({ validSubUsecase: true });
    expect(Object.keys(withSubs)).toContain('MARKETING');
    expect(Object.keys(withSubs)).not.toContain('MIXED');
    expect(Object.values(withSubs).filter((u) => u.validSubUsecase !== true)).toEqual([]);
    expect(Object.keys(await client.listVerticals())).toContain('RETAIL');
    expect(await client.listAltBusinessIdTypes()).toContain('DUNS');
    expect(await client.listBrandIdentityStatuses()).toContain('VERIFIED');
    expect(await client.listBrandRelationships()).toContain('KEY_ACCOUNT');
    expect(await client.listCampaignStatuses()).toContain('ACTIVE');
    expect(await client.listEntityTypes()).toContain('SOLE_PROPRIETOR');
    const providers = await client.listVettingProviders();
    expect(providers.some((p) => p.vettingInstruction?.newVet?.supported === true)).toBe(true);
    expect(await client.listVettingStatuses()).toContain('PENDING');
    expect((await client.listUsStates()).TX).toBe('Texas');
    expect((await client.listAssetAppealCategories()).length).toBeGreaterThan(0);
    expect((await client.listBrandAppealCategories()).length).toBeGreaterThan(0);
    expect((await client.listConnectivityPartners()).length).toBeGreaterThan(0);
    expect((await client.listVettingClasses()).length).toBeGreaterThan(0);
  });

  let brandId = '';
  it('brands: register once by reference, list, page, get, update, revet, appeal', async () => {
    const first = await client.registerBrand(brandOrder('sim-brand-1'));
    expect(first).toMatchObject({
      alreadyExisted: false,
      referenceId: 'sim-brand-1',
      identityStatus: 'VERIFIED',
    });
    brandId = first.brandId;
    const again = await client.registerBrand(brandOrder('sim-brand-1'));
    expect(again).toMatchObject({ brandId, alreadyExisted: true });
    expect((await client.findBrandByReference('sim-brand-1'))?.brandId).toBe(brandId);
    expect(await client.findBrandByReference('sim-brand-none')).toBeUndefined();
    await client.registerBrand(brandOrder('sim-brand-2', { displayName: 'Beta', companyName: 'Beta LLC' }));

    const page = await client.listBrands({
      entityType: 'PRIVATE_PROFIT',
      country: 'US',
      state: 'TX',
      status: 'ACTIVE',
      identityStatus: 'VERIFIED',
      mock: false,
      page: 1,
      recordsPerPage: 1,
    });
    expect(page.records).toHaveLength(1);
    expect(page.totalRecords).toBe(2);
    const all: string[] = [];
    for await (const b of client.brands({ recordsPerPage: 1 })) all.push(b.brandId);
    expect(all).toHaveLength(2);

    expect((await client.getBrand(brandId)).brandId).toBe(brandId);
    const updated = await client.updateBrand(brandId, { website: 'https://acme.example/new' });
    expect(updated.website).toBe('https://acme.example/new');
    const unverified = await client.registerBrand(
      brandOrder('sim-brand-unv', { companyName: 'UNVERIFIED Corp' }),
    );
    expect(unverified.identityStatus).toBe('UNVERIFIED');
    const revetted = await client.revetBrand(unverified.brandId);
    expect(revetted.brandId).toBe(unverified.brandId);
    const categories = await client.listBrandAppealCategories();
    const category = categories.map((c) => (typeof c === 'string' ? c : c.id))[0]!;
    await expect(
      client.appealBrand(unverified.brandId, {
        appealCategories: [category],
        explanation: 'Our data is correct.',
      }),
    ).resolves.toBeUndefined();
  });

  it('external vetting: order, import, list', async () => {
    const providers = await client.listVettingProviders();
    const orderable = providers.find(
      (p) => p.vettingInstruction?.newVet?.supported && p.vettingClasses?.includes('STANDARD'),
    )!;
    const ordered = await client.orderExternalVet(brandId, {
      evpId: orderable.evpId,
      vettingClass: 'STANDARD',
    });
    expect(ordered.vettingStatus).toBe('PENDING');
    const importable = providers.find((p) => p.vettingInstruction?.importVet?.supported)!;
    const imported = await client.importExternalVet(brandId, {
      evpId: importable.evpId,
      vettingId: 'IMPORTED-1',
      vettingToken: 'tok',
    });
    expect(imported.evpId).toBe(importable.evpId);
    const vets = await client.listExternalVets(brandId);
    expect(vets.length).toBeGreaterThanOrEqual(2);
  });

  it('campaigns: builder, create once by reference, list, page, get, update, share, sharing', async () => {
    const kinds = await client.getCampaignBuilderBrand(brandId);
    expect(Array.isArray(kinds) && kinds.length > 0).toBe(true);
    expect(await client.getCampaignBuilderUseCase(brandId, 'MARKETING')).toMatchObject({
      usecase: 'MARKETING',
    });
    const useCases = await client.listUseCases();
    const created = await client.createCampaign(campaignOrder('sim-camp-1', brandId), { useCases });
    expect(created.alreadyExisted).toBe(false);
    expect(Object.values(created.mnoMetadata).some((m) => m.qualify)).toBe(true);
    const again = await client.createCampaign(campaignOrder('sim-camp-1', brandId));
    expect(again).toEqual({ campaignId: created.campaignId, mnoMetadata: {}, alreadyExisted: true });
    expect((await client.findCampaignByReference('sim-camp-1'))?.campaignId).toBe(created.campaignId);

    const page = await client.listCampaigns({ brandId, page: 1, recordsPerPage: 10 });
    expect(page.records.map((c) => c.campaignId)).toContain(created.campaignId);
    const all: string[] = [];
    for await (const c of client.campaigns({ brandId })) all.push(c.campaignId);
    expect(all).toEqual([created.campaignId]);
    const campaign = await client.getCampaign(created.campaignId);
    expect(campaign).toMatchObject({ referenceId: 'sim-camp-1', monthlyFee: expect.any(Number) });
    const updated = await client.updateCampaign(created.campaignId, {
      description: 'Weekly offers, updated description text.',
    });
    expect(updated.description).toBe('Weekly offers, updated description text.');
    const dca = (await client.listDcas())[0]!;
    const shared = await client.shareCampaign(created.campaignId, dca.id);
    expect(shared.sharingStatus).toBe('PENDING');
    const sharing = await client.getCampaignSharing(created.campaignId);
    expect(sharing.sharedByMe?.upstreamCnpId).toBe(dca.id);
  });

  it('webhook subscriptions: put, list, delete', async () => {
    const put = await client.putWebhookSubscription({
      eventCategory: 'CAMPAIGN',
      webhookEndpoint: 'http://127.0.0.1:9/hooks',
    });
    expect(put).toMatchObject({ eventCategory: 'CAMPAIGN', webhookEndpoint: 'http://127.0.0.1:9/hooks' });
    expect((await client.listWebhookSubscriptions()).map((s) => s.eventCategory)).toContain('CAMPAIGN');
    await client.deleteWebhookSubscription('CAMPAIGN');
    expect((await client.listWebhookSubscriptions()).map((s) => s.eventCategory)).not.toContain('CAMPAIGN');
  });

  it('errors: 401, 404, 400 with fields, 5xx', async () => {
    const wrong = clientFor({ apiSecret: 'wrong-secret' });
    await expect(wrong.listMnos()).rejects.toBeInstanceOf(UnauthorizedError);
    await wrong.close();
    await expect(client.getBrand('B-NOPE')).rejects.toBeInstanceOf(NotFoundError);
    const refused = await client
      .createCampaign({
        ...campaignOrder('sim-camp-bad', brandId),
        usecase: 'MIXED',
        subUsecases: ['MARKETING'],
      })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(RegistryValidationError);
    expect((refused as RegistryValidationError).fields).toContain('subUsecases');
    await control('POST', '/control/faults', {
      kind: 'error-before-commit',
      method: 'GET',
      pathPattern: '^/v2/enum/mno$',
      status: 503,
    });
    const server = await client.listMnos().catch((e: unknown) => e);
    // The simulator's 5xx bodies carry code 590, which the client reports as the registry's internal error.
    expect(server).toBeInstanceOf(RegistryInternalError);
    expect(server).toMatchObject({ status: 503, code: 590, retryable: true, mayHaveCommitted: false });
  });

  it('429 from the registry is absorbed: the client waits Retry-After and retries', async () => {
    await control('POST', '/control/faults', {
      kind: 'rate-limit',
      method: 'GET',
      pathPattern: '^/v2/enum/vertical$',
      retryAfterSeconds: 1,
    });
    const started = Date.now();
    expect(Object.keys(await client.listVerticals()).length).toBeGreaterThan(0);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
  });

  it('a campaign create retried after timeout-after-commit leaves exactly one campaign and one fee', async () => {
    const ledgerBefore = (await control('GET', '/control/ledger')) as unknown[];
    await control('POST', '/control/faults', {
      kind: 'timeout-after-commit',
      method: 'POST',
      pathPattern: '^/v2/campaignBuilder$',
      delayMs: 15_000,
    });
    const fast = clientFor({ timeoutMs: 2_500 });
    const result = await fast.createCampaign(campaignOrder('sim-camp-tac', brandId));
    await fast.close();
    expect(result.alreadyExisted).toBe(true);
    const page = await client.listCampaigns({ referenceId: 'sim-camp-tac' });
    expect(page.records).toHaveLength(1);
    expect(page.records[0]?.campaignId).toBe(result.campaignId);
    const ledgerAfter = (await control('GET', '/control/ledger')) as { campaignId?: string }[];
    const newEntries = ledgerAfter.slice(ledgerBefore.length);
    expect(newEntries.filter((e) => JSON.stringify(e).includes(result.campaignId))).toHaveLength(1);
  });

  it('a brand create retried after timeout-after-commit leaves exactly one brand', async () => {
    await control('POST', '/control/faults', {
      kind: 'timeout-after-commit',
      method: 'POST',
      pathPattern: '^/v2/brand/nonBlocking$',
      delayMs: 15_000,
    });
    const fast = clientFor({ timeoutMs: 2_500 });
    const result = await fast.registerBrand(brandOrder('sim-brand-tac'));
    await fast.close();
    expect(result.alreadyExisted).toBe(true);
    expect((await client.listBrands({ referenceId: 'sim-brand-tac' })).records).toHaveLength(1);
  });
});
