/**
 * `tcr accounts check` and `tcr webhooks subscribe | list | unsubscribe` against the simulator, run
 * in-process through the command table with their own environment: the check fails before the
 * subscriptions exist and passes after; subscribing twice changes nothing; the secrets land in a
 * private file the ingress accepts; a wrong API secret is named as the problem and never printed.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { parseIngressConfig } from '../../src/ingress/config.js';
import { type RunningSimulator, startSimulator } from '../../src/simulator/index.js';
import { tempDir } from '../support/temp-dir.js';

const API_KEY = 'golive-api-key-0123456789';
const API_SECRET = 'golive-api-secret-0123456789';
const HOOK = 'https://hooks.csp.example/webhooks/registry';

let sim: RunningSimulator;
let dir: string;
let secretsFile: string;

beforeAll(async () => {
  sim = await startSimulator({
    port: 0,
    accounts: [{ cspId: 'CSPGOLIVE', apiKey: API_KEY, apiSecret: API_SECRET }],
    rateLimits: false,
  });
  dir = tempDir('tcr-golive-');
  secretsFile = join(dir, 'webhook-secrets');
});
afterAll(() => sim?.close());

function env(overrides: Record<string, unknown> = {}): Record<string, string> {
  return {
    TCR_ACCOUNTS: JSON.stringify([
      {
        name: 'acme',
        environment: 'local',
        baseUrl: sim.url,
        apiKey: API_KEY,
        apiSecret: API_SECRET,
        ...overrides,
      },
    ]),
    TCR_WEBHOOK_URL: HOOK,
    TCR_WEBHOOK_SECRETS_FILE: secretsFile,
  };
}

async function tcr(argv: string[], environment = env()) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, {
    io: { out: (t) => out.push(t), err: (t) => err.push(t) },
    env: environment,
  });
  const text = [...out, ...err].join('\n');
  return { code, out: out.join('\n'), err: err.join('\n'), text };
}

describe('going live against the simulator', () => {
  it('accounts check names the missing subscriptions before they exist', async () => {
    const { code, out } = await tcr(['accounts', 'check']);
    expect(code).toBe(1);
    expect(out).toContain('credentials  ok');
    expect(out).toMatch(/webhooks\s+PROBLEM: not subscribed: BRAND, VETTING, CAMPAIGN, CAMPAIGN_SHARING/);
    expect(out).toContain(`tcr webhooks subscribe --account acme --url ${HOOK}`);
  });

  it('webhooks subscribe stores a secret per category in a private file, and is idempotent', async () => {
    const first = await tcr(['webhooks', 'subscribe', '--account', 'acme', '--url', HOOK]);
    expect(first.code).toBe(0);
    expect(first.out.match(/subscribed/g)).toHaveLength(4);
    expect(statSync(secretsFile).mode & 0o777).toBe(0o600);
    const text = readFileSync(secretsFile, 'utf8');
    for (const category of ['BRAND', 'VETTING', 'CAMPAIGN', 'CAMPAIGN_SHARING'])
      expect(text).toContain(`# account=acme category=${category}\n`);
    const secrets = text.split('\n').filter((l) => l && !l.startsWith('#'));
    expect(secrets).toHaveLength(4);
    for (const s of secrets) expect(first.text).not.toContain(s);

    const again = await tcr(['webhooks', 'subscribe', '--account', 'acme', '--url', HOOK, '--json']);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.out).categories.map((c: { outcome: string }) => c.outcome)).toEqual([
      'unchanged',
      'unchanged',
      'unchanged',
      'unchanged',
    ]);
    expect(readFileSync(secretsFile, 'utf8')).toBe(text);

    // The ingress accepts every category's secret from the file.
    const ingress = parseIngressConfig({ TCR_WEBHOOK_URL: HOOK, TCR_WEBHOOK_SECRETS_FILE: secretsFile });
    expect(new Set(ingress.secrets)).toEqual(new Set(secrets));
  });

  it('accounts check passes, and lists the budget and the clock', async () => {
    const { code, out } = await tcr(['accounts', 'check']);
    expect(code).toBe(0);
    expect(out).toMatch(/^acme \(local, .*\): OK$/m);
    expect(out).toMatch(/rate budget +20 GET\/s, 20 writes per 10 s/);
    expect(out).toMatch(
      /webhooks +ok: 4\/4 categories → https:\/\/hooks\.csp\.example\/webhooks\/registry, secrets stored/,
    );
    expect(out).toMatch(/clock +ok: the registry's clock is [+-]\d+ s from ours/);
    expect(out).toMatch(/^OK: 1 account checked$/m);
  });

  it('a wrong API secret: the check names the problem, exits 1, and never prints the secret', async () => {
    const wrong = 'wrong-secret-never-print-me';
    const { code, text } = await tcr(['accounts', 'check', '--json'], env({ apiSecret: wrong }));
    expect(code).toBe(1);
    const report = JSON.parse(text.slice(text.indexOf('{')));
    expect(report.ok).toBe(false);
    expect(report.accounts[0].checks[0]).toMatchObject({ check: 'credentials', status: 'problem' });
    expect(report.accounts[0].checks[0].detail).toMatch(
      /rejected the credentials \(401\): check apiKey and apiSecret of account acme/,
    );
    expect(text).not.toContain(wrong);
    expect(text).not.toContain(API_KEY);
  });

  it('a URL pointing elsewhere is a problem', async () => {
    const { code, out } = await tcr(['accounts', 'check', '--webhook-url', 'https://other.example/hook']);
    expect(code).toBe(1);
    expect(out).toMatch(/pointing elsewhere: BRAND → https:\/\/hooks\.csp\.example/);
  });

  it('webhooks list and unsubscribe (idempotent), which also drops the stored secret', async () => {
    const listed = await tcr(['webhooks', 'list']);
    expect(listed.out.split('\n')).toHaveLength(4);
    expect(listed.out).toContain(`acme BRAND            → ${HOOK} (secret stored)`);
    const removed = await tcr(['webhooks', 'unsubscribe', '--account', 'acme', '--category', 'BRAND']);
    expect(removed).toMatchObject({ code: 0, out: 'acme BRAND            removed' });
    expect(readFileSync(secretsFile, 'utf8')).not.toContain('category=BRAND\n');
    const again = await tcr(['webhooks', 'unsubscribe', '--account', 'acme', '--category', 'BRAND']);
    expect(again).toMatchObject({ code: 0, out: 'acme BRAND            not subscribed' });
    expect((await tcr(['accounts', 'check'])).code).toBe(1);
  });

  it('refuses an unknown account and a subscribe without a secrets file, before calling the registry', async () => {
    expect((await tcr(['webhooks', 'subscribe', '--account', 'nobody', '--url', HOOK])).code).toBe(2);
    const { TCR_WEBHOOK_SECRETS_FILE: _, ...noFile } = env();
    const res = await tcr(['webhooks', 'subscribe', '--account', 'acme', '--url', HOOK], noFile);
    expect(res.code).toBe(2);
    expect(res.text).toContain('--secrets-file or TCR_WEBHOOK_SECRETS_FILE is required');
  });
});
