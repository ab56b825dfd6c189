/**
 * Issue 33: the simulator's page cap (`maxRecordsPerPage`, `--max-records-per-page`). The spec states no
 * page size limit, so a registry may answer a page smaller than asked: the effective page size is
 * min(asked, cap), `page` counts pages of that size, `totalRecords` stays the real count, and with a cap
 * an asked size above the simulator's own maximum is capped rather than refused.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { parseSimulatorArgs } from '../../src/simulator/cli.js';
import { startSimulator } from '../../src/simulator/index.js';
import { MAX_RECORDS_PER_PAGE } from '../../src/simulator/records.js';
import { type Api, type Json, startApi } from './helpers.js';

const START = new Date('2026-06-01T12:00:00.000Z');
const apis: Api[] = [];

async function started(maxRecordsPerPage?: number): Promise<Api> {
  const api = await startApi({ now: () => START, ...(maxRecordsPerPage ? { maxRecordsPerPage } : {}) });
  apis.push(api);
  return api;
}

afterEach(async () => {
  await Promise.all(apis.splice(0).map((api) => api.close()));
});

const idOf = (r: Json): string => r.campaignId ?? r.brandId;

async function page(api: Api, path: string, n: number, size: number | string) {
  const sep = path.includes('?') ? '&' : '?';
  const r = await api.call('GET', `${path}${sep}page=${n}&recordsPerPage=${size}`);
  expect(r.status, `${path} page ${n}`).toBe(200);
  return r.body as { page: number; totalRecords: number; records: Json[] };
}

describe('a page cap', () => {
  test('cap 40, 130 brands: asking 500 gives pages of 40, totalRecords 130, page 4 has 10', async () => {
    const api = await started(40);
    await api.control.seed({ brands: 130, campaignsPerBrand: 1, seed: 7 });
    const seen: string[] = [];
    for (const [n, length] of [
      [1, 40],
      [2, 40],
      [3, 40],
      [4, 10],
      [5, 0],
    ] as const) {
      const body = await page(api, '/brand', n, 500);
      expect(body.page).toBe(n);
      expect(body.totalRecords).toBe(130);
      expect(body.records, `page ${n}`).toHaveLength(length);
      seen.push(...body.records.map(idOf));
    }
    // Pages of the effective size: every brand once, in list order.
    expect(new Set(seen).size).toBe(130);
    const uncapped = await started();
    await uncapped.control.seed({ brands: 130, campaignsPerBrand: 1, seed: 7 });
    expect(seen).toEqual((await page(uncapped, '/brand', 1, 500)).records.map(idOf));
  });

  test('applies to every list: campaigns, a filtered list, the default size and sizes under the cap', async () => {
    const api = await started(40);
    await api.control.seed({ brands: 50, campaignsPerBrand: 2, seed: 7 });
    const campaigns = await page(api, '/campaign', 3, 100);
    expect(campaigns.totalRecords).toBe(100);
    expect(campaigns.records).toHaveLength(20);
    // Above the simulator's own maximum: capped, not refused.
    const huge = await page(api, '/campaign', 1, MAX_RECORDS_PER_PAGE + 1000);
    expect(huge.records).toHaveLength(40);
    const brandId = (await page(api, '/brand', 1, 1)).records[0].brandId;
    const own = await page(api, `/campaign?brandId=${brandId}`, 1, 500);
    expect(own.totalRecords).toBe(2);
    expect(own.records).toHaveLength(2);
    const verified = await page(api, '/brand?entityType=PRIVATE_PROFIT', 1, 500);
    expect(verified.records.length).toBeLessThanOrEqual(40);
    // Under the cap the asked size holds; the default stays 10.
    expect((await page(api, '/brand', 2, 15)).records).toHaveLength(15);
    const byDefault = await api.call('GET', '/brand');
    expect(byDefault.body.records).toHaveLength(10);
    // Nonsense is still refused.
    for (const bad of [0, 'ten']) {
      const r = await api.call('GET', `/brand?recordsPerPage=${bad}`);
      expect(r.status).toBe(400);
      expect(r.body.flatMap((i: Json) => i.fields)).toEqual(['recordsPerPage']);
    }
  });

  test('without a cap, above the maximum is refused as before', async () => {
    const api = await started();
    const r = await api.call('GET', `/brand?recordsPerPage=${MAX_RECORDS_PER_PAGE + 1}`);
    expect(r.status).toBe(400);
  });
});

describe('setting the cap', () => {
  test('tcr simulator --max-records-per-page N (and --strict); a cap that is not a positive integer is refused', async () => {
    expect(parseSimulatorArgs(['--max-records-per-page', '40', '--strict'])).toMatchObject({
      maxRecordsPerPage: 40,
      strict: true,
    });
    const plain = parseSimulatorArgs([]);
    expect(plain).not.toHaveProperty('maxRecordsPerPage');
    expect(plain).not.toHaveProperty('strict');
    for (const bad of ['0', '-3', '2.5', 'ten'])
      expect(() => parseSimulatorArgs([`--max-records-per-page=${bad}`])).toThrow(
        /--max-records-per-page must be a positive integer/,
      );
    await expect(startSimulator({ maxRecordsPerPage: 0 })).rejects.toThrow(/maxRecordsPerPage/);
  });
});
