import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getBrandStatus } from '../../src/orders/brand-client.js';
import { getCampaignStatus } from '../../src/orders/campaign-orders.js';
import {
  formatChange,
  type LocalStack,
  type ProgressChange,
  startLocalStack,
} from '../../src/stack/index.js';
import { projectRoot } from '../../src/toolchain/paths.js';
import { workflowsPath } from '../../src/workers/create-workers.js';
import { workflowBundle } from '../support/temporal-env.js';
import { dumpDom, findChromium, screenshot } from './chromium.js';

// The whole local stack on free ports with a temporary data folder, the simulator at 3600x (a vet
// decision, an hour, in one second). One stack at a time: starting it costs a dev server and a bundle.
const dataDir = mkdtempSync(join(tmpdir(), 'tcr-stack-'));
const changes: ProgressChange[] = [];
let stack: LocalStack | undefined;

async function start(): Promise<LocalStack> {
  return startLocalStack({
    dataDir,
    temporalPort: 0,
    uiPort: 0,
    simulatorPort: 0,
    ingressPort: 0,
    timeScale: 3600,
    workflowBundle: await workflowBundle(workflowsPath),
    onProgress: (change) => changes.push(change),
  });
}

const brandEndStates: Record<string, string> = {
  'acme-widgets': 'ready',
  'globex-public': 'ready',
  'riverside-food-bank': 'ready',
  'jane-doe-tutoring': 'ready',
  'initech-unverified': 'needs-correction',
};
const campaignEndStates: Record<string, string> = {
  'acme-account-notifications': 'running',
  'globex-delivery-updates': 'running',
  'riverside-volunteer-alerts': 'share-declined',
  'acme-marketing': 'awaiting-fee-approval',
};

async function phases(s: LocalStack): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const ref of Object.keys(brandEndStates))
    out[`brand/${ref}`] = await getBrandStatus(s.client, ref).then(
      (x) => x.phase,
      () => 'unknown',
    );
  for (const ref of Object.keys(campaignEndStates))
    out[`campaign/${ref}`] = await getCampaignStatus(s.client, ref).then(
      (x) => x.phase,
      () => 'unknown',
    );
  return out;
}

const expected = {
  ...Object.fromEntries(Object.entries(brandEndStates).map(([r, p]) => [`brand/${r}`, p])),
  ...Object.fromEntries(Object.entries(campaignEndStates).map(([r, p]) => [`campaign/${r}`, p])),
};

async function waitForEndStates(s: LocalStack, timeoutMs: number): Promise<Record<string, string>> {
  const deadline = Date.now() + timeoutMs;
  let last: Record<string, string> = {};
  while (Date.now() < deadline) {
    last = await phases(s);
    if (JSON.stringify(last) === JSON.stringify(expected)) return last;
    await new Promise((r) => setTimeout(r, 1_000));
  }
  return last;
}

beforeAll(async () => {
  stack = await start();
}, 180_000);

afterAll(async () => {
  await stack?.stop();
  rmSync(dataDir, { recursive: true, force: true });
}, 60_000);

describe('the local stack', () => {
  it('submits the examples and they reach their end states through the simulator and the ingress', async () => {
    const s = stack!;
    // Brands and campaigns are submitted before startLocalStack returns; the vet once its brand is ready.
    expect(s.examples?.submitted).toHaveLength(9);
    expect(s.examples?.alreadySubmitted).toEqual([]);
    await s.examples?.done;
    expect(s.examples?.submitted).toHaveLength(10);
    expect(await waitForEndStates(s, 120_000)).toEqual(expected);

    const acme = await getBrandStatus(s.client, 'acme-widgets');
    expect(acme.identityStatus).toBe('VETTED_VERIFIED');
    expect(acme.vets.map((v) => [v.evpId, v.state])).toEqual([['AEGIS', 'active']]);
    const initech = await getBrandStatus(s.client, 'initech-unverified');
    expect(initech.needsAction.map((a) => a.key)).toContain('identity');
    const declined = await getCampaignStatus(s.client, 'riverside-volunteer-alerts');
    expect(declined.needsAction.map((a) => a.key)).toContain('share-declined');
    const fee = await getCampaignStatus(s.client, 'acme-marketing');
    expect(fee.needsAction.map((a) => a.key)).toContain('fee-approval');
    expect(fee.created).toBe(false);

    // The simulator's webhooks reached the ingress, signed with the stack's secret, and were accepted.
    const deliveries = await s.control.deliveries();
    expect(deliveries.filter((d) => d.outcome === 'DELIVERED').length).toBeGreaterThan(10);
    expect(deliveries.filter((d) => d.status === 401)).toEqual([]);

    // The progress watcher reported phase changes as lines (it polls every second, so the last
    // transition can reach it a round after the test saw the end states).
    const findRunning = () =>
      changes.find((c) => c.workflowId === 'campaign/acme-account-notifications' && c.to.phase === 'running');
    for (let wait = 0; wait < 100 && !findRunning(); wait++) await new Promise((r) => setTimeout(r, 100));
    const running = findRunning();
    expect(running?.to.phase).toBe('running');
    expect(formatChange(running!)).toMatch(/campaign\/acme-account-notifications\s+\S+ → running/);
    const needs = changes.find(
      (c) => c.workflowId === 'brand/initech-unverified' && c.to.needsAction.length > 0,
    );
    expect(needs?.workflowId).toBe('brand/initech-unverified');
    expect(formatChange(needs!)).toMatch(/NEEDS ACTION identity/);
    expect(JSON.parse(readFileSync(join(dataDir, 'examples-submitted.json'), 'utf8')).submitted).toHaveLength(
      10,
    );
    expect((statSync(join(dataDir, 'webhook-secret')).mode & 0o777).toString(8)).toBe('600');
  }, 180_000);

  it('stops cleanly and resumes from the same data without resubmitting the examples', async () => {
    const before = stack!;
    const ledgerBefore = await before.control.ledger();
    const countBefore = (await before.client.workflow.count()).count;
    await before.stop();
    stack = undefined;
    await expect(fetch(before.urls.ingressHealth)).rejects.toThrow();

    stack = await start();
    expect(stack.examples?.submitted).toEqual([]);
    expect(stack.examples?.alreadySubmitted).toHaveLength(10);
    expect(await waitForEndStates(stack, 60_000)).toEqual(expected);
    expect((await stack.client.workflow.count()).count).toBe(countBefore);
    expect(await stack.control.ledger()).toEqual(ledgerBefore);
  }, 240_000);

  const chromium = findChromium();
  const missing = chromium === undefined && !process.env.CI;
  it.skipIf(missing)(
    `the Web UI lists the workflows in headless Chromium${missing ? ' (skipped: chromium is not installed and CI is not set; run scripts/setup-browser.sh)' : ''}`,
    async () => {
      if (!chromium)
        throw new Error('chromium is not installed (CI is set, so this fails): run scripts/setup-browser.sh');
      const s = stack!;
      const url = `${s.urls.webUi}/namespaces/${s.urls.namespace}/workflows`;
      const profile = mkdtempSync(join(tmpdir(), 'tcr-chromium-'));
      try {
        const dom = await dumpDom(chromium, profile, url);
        for (const id of [
          'brand/acme-widgets',
          'campaign/acme-account-notifications',
          'campaign/riverside-volunteer-alerts',
        ])
          expect(dom).toContain(id);
        const dir = join(projectRoot, 'test-results');
        mkdirSync(dir, { recursive: true });
        const file = join(dir, 'web-ui-workflows.png');
        rmSync(file, { force: true });
        await screenshot(chromium, profile, url, file);
        const png = readFileSync(file);
        expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
        expect(png.length).toBeGreaterThan(20_000);
      } finally {
        rmSync(profile, { recursive: true, force: true });
      }
    },
    180_000,
  );
});
