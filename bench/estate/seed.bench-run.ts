/**
 * The simulator at estate scale (issue 19, item 5): seeds 20,000 brands and 80,000 campaigns through
 * POST /control/seed, pages through every brand and campaign (at the maximum recordsPerPage and at the
 * registry client's default of 100), times a few filtered pages, and measures the state file: its size,
 * the write after the seed, one forced write at close, and a restart that loads it. The simulator runs in this process, so its memory is the
 * process's RSS after seeding minus before (both printed). Figures, not assertions on time.
 *   nice -n 19 npx vitest run --config bench/estate/vitest.config.ts   # ~1 min; bench/estate/results.<time>.json
 * ESTATE_BRANDS / ESTATE_CAMPAIGNS change the size.
 */
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { SimulatorControl } from '../../src/simulator/control-client.js';
import { DEFAULT_ACCOUNT, startSimulator } from '../../src/simulator/index.js';
import { MAX_RECORDS_PER_PAGE } from '../../src/simulator/records.js';
import { writeResults } from '../support/results.js';

const BRANDS = Number(process.env.ESTATE_BRANDS ?? 20_000);
const CAMPAIGNS = Number(process.env.ESTATE_CAMPAIGNS ?? 80_000);
const auth = `Basic ${Buffer.from(`${DEFAULT_ACCOUNT.apiKey}:${DEFAULT_ACCOUNT.apiSecret}`).toString('base64')}`;
const mb = (bytes: number) => Math.round((bytes / 1_048_576) * 10) / 10;
const round = (ms: number) => Math.round(ms * 100) / 100;

function stats(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return {
    pages: samples.length,
    meanMs: round(samples.reduce((a, b) => a + b, 0) / samples.length),
    p50Ms: round(at(0.5)),
    p99Ms: round(at(0.99)),
    maxMs: round(sorted.at(-1)!),
  };
}

async function get(
  base: string,
  path: string,
): Promise<{ ms: number; body: { totalRecords: number; records: unknown[] } }> {
  const started = performance.now();
  const response = await fetch(`${base}${path}`, { headers: { authorization: auth } });
  const body = (await response.json()) as { totalRecords: number; records: unknown[] };
  const ms = performance.now() - started;
  if (response.status !== 200) throw new Error(`${path}: ${response.status} ${JSON.stringify(body)}`);
  return { ms, body };
}

/** Pages through a whole list; every record once, and the time of each page (request to parsed body). */
async function pageThrough(base: string, path: string, recordsPerPage: number, expected: number) {
  const times: number[] = [];
  let seen = 0;
  for (let page = 1; ; page++) {
    const { ms, body } = await get(base, `${path}?page=${page}&recordsPerPage=${recordsPerPage}`);
    times.push(ms);
    seen += body.records.length;
    if (body.records.length < recordsPerPage) break;
  }
  expect(seen).toBe(expected);
  return { recordsPerPage, ...stats(times) };
}

it(`seeds ${BRANDS} brands and ${CAMPAIGNS} campaigns and pages through them`, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tcr-estate-'));
  const stateFile = join(dir, 'state.json');
  const loadAtStart = loadavg()[0];
  try {
    global.gc?.();
    const rssBefore = process.memoryUsage().rss;
    const sim = await startSimulator({ rateLimits: false, stateFile });
    const control = new SimulatorControl(sim.url);
    const seedStarted = performance.now();
    const seeded = await control.seed({ brands: BRANDS, campaigns: CAMPAIGNS, seed: 19 });
    const seedMs = performance.now() - seedStarted;
    expect(seeded.brands + seeded.campaigns).toBe(BRANDS + CAMPAIGNS);
    const rssSeeded = process.memoryUsage().rss;
    const heapSeeded = process.memoryUsage().heapUsed;
    // The write the seed scheduled runs on the simulator's (this process's) event loop: wait for it, so
    // the pages below time paging, and this times the write.
    const writeWaitStarted = performance.now();
    while (!existsSync(stateFile)) await new Promise((resolve) => setTimeout(resolve, 10));
    const firstWriteMs = performance.now() - writeWaitStarted;

    const paging = {
      brandsAtMax: await pageThrough(sim.apiBaseUrl, '/brand', MAX_RECORDS_PER_PAGE, BRANDS),
      campaignsAtMax: await pageThrough(sim.apiBaseUrl, '/campaign', MAX_RECORDS_PER_PAGE, CAMPAIGNS),
      brandsAt100: await pageThrough(sim.apiBaseUrl, '/brand', 100, BRANDS),
      campaignsAt100: await pageThrough(sim.apiBaseUrl, '/campaign', 100, CAMPAIGNS),
    };
    const lastBrandPage = Math.ceil(BRANDS / 100);
    const filtered: Record<string, number> = {};
    for (const path of [
      `/brand?page=${lastBrandPage}&recordsPerPage=100`,
      '/brand?identityStatus=UNVERIFIED&recordsPerPage=100',
      '/brand?identityStatus=VERIFIED&entityType=PRIVATE_PROFIT&page=20&recordsPerPage=100',
      `/campaign?brandId=${seeded.lastBrandId}&recordsPerPage=100`,
      '/campaign?status=EXPIRED&page=50&recordsPerPage=100',
    ]) {
      const times: number[] = [];
      for (let i = 0; i < 20; i++) times.push((await get(sim.apiBaseUrl, path)).ms);
      filtered[path] = stats(times).p50Ms;
    }
    const rssAfterPaging = process.memoryUsage().rss;

    // The state file: the write the seed scheduled, then one forced write at close.
    const closeStarted = performance.now();
    await sim.close();
    const closeMs = performance.now() - closeStarted;
    const stateFileBytes = statSync(stateFile).size;
    const reloadStarted = performance.now();
    const again = await startSimulator({ rateLimits: false, stateFile });
    const reloadMs = performance.now() - reloadStarted;
    const firstPage = await get(again.apiBaseUrl, `/campaign?page=2&recordsPerPage=100`);
    const reloadFirstPageMs = performance.now() - reloadStarted;
    expect(firstPage.body.totalRecords).toBe(CAMPAIGNS);
    await again.close();

    const results = {
      when: new Date().toISOString(),
      loadAverageAtStart: Math.round(loadAtStart! * 10) / 10,
      brands: BRANDS,
      campaigns: CAMPAIGNS,
      vets: seeded.vets,
      brandKinds: seeded.brandKinds,
      campaignKinds: seeded.campaignKinds,
      seedMs: Math.round(seedMs),
      rssMb: { before: mb(rssBefore), seeded: mb(rssSeeded), afterPaging: mb(rssAfterPaging) },
      simulatorRssMb: mb(rssSeeded - rssBefore),
      heapUsedSeededMb: mb(heapSeeded),
      paging,
      filteredPageP50Ms: filtered,
      stateFile: {
        bytes: stateFileBytes,
        mb: mb(stateFileBytes),
        firstWriteAfterSeedMs: Math.round(firstWriteMs),
        closeWithWriteMs: Math.round(closeMs),
        reloadMs: Math.round(reloadMs),
        reloadToFirstPageMs: Math.round(reloadFirstPageMs),
      },
    };
    console.log(JSON.stringify(results, null, 2));
    writeResults(new URL('./results.json', import.meta.url), results);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
