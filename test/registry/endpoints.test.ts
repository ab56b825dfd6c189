/**
 * Every endpoint of the spec (plus the webhook subscription calls) through the client, against undici's
 * MockAgent: the method, path and query the client sends, the auth header, the body, and that the
 * response is parsed (unknown fields kept).
 */
import { MockAgent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { RegistryClient } from '../../src/registry/client.js';
import { brandRegistrationFor } from '../support/brand-fixtures.js';

const ORIGIN = 'https://registry.endpoints.test';
const KEY = 'endpoint-key';
const SECRET = 'endpoint-secret';

interface Seen {
  method: string;
  path: string;
  body: unknown;
  authorization: string | undefined;
}

/** A staging client of the test origin whose requests go to `agent` (no rate limits). */
function clientOn(agent: MockAgent): RegistryClient {
  return new RegistryClient({
    environment: 'staging',
    baseUrl: ORIGIN,
    allowedHosts: ['registry.endpoints.test'],
    apiKey: KEY,
    apiSecret: SECRET,
    rateLimits: false,
    dispatcher: agent,
  });
}

function setup(status: number, reply: unknown) {
  const agent = new MockAgent();
  agent.disableNetConnect();
  const seen: Seen[] = [];
  agent
    .get(ORIGIN)
    .intercept({ path: () => true, method: () => true })
    .reply((opts) => {
      const headers = opts.headers as Record<string, string>;
      seen.push({
        method: opts.method,
        path: opts.path,
        body: typeof opts.body === 'string' ? JSON.parse(opts.body) : undefined,
        authorization: headers.authorization,
      });
      return {
        statusCode: status,
        data: status === 204 ? '' : JSON.stringify(reply),
        responseOptions: { headers: { 'content-type': 'application/json' } },
      };
    })
    .persist();
  const client = clientOn(agent);
  return { agent, seen, client };
}

const brand = { brandId: 'B1', entityType: 'PRIVATE_PROFIT', referenceId: 'ref-1', extra: 'kept' };
const campaign = {
  campaignId: 'C1',
  brandId: 'B1',
  usecase: 'MARKETING',
  referenceId: 'camp-1',
  monthlyFee: 10,
};
const sharing = {
  downstreamCnpId: 'CSPLOCAL',
  upstreamCnpId: 'DCA1',
  sharingStatus: 'PENDING',
  explanation: null,
  sharedDate: '2026-01-01T00:00:00.000Z',
  statusDate: '2026-01-01T00:00:00.000Z',
  cnpMigration: false,
};
const vet = {
  evpId: 'AEGIS',
  vettingId: 'V1',
  vettingClass: 'STANDARD',
  vettingStatus: 'PENDING',
  vettingScore: null,
};
const brandOrder = brandRegistrationFor('ref-1');
const campaignOrder = {
  referenceId: 'camp-1',
  brandId: 'B1',
  usecase: 'MARKETING',
  description: 'Weekly offers',
};

interface Row {
  name: string;
  call: (c: RegistryClient) => Promise<unknown>;
  method: string;
  path: string;
  reply: unknown;
  status?: number;
  expectBody?: unknown;
  check?: (result: unknown) => void;
}

const rows: Row[] = [
  // 17 reference endpoints
  {
    name: 'listDcas',
    call: (c) => c.listDcas({ soleProprietorEnabled: true, cnpMigrationSupported: false }),
    method: 'GET',
    path: '/v2/enum/dca?soleProprietorEnabled=true&cnpMigrationSupported=false',
    reply: [
      {
        id: 'DCA1',
        displayName: 'D',
        escalateEmail: null,
        dpaSigned: true,
        soleProprietorEnabled: true,
        dca2AutoAccept: false,
      },
    ],
  },
  {
    name: 'listMnos',
    call: (c) => c.listMnos(),
    method: 'GET',
    path: '/v2/enum/mno',
    reply: [{ networkId: 10017, displayName: 'AT&T', osrBitmaskIndex: 0 }],
  },
  {
    name: 'listOptionalAttributeNames',
    call: (c) => c.listOptionalAttributeNames(),
    method: 'GET',
    path: '/v2/enum/optionalAttributeNames',
    reply: [{ id: 'taxExemptStatus', dataType: 'STRING', description: 'x' }],
  },
  {
    name: 'listUseCases',
    call: (c) => c.listUseCases({ validSubUsecase: true }),
    method: 'GET',
    path: '/v2/enum/usecase?validSubUsecase=true',
    reply: {
      MIXED: {
        classification: 'STANDARD',
        displayName: 'Mixed',
        minSubUsecases: 2,
        maxSubUsecases: 5,
        validSubUsecase: false,
      },
    },
  },
  {
    name: 'listVerticals',
    call: (c) => c.listVerticals(),
    method: 'GET',
    path: '/v2/enum/vertical',
    reply: { RETAIL: { industryId: 'retail', displayName: 'Retail', description: 'Shops' } },
  },
  {
    name: 'listAltBusinessIdTypes',
    call: (c) => c.listAltBusinessIdTypes(),
    method: 'GET',
    path: '/v2/enum/altBusinessIdType',
    reply: ['NONE', 'DUNS'],
  },
  {
    name: 'listBrandIdentityStatuses',
    call: (c) => c.listBrandIdentityStatuses(),
    method: 'GET',
    path: '/v2/enum/brandIdentityStatus',
    reply: ['VERIFIED'],
  },
  {
    name: 'listBrandRelationships',
    call: (c) => c.listBrandRelationships(),
    method: 'GET',
    path: '/v2/enum/brandRelationship',
    reply: ['KEY_ACCOUNT'],
  },
  {
    name: 'listCampaignStatuses',
    call: (c) => c.listCampaignStatuses(),
    method: 'GET',
    path: '/v2/enum/campaignStatus',
    reply: ['ACTIVE', 'EXPIRED'],
  },
  {
    name: 'listEntityTypes',
    call: (c) => c.listEntityTypes(),
    method: 'GET',
    path: '/v2/enum/entityType',
    reply: ['GOVERNMENT'],
  },
  {
    name: 'listVettingProviders',
    call: (c) => c.listVettingProviders(),
    method: 'GET',
    path: '/v2/enum/extVettingProvider',
    reply: [
      {
        evpId: 'AEGIS',
        displayName: 'Aegis',
        registryBillable: true,
        vettingClasses: ['STANDARD'],
        vettingInstruction: JSON.stringify({
          importVet: { supported: true, parameters: { vettingId: { label: 'Id', show: true } }, info: 'i' },
          newVet: { supported: true, price: { STANDARD: 40 }, waitTime: '1 day', info: 'n' },
        }),
      },
    ],
    check: (r) => {
      const [p] = r as { vettingInstruction?: { newVet?: { price?: Record<string, number> } } }[];
      expect(p?.vettingInstruction?.newVet?.price?.STANDARD).toBe(40);
    },
  },
  {
    name: 'listVettingStatuses',
    call: (c) => c.listVettingStatuses(),
    method: 'GET',
    path: '/v2/enum/vettingStatus',
    reply: ['PENDING'],
  },
  {
    name: 'listUsStates',
    call: (c) => c.listUsStates(),
    method: 'GET',
    path: '/v2/enum/usState',
    reply: { CA: 'California', PR: 'Puerto Rico' },
  },
  {
    name: 'listAssetAppealCategories',
    call: (c) => c.listAssetAppealCategories(),
    method: 'GET',
    path: '/v2/enum/assetAppealCategory',
    reply: [{ id: 'VERIFY_TAX_EXEMPT', displayName: 'Tax', description: 'd' }],
  },
  {
    name: 'listBrandAppealCategories',
    call: (c) => c.listBrandAppealCategories(),
    method: 'GET',
    path: '/v2/enum/brandAppealCategory',
    reply: [{ id: 'VERIFY_GOV', displayName: 'Gov', description: 'd' }],
  },
  {
    name: 'listConnectivityPartners',
    call: (c) => c.listConnectivityPartners(),
    method: 'GET',
    path: '/v2/enum/cnp',
    reply: [{ id: 'DCA1', displayName: 'D' }],
  },
  {
    name: 'listVettingClasses',
    call: (c) => c.listVettingClasses(),
    method: 'GET',
    path: '/v2/enum/vettingClass',
    reply: ['STANDARD', 'ENHANCED'],
  },
  // brands
  {
    name: 'listBrands',
    call: (c) =>
      c.listBrands({
        entityType: 'PUBLIC_PROFIT',
        identityStatus: 'VERIFIED',
        status: 'ACTIVE',
        state: 'CA',
        country: 'US',
        mock: false,
        page: 2,
        recordsPerPage: 5,
      }),
    method: 'GET',
    path: '/v2/brand?entityType=PUBLIC_PROFIT&identityStatus=VERIFIED&status=ACTIVE&state=CA&country=US&mock=false&page=2&recordsPerPage=5',
    reply: { records: [brand], page: 2, totalRecords: 6 },
  },
  {
    name: 'findBrandByReference',
    call: (c) => c.findBrandByReference('ref-1'),
    method: 'GET',
    path: '/v2/brand?referenceId=ref-1&recordsPerPage=100&page=1',
    reply: { records: [brand], page: 1, totalRecords: 1 },
    check: (r) => expect((r as { brandId: string }).brandId).toBe('B1'),
  },
  {
    name: 'getBrand',
    call: (c) => c.getBrand('B1'),
    method: 'GET',
    path: '/v2/brand/B1',
    reply: brand,
    check: (r) => expect(r).toMatchObject({ extra: 'kept' }),
  },
  {
    name: 'updateBrand',
    call: (c) => c.updateBrand('B1', { website: 'https://acme.example' }),
    method: 'PUT',
    path: '/v2/brand/B1',
    reply: brand,
    expectBody: { website: 'https://acme.example' },
  },
  {
    name: 'revetBrand',
    call: (c) => c.revetBrand('B1'),
    method: 'PUT',
    path: '/v2/brand/B1/revet',
    reply: brand,
  },
  {
    name: 'appealBrand',
    call: (c) =>
      c.appealBrand('B1', { appealCategories: ['VERIFY_TAX_EXEMPT'], explanation: 'We are a 501(c)(3)' }),
    method: 'POST',
    path: '/v2/brand/B1/appeal',
    reply: null,
    status: 204,
    expectBody: {
      appealCategories: ['VERIFY_TAX_EXEMPT'],
      attachmentUuids: [],
      explanation: 'We are a 501(c)(3)',
    },
    check: (r) => expect(r).toBeUndefined(),
  },
  {
    name: 'orderExternalVet',
    call: (c) => c.orderExternalVet('B1', { evpId: 'AEGIS', vettingClass: 'STANDARD' }),
    method: 'POST',
    path: '/v2/brand/B1/externalVetting',
    reply: vet,
    expectBody: { evpId: 'AEGIS', vettingClass: 'STANDARD' },
  },
  {
    name: 'importExternalVet',
    call: (c) => c.importExternalVet('B1', { evpId: 'AEGIS', vettingId: 'V1', vettingToken: 'T' }),
    method: 'PUT',
    path: '/v2/brand/B1/externalVetting',
    reply: { ...vet, vettingStatus: 'ACTIVE' },
    expectBody: { evpId: 'AEGIS', vettingId: 'V1', vettingToken: 'T' },
  },
  {
    name: 'listExternalVets',
    call: (c) => c.listExternalVets('B1'),
    method: 'GET',
    path: '/v2/brand/B1/externalVetting',
    reply: [vet],
    check: (r) => expect(r).toHaveLength(1),
  },
  // campaigns
  {
    name: 'getCampaignBuilderBrand',
    call: (c) => c.getCampaignBuilderBrand('B1'),
    method: 'GET',
    path: '/v2/campaignBuilder/brand/B1',
    reply: { usecases: ['MARKETING'] },
  },
  {
    name: 'getCampaignBuilderUseCase',
    call: (c) => c.getCampaignBuilderUseCase('B1', 'MARKETING'),
    method: 'GET',
    path: '/v2/campaignBuilder/brand/B1/usecase/MARKETING',
    reply: { supported: true },
  },
  {
    name: 'listCampaigns',
    call: (c) => c.listCampaigns({ brandId: 'B1', page: 1, recordsPerPage: 10 }),
    method: 'GET',
    path: '/v2/campaign?brandId=B1&page=1&recordsPerPage=10',
    reply: { records: [campaign], page: 1, totalRecords: 1 },
  },
  {
    name: 'findCampaignByReference',
    call: (c) => c.findCampaignByReference('camp-1'),
    method: 'GET',
    path: '/v2/campaign?referenceId=camp-1&recordsPerPage=100&page=1',
    reply: { records: [campaign], page: 1, totalRecords: 1 },
  },
  {
    name: 'getCampaign',
    call: (c) => c.getCampaign('C1'),
    method: 'GET',
    path: '/v2/campaign/C1',
    reply: campaign,
    check: (r) => expect(r).toMatchObject({ monthlyFee: 10 }),
  },
  {
    name: 'updateCampaign',
    call: (c) => c.updateCampaign('C1', { description: 'New text' }),
    method: 'PUT',
    path: '/v2/campaign/C1',
    reply: campaign,
    expectBody: { description: 'New text' },
  },
  {
    name: 'shareCampaign',
    call: (c) => c.shareCampaign('C1', 'DCA1'),
    method: 'PUT',
    path: '/v2/campaign/C1/sharing/DCA1',
    reply: sharing,
  },
  {
    name: 'getCampaignSharing',
    call: (c) => c.getCampaignSharing('C1'),
    method: 'GET',
    path: '/v2/campaign/C1/sharing',
    reply: { sharedByMe: { ...sharing, sharingStatus: 'DECLINED', explanation: 'no' }, sharedWithMe: null },
    check: (r) => expect(r).toMatchObject({ sharedByMe: { explanation: 'no' } }),
  },
  // webhook subscriptions
  {
    name: 'putWebhookSubscription',
    call: (c) =>
      c.putWebhookSubscription({
        eventCategory: 'CAMPAIGN',
        webhookEndpoint: 'https://hooks.example/registry',
      }),
    method: 'PUT',
    path: '/v2/webhook/subscription',
    reply: { eventCategory: 'CAMPAIGN', webhookEndpoint: 'https://hooks.example/registry' },
    expectBody: { eventCategory: 'CAMPAIGN', webhookEndpoint: 'https://hooks.example/registry' },
  },
  {
    name: 'listWebhookSubscriptions',
    call: (c) => c.listWebhookSubscriptions(),
    method: 'GET',
    path: '/v2/webhook/subscription',
    reply: [{ eventCategory: 'CAMPAIGN', webhookEndpoint: 'https://hooks.example/registry' }],
  },
  {
    name: 'deleteWebhookSubscription',
    call: (c) => c.deleteWebhookSubscription('CAMPAIGN'),
    method: 'DELETE',
    path: '/v2/webhook/subscription/CAMPAIGN',
    reply: null,
    status: 204,
  },
];

let agents: MockAgent[] = [];
afterEach(async () => {
  await Promise.all(agents.map((a) => a.close()));
  agents = [];
});

describe('every endpoint', () => {
  it.each(rows)('$name sends $method $path', async (row) => {
    const { agent, seen, client } = setup(row.status ?? 200, row.reply);
    agents.push(agent);
    const result = await row.call(client);
    expect(seen).toHaveLength(1);
    expect(seen[0]?.method).toBe(row.method);
    expect(seen[0]?.path).toBe(row.path);
    expect(seen[0]?.authorization).toBe(`Basic ${Buffer.from(`${KEY}:${SECRET}`).toString('base64')}`);
    if (row.expectBody !== undefined) expect(seen[0]?.body).toEqual(row.expectBody);
    row.check?.(result);
  });

  it('registerBrand looks up by reference, then POSTs /brand/nonBlocking with the referenceId', async () => {
    const agent = new MockAgent();
    agents.push(agent);
    agent.disableNetConnect();
    const pool = agent.get(ORIGIN);
    pool
      .intercept({ path: '/v2/brand?referenceId=ref-1&recordsPerPage=100&page=1', method: 'GET' })
      .reply(200, { records: [], page: 1, totalRecords: 0 });
    let posted: unknown;
    pool.intercept({ path: '/v2/brand/nonBlocking', method: 'POST' }).reply((opts) => {
      posted = JSON.parse(String(opts.body));
      return { statusCode: 200, data: JSON.stringify(brand) };
    });
    const client = clientOn(agent);
    const result = await client.registerBrand(brandOrder);
    expect(result).toMatchObject({ brandId: 'B1', alreadyExisted: false, extra: 'kept' });
    expect(posted).toMatchObject({
      referenceId: 'ref-1',
      entityType: 'PRIVATE_PROFIT',
      companyName: brandOrder.companyName,
    });
  });

  it('createCampaign looks up by reference, then POSTs /campaignBuilder', async () => {
    const agent = new MockAgent();
    agents.push(agent);
    agent.disableNetConnect();
    const pool = agent.get(ORIGIN);
    pool
      .intercept({
        path: '/v2/campaign?referenceId=camp-1&recordsPerPage=100&page=1&brandId=B1',
        method: 'GET',
      })
      .reply(200, { records: [], page: 1, totalRecords: 0 });
    pool.intercept({ path: '/v2/campaignBuilder', method: 'POST' }).reply(200, {
      campaignId: 'C9',
      mnoMetadata: { '10017': { qualify: true, mno: 'AT&T', brandTier: 'LOW' } },
    });
    const client = clientOn(agent);
    const result = await client.createCampaign(campaignOrder);
    expect(result).toEqual({
      campaignId: 'C9',
      mnoMetadata: { '10017': { qualify: true, mno: 'AT&T', brandTier: 'LOW' } },
      alreadyExisted: false,
    });
  });

  it('paging iterators walk every page', async () => {
    const agent = new MockAgent();
    agents.push(agent);
    agent.disableNetConnect();
    const all = Array.from({ length: 7 }, (_, i) => ({ campaignId: `C${i}` }));
    agent
      .get(ORIGIN)
      .intercept({ path: () => true, method: 'GET' })
      .reply((opts) => {
        const q = new URL(opts.path, ORIGIN).searchParams;
        const page = Number(q.get('page'));
        const per = Number(q.get('recordsPerPage'));
        return {
          statusCode: 200,
          data: JSON.stringify({
            records: all.slice((page - 1) * per, page * per),
            page,
            totalRecords: all.length,
          }),
        };
      })
      .persist();
    const client = clientOn(agent);
    const ids: string[] = [];
    for await (const c of client.campaigns({ brandId: 'B1', recordsPerPage: 3 })) ids.push(c.campaignId);
    expect(ids).toEqual(all.map((c) => c.campaignId));
  });
});
