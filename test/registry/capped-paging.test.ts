/**
 * Paging and the lookup by reference over a registry that caps its pages (issue 33): the spec shows
 * no maximum `recordsPerPage`, so a registry may answer 40 records while we ask 100, and it may ignore
 * the undocumented `referenceId` filter. The double here (MockAgent, in front of the MockRegistry's
 * records) serves at most 40 records a page under either reading of a capped page: the offset computed
 * with the size asked, or with the capped size. It honours the documented `brandId` filter of
 * `GET /campaign` and ignores `referenceId`.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { RegistryClient } from '../../src/registry/client.js';
import { brandRegistrationFor } from '../support/brand-fixtures.js';
import { json, MOCK_ORIGIN, MockRegistry, mockRegistryClient } from './support/mock-registry.js';

const CAP = 40;
type Reading = 'asked' | 'capped';

const registries: MockRegistry[] = [];
afterEach(async () => {
  await Promise.all(registries.splice(0).map((r) => r.agent.close()));
});

/** A MockRegistry whose list pages hold at most CAP records and whose lists ignore referenceId. */
function cappedRegistry(reading: Reading): { registry: MockRegistry; listed: URLSearchParams[] } {
  const registry = new MockRegistry();
  const listed: URLSearchParams[] = [];
  registry.agent
    .get(MOCK_ORIGIN)
    .intercept({ path: (p) => /^\/v2\/(brand|campaign)(\?|$)/.test(p), method: 'GET' })
    .reply((opts) => {
      const url = new URL(opts.path, MOCK_ORIGIN);
      const q = url.searchParams;
      listed.push(q);
      let list = url.pathname === '/v2/brand' ? registry.brands : registry.campaigns;
      const brandId = q.get('brandId');
      if (brandId) list = list.filter((r) => r.brandId === brandId);
      const page = Number(q.get('page') ?? '1');
      const asked = Number(q.get('recordsPerPage') ?? '10');
      const size = Math.min(asked, CAP);
      const offset = (page - 1) * (reading === 'asked' ? asked : size);
      return json(200, { records: list.slice(offset, offset + size), page, totalRecords: list.length });
    })
    .persist();
  registries.push(registry.listen());
  return { registry, listed };
}

async function withBrands(reading: Reading, n: number) {
  const { registry, listed } = cappedRegistry(reading);
  const client: RegistryClient = mockRegistryClient(registry, { pageSize: 100 });
  for (let i = 0; i < n; i++) await client.registerBrand(brandRegistrationFor(`ref-${i}`));
  listed.length = 0;
  return { registry, listed, client };
}

describe.each<Reading>(['asked', 'capped'])(
  'a registry capping pages at 40 (offset by the %s size)',
  (reading) => {
    it('brands() walks every page: 130 brands, each once', async () => {
      const { client } = await withBrands(reading, 130);
      const ids: string[] = [];
      for await (const b of client.brands({ recordsPerPage: 100 })) ids.push(b.brandId);
      expect(ids).toHaveLength(130);
      expect(new Set(ids).size).toBe(130);
    });

    it('findBrandByReference finds a brand on the third page when the filter is ignored', async () => {
      const { client, listed } = await withBrands(reading, 130);
      const found = await client.findBrandByReference('ref-95');
      expect(found?.referenceId).toBe('ref-95');
      // A miss reads every page and says so, no more.
      expect(await client.findBrandByReference('ref-none')).toBeUndefined();
      expect(listed.length).toBeLessThanOrEqual(3 + 4);
    });

    it('findCampaignByReference narrows the scan by brandId when the create knows it', async () => {
      const { registry, listed, client } = await withBrands(reading, 0);
      for (let i = 0; i < 100; i++)
        registry.campaigns.push({
          campaignId: `CA${i}`,
          referenceId: `ca-${i}`,
          brandId: 'BA',
          status: 'ACTIVE',
        });
      for (let i = 0; i < 100; i++)
        registry.campaigns.push({
          campaignId: `CB${i}`,
          referenceId: `cb-${i}`,
          brandId: 'BB',
          status: 'ACTIVE',
        });
      // Unknown brand: every page of the account, matched client-side (cb-90 is the 191st record).
      expect((await client.findCampaignByReference('cb-90'))?.campaignId).toBe('CB90');
      // The create knows its brand: its lookup asks for that brand's campaigns only.
      listed.length = 0;
      const again = await client.createCampaign({
        referenceId: 'cb-85',
        brandId: 'BB',
        usecase: 'MARKETING',
        description: 'Weekly offers',
      } as Parameters<RegistryClient['createCampaign']>[0]);
      expect(again).toMatchObject({ campaignId: 'CB85', alreadyExisted: true });
      expect(listed.length).toBeGreaterThan(0);
      expect(listed.every((q) => q.get('brandId') === 'BB')).toBe(true);
    });
  },
);
