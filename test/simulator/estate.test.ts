/**
 * Issue 19, item 5: the simulator seeded with an existing estate (POST /control/seed) and its list
 * endpoints paging through it. No timing bounds: the figures are in bench/estate.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { SimulatorControlError } from '../../src/simulator/control-client.js';
import { SEEDED_BRAND_KINDS, SEEDED_CAMPAIGN_KINDS } from '../../src/simulator/estate-mix.js';
import { MAX_RECORDS_PER_PAGE } from '../../src/simulator/records.js';
import { tempDir } from '../support/temp-dir.js';
import { type Api, type Json, privateBrand, startApi } from './helpers.js';

const START = new Date('2026-06-01T12:00:00.000Z');
const apis: Api[] = [];

async function started(stateFile?: string): Promise<Api> {
  const api = await startApi({ now: () => START, ...(stateFile ? { stateFile } : {}) });
  apis.push(api);
  return api;
}

afterEach(async () => {
  await Promise.all(apis.splice(0).map((api) => api.close()));
});

/** Every record of a list endpoint, page by page; `between` runs after each page. */
async function pageAll(
  api: Api,
  path: string,
  recordsPerPage: number,
  between: () => Promise<void> = async () => {},
): Promise<{ records: Json[]; totals: number[] }> {
  const records: Json[] = [];
  const totals: number[] = [];
  const sep = path.includes('?') ? '&' : '?';
  for (let page = 1; ; page++) {
    const r = await api.call('GET', `${path}${sep}page=${page}&recordsPerPage=${recordsPerPage}`);
    expect(r.status).toBe(200);
    expect(r.body.page).toBe(page);
    totals.push(r.body.totalRecords);
    records.push(...r.body.records);
    if (r.body.records.length < recordsPerPage) return { records, totals };
    await between();
  }
}

const idOf = (r: Json): string => r.campaignId ?? r.brandId;

describe('seeding an existing estate', () => {
  test('the requested counts, every status, the same records for the same seed', async () => {
    const [a, b, c] = [await started(), await started(), await started()];
    const input = { brands: 60, campaignsPerBrand: 3, seed: 42 };
    const result = await a.control.seed(input);
    expect(result).toMatchObject({ cspId: 'CSPLOCAL', brands: 60, campaigns: 180, seed: 42 });
    for (const kind of SEEDED_BRAND_KINDS) expect(result.brandKinds[kind], kind).toBeGreaterThan(0);
    for (const kind of SEEDED_CAMPAIGN_KINDS) expect(result.campaignKinds[kind], kind).toBeGreaterThan(0);
    expect(Object.values(result.brandKinds).reduce((x, y) => x + y)).toBe(60);
    expect(Object.values(result.campaignKinds).reduce((x, y) => x + y)).toBe(180);

    const brands = (await pageAll(a, '/brand', 100)).records;
    const campaigns = (await pageAll(a, '/campaign', 100)).records;
    expect(brands).toHaveLength(60);
    expect(campaigns).toHaveLength(180);
    // The records say what the counts say.
    const count = <T>(list: T[], keep: (x: T) => boolean) => list.filter(keep).length;
    expect(count(brands, (x) => x.identityStatus === 'UNVERIFIED')).toBe(result.brandKinds.UNVERIFIED);
    expect(count(brands, (x) => x.identityStatus === 'SELF_DECLARED')).toBe(result.brandKinds.SELF_DECLARED);
    expect(count(brands, (x) => x.identityStatus === 'VETTED_VERIFIED')).toBe(
      result.brandKinds.VETTED_VERIFIED,
    );
    expect(count(brands, (x) => x.status === 'DELETED')).toBe(result.brandKinds.DELETED);
    expect(new Set(brands.map((x) => x.identityStatus))).toEqual(
      new Set(['SELF_DECLARED', 'UNVERIFIED', 'VERIFIED', 'VETTED_VERIFIED']),
    );
    expect(count(campaigns, (x) => x.status === 'EXPIRED')).toBeGreaterThanOrEqual(
      result.campaignKinds.EXPIRED,
    );
    expect(count(campaigns, (x) => Object.values(x.mnoOperationStatus as object).includes('SUSPENDED'))).toBe(
      result.campaignKinds.SUSPENDED,
    );
    for (const brand of brands) {
      const own = await a.call('GET', `/campaign?brandId=${brand.brandId}`);
      expect(own.body.totalRecords).toBe(3);
    }
    // Sharing and vets are there too.
    const sharing = new Map<string, number>();
    for (const campaign of campaigns) {
      const s = await a.call('GET', `/campaign/${campaign.campaignId}/sharing`);
      const status = s.body.sharedByMe?.sharingStatus ?? 'NONE';
      sharing.set(status, (sharing.get(status) ?? 0) + 1);
    }
    expect([...sharing.keys()].sort()).toEqual(['ACCEPTED', 'DECLINED', 'NONE', 'PENDING']);
    expect(sharing.get('DECLINED')).toBe(result.campaignKinds.REJECTED);
    const vetted = brands.find((x) => x.identityStatus === 'VETTED_VERIFIED');
    const vets = await a.call('GET', `/brand/${vetted.brandId}/externalVetting`);
    expect(JSON.stringify(vets.body)).toContain('"vettingStatus":"ACTIVE"');
    // Fake data only.
    expect(brands.every((x) => x.email.endsWith('.example'))).toBe(true);

    // The same seed on a fresh simulator: the same records, ids included. Another seed: other ones.
    expect(await b.control.seed(input)).toEqual(result);
    expect((await pageAll(b, '/brand', 100)).records).toEqual(brands);
    expect((await pageAll(b, '/campaign', 100)).records).toEqual(campaigns);
    await c.control.seed({ ...input, seed: 43 });
    expect((await pageAll(c, '/brand', 100)).records).not.toEqual(brands);
  });

  test('seeded records send no webhook and charge nothing; a new registration still does', async () => {
    const api = await started();
    await api.control.seed({ brands: 40, campaigns: 120, seed: 5 });
    expect(await api.control.deliveries()).toEqual([]);
    expect(await api.control.webhookQueue()).toEqual([]);
    expect(await api.control.ledger()).toEqual([]);
    const registered = await api.call('POST', '/brand/nonBlocking', privateBrand());
    expect(registered.status).toBe(200);
    const deliveries = await api.control.deliveries();
    expect(deliveries.length).toBeGreaterThan(0);
    expect(deliveries.every((d) => d.event.brandId === registered.body.brandId)).toBe(true);
  });

  test('bad seed requests are refused, naming the field', async () => {
    const api = await started();
    const refusal = async (body: unknown) => {
      const error = await api.control.seed(body as never).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SimulatorControlError);
      return error as SimulatorControlError;
    };
    const fieldsOf = (e: SimulatorControlError) => (e.body as Json[]).flatMap((i) => i.fields);
    const cases: [unknown, string][] = [
      [{}, 'brands'],
      [{ brands: -1 }, 'brands'],
      [{ brands: 1.5 }, 'brands'],
      [{ brands: '10' }, 'brands'],
      [{ brands: 200_001 }, 'brands'],
      [{ brands: 10, campaigns: -3 }, 'campaigns'],
      [{ brands: 10, campaignsPerBrand: 51 }, 'campaignsPerBrand'],
      [{ brands: 10, campaigns: 5, campaignsPerBrand: 2 }, 'campaignsPerBrand'],
      [{ brands: 0, campaigns: 5 }, 'brands'],
      [{ brands: 10, seed: -1 }, 'seed'],
      [{ brands: 10, seed: 'abc' }, 'seed'],
    ];
    for (const [body, field] of cases) {
      const e = await refusal(body);
      expect(e.status, JSON.stringify(body)).toBe(400);
      expect(fieldsOf(e), JSON.stringify(body)).toEqual([field]);
    }
    const unknown = await refusal({ cspId: 'NOSUCHCSP', brands: 1 });
    expect(unknown.status).toBe(404);
    expect(fieldsOf(unknown)).toEqual(['cspId']);
    // Nothing was seeded by any of them.
    expect((await api.call('GET', '/brand')).body.totalRecords).toBe(0);
  });
});

describe('a seeded estate over time', () => {
  test('a seed is used once per account; a reset forgets the estate and its indexes', async () => {
    const api = await started();
    await api.control.seed({ brands: 20, campaignsPerBrand: 2, seed: 8 });
    const again = await api.control.seed({ brands: 5, seed: 8 }).catch((e: unknown) => e);
    expect(again).toBeInstanceOf(SimulatorControlError);
    expect((again as SimulatorControlError).status).toBe(400);
    expect(((again as SimulatorControlError).body as Json[]).flatMap((i) => i.fields)).toEqual(['seed']);
    await api.control.seed({ brands: 5, campaignsPerBrand: 1, seed: 9 });
    expect((await api.call('GET', '/brand')).body.totalRecords).toBe(25);
    expect((await api.call('GET', '/campaign')).body.totalRecords).toBe(45);
    await api.control.reset();
    expect((await api.call('GET', '/brand')).body.totalRecords).toBe(0);
    expect((await api.call('GET', '/campaign')).body.totalRecords).toBe(0);
    const after = await api.control.seed({ brands: 4, campaignsPerBrand: 1, seed: 8 });
    const brands = (await pageAll(api, '/brand', 10)).records;
    expect(brands.map(idOf)).toEqual([
      after.firstBrandId,
      expect.any(String),
      expect.any(String),
      after.lastBrandId,
    ]);
    expect((await api.call('GET', `/campaign?brandId=${after.firstBrandId}`)).body.totalRecords).toBe(1);
  });

  test('kept in the state file: a restart lists the same records, and new ones come last', async () => {
    const dir = tempDir('tcr-estate-test-');
    try {
      const stateFile = join(dir, 'state.json');
      const first = await started(stateFile);
      await first.control.seed({ brands: 150, campaigns: 400, seed: 11 });
      const brands = (await pageAll(first, '/brand', 50)).records;
      const campaigns = (await pageAll(first, '/campaign', 50)).records;
      await first.close();
      const second = await started(stateFile);
      expect((await pageAll(second, '/brand', 50)).records).toEqual(brands);
      expect((await pageAll(second, '/campaign', 50)).records).toEqual(campaigns);
      const brandId = brands[3].brandId;
      const own = (await pageAll(second, `/campaign?brandId=${brandId}`, 50)).records;
      expect(own.map(idOf)).toEqual(campaigns.filter((c) => c.brandId === brandId).map(idOf));
      expect(await second.control.deliveries()).toEqual([]);
      const added = await second.call('POST', '/brand/nonBlocking', privateBrand());
      const after = (await pageAll(second, '/brand', 50)).records;
      expect(after.map(idOf)).toEqual([...brands.map(idOf), added.body.brandId]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('paging through the estate', () => {
  test('every record exactly once, in id order, while records are added between pages', async () => {
    const api = await started();
    await api.control.seed({ brands: 1234, campaigns: 3001, seed: 9 });
    let added = 0;
    const addBrand = async () => {
      const r = await api.call('POST', '/brand/nonBlocking', privateBrand({ displayName: `Added ${added}` }));
      expect(r.status).toBe(200);
      added += 1;
    };
    const brands = await pageAll(api, '/brand', 100, addBrand);
    const ids = brands.records.map(idOf);
    expect(new Set(ids).size).toBe(ids.length);
    // The seeded ones all came, and the ones added while paging came last (the last page reaches them).
    expect(ids.length).toBe(1234 + added);
    expect(brands.records.slice(0, 1234).every((b) => b.displayName.startsWith('Added') === false)).toBe(
      true,
    );
    expect(brands.totals[0]).toBe(1234);
    expect(brands.totals.at(-1)).toBe(1234 + added);

    const campaigns = await pageAll(api, '/campaign', MAX_RECORDS_PER_PAGE);
    const campaignIds = campaigns.records.map(idOf);
    expect(campaignIds).toHaveLength(3001);
    expect(new Set(campaignIds).size).toBe(3001);
    const sorted = [...campaignIds].sort((x, y) => x.length - y.length || (x < y ? -1 : 1));
    expect(campaignIds).toEqual(sorted);
  });

  test('filters page through exactly the matching records', async () => {
    const api = await started();
    await api.control.seed({ brands: 300, campaignsPerBrand: 4, seed: 3 });
    const all = (await pageAll(api, '/brand', 500)).records;
    for (const identityStatus of ['VERIFIED', 'UNVERIFIED', 'SELF_DECLARED', 'VETTED_VERIFIED']) {
      const filtered = await pageAll(api, `/brand?identityStatus=${identityStatus}`, 7);
      const expected = all.filter((b) => b.identityStatus === identityStatus).map(idOf);
      expect(filtered.records.map(idOf), identityStatus).toEqual(expected);
      expect(filtered.totals.every((t) => t === expected.length)).toBe(true);
    }
    const both = await pageAll(api, '/brand?identityStatus=VERIFIED&entityType=PRIVATE_PROFIT', 9);
    expect(both.records.map(idOf)).toEqual(
      all.filter((b) => b.identityStatus === 'VERIFIED' && b.entityType === 'PRIVATE_PROFIT').map(idOf),
    );
    const brandId = all[17].brandId;
    const own = await pageAll(api, `/campaign?brandId=${brandId}`, 3);
    expect(own.records).toHaveLength(4);
    expect(own.records.every((c) => c.brandId === brandId)).toBe(true);
    const expired = await pageAll(api, '/campaign?status=EXPIRED', 50);
    expect(expired.records.length).toBeGreaterThan(0);
    expect(expired.records.every((c) => c.status === 'EXPIRED')).toBe(true);
    const everyCampaign = (await pageAll(api, '/campaign', 500)).records;
    expect(expired.records.map(idOf)).toEqual(everyCampaign.filter((c) => c.status === 'EXPIRED').map(idOf));
  });

  test(`recordsPerPage above ${MAX_RECORDS_PER_PAGE} is refused with a 400 naming it`, async () => {
    const api = await started();
    await api.control.seed({ brands: 600, campaignsPerBrand: 1, seed: 1 });
    for (const path of ['/brand', '/campaign']) {
      const atMax = await api.call('GET', `${path}?recordsPerPage=${MAX_RECORDS_PER_PAGE}`);
      expect(atMax.status).toBe(200);
      expect(atMax.body.records).toHaveLength(MAX_RECORDS_PER_PAGE);
      for (const bad of [MAX_RECORDS_PER_PAGE + 1, 0, 'ten']) {
        const over = await api.call('GET', `${path}?recordsPerPage=${bad}`);
        expect(over.status, `${path} ${bad}`).toBe(400);
        expect(over.body.flatMap((i: Json) => i.fields)).toEqual(['recordsPerPage']);
      }
      const badPage = await api.call('GET', `${path}?page=0`);
      expect(badPage.status).toBe(400);
      expect(badPage.body.flatMap((i: Json) => i.fields)).toEqual(['page']);
    }
  });
});
