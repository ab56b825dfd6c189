/**
 * The CLI without a server: help, exit codes for usage errors, and validation of input files and
 * requests. A tripwire client fails the test if any command reaches Temporal when it must not.
 */
import type { Client } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { parseIngressCounters } from '../../src/cli/events.js';
import { buildListQuery } from '../../src/cli/list.js';
import { commands } from '../../src/cli/run.js';
import { brandOrder, tcr, tempDir, writeJson } from './support.js';

/** A client that records every use: the commands under test must refuse before touching it. */
function tripwireClient(): { client: Client; touched: string[] } {
  const touched: string[] = [];
  const client = new Proxy({} as Client, {
    get(_target, property) {
      touched.push(String(property));
      throw new Error(`Temporal client used: ${String(property)}`);
    },
  });
  return { client, touched };
}

describe('tcr help and usage errors', () => {
  it('tcr --help lists every command and exits 0', async () => {
    const run = await tcr(['--help']);
    expect(run.code).toBe(0);
    for (const name of [
      'brand',
      'campaign',
      'vet',
      'status',
      'list',
      'events',
      'worker',
      'dev',
      'ingress',
      'simulator',
    ])
      expect(run.stdout).toMatch(new RegExp(`^  ${name}\\s`, 'm'));
  });

  it('--help works on every command and subcommand without a server', async () => {
    const { client, touched } = tripwireClient();
    const lines: string[][] = [];
    for (const [name, command] of Object.entries(commands)) {
      if (['dev', 'ingress', 'simulator'].includes(name)) continue; // they print with console; their help is theirs
      lines.push([name, '--help']);
      const group = /Commands:\n([\s\S]*?)\n\n/.exec(command.help)?.[1];
      for (const sub of group?.matchAll(/^ {2}(\S+)/gm) ?? []) lines.push([name, sub[1]!, '--help']);
    }
    expect(lines.length).toBeGreaterThan(15);
    for (const argv of lines) {
      const run = await tcr(argv, { client });
      expect(run.code, argv.join(' ')).toBe(0);
      expect(run.stdout, argv.join(' ')).toMatch(/^tcr /);
    }
    expect(touched).toEqual([]);
  });

  it('exits 2 on no command, an unknown command, an unknown flag, a missing argument or a missing flag', async () => {
    const { client, touched } = tripwireClient();
    expect((await tcr([], { client })).code).toBe(2);
    const unknown = await tcr(['frobnicate'], { client });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown command 'frobnicate'");
    const sub = await tcr(['brand', 'frobnicate'], { client });
    expect(sub.code).toBe(2);
    const flag = await tcr(['list', '--bogus'], { client });
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain('--bogus');
    expect((await tcr(['status'], { client })).code).toBe(2);
    expect((await tcr(['brand', 'cancel', 'acme'], { client })).code).toBe(2); // --reason missing
    expect((await tcr(['vet', 'order', 'acme', '--evp', 'AEGIS'], { client })).code).toBe(2); // --class missing
    expect((await tcr(['list', '--kind', 'sms'], { client })).code).toBe(2);
    expect((await tcr(['list', '--limit', '0'], { client })).code).toBe(2);
    expect(touched).toEqual([]);
  });
});

describe('input validation (exit 3, nothing started)', () => {
  it('an invalid brand order file prints every field error, one per line, and exits 3', async () => {
    const dir = tempDir();
    const order = brandOrder('bad ref!', 'local', {
      entityType: 'PUBLIC_PROFIT',
      email: 'not-an-email',
      ein: undefined,
    });
    const file = writeJson(dir, 'bad-brand.json', order);
    const { client, touched } = tripwireClient();
    const run = await tcr(['brand', 'register', file], { client });
    expect(run.code).toBe(3);
    expect(run.stderr).toContain('nothing was started');
    const lines = run.stderr.split('\n').filter((l) => l.startsWith('  '));
    const paths = lines.map((l) => l.trim().split(':')[0]);
    // The reference, the e-mail, the missing EIN and the PUBLIC_PROFIT rules: all at once.
    expect(paths).toEqual(
      expect.arrayContaining([
        'reference',
        'brand.email',
        'brand.ein',
        'brand.stockSymbol',
        'brand.businessContactEmail',
      ]),
    );
    expect(lines.length).toBeGreaterThanOrEqual(5);
    expect(touched).toEqual([]);
  });

  it('reports the entity-type rules together with the missing basic fields', async () => {
    const dir = tempDir();
    const file = writeJson(dir, 'sparse.json', {
      reference: 'x',
      account: 'local',
      brand: { entityType: 'PRIVATE_PROFIT' },
    });
    const run = await tcr(['brand', 'register', file]);
    expect(run.code).toBe(3);
    for (const path of [
      'brand.displayName',
      'brand.country',
      'brand.email',
      'brand.companyName',
      'brand.ein',
    ])
      expect(run.stderr).toContain(`  ${path}: `);
  });

  it('malformed JSON and a missing file exit 3 naming the file', async () => {
    const dir = tempDir();
    const { client } = tripwireClient();
    const broken = await tcr(['brand', 'register', writeJson(dir, 'broken.json', '{"reference": ')], {
      client,
    });
    expect(broken.code).toBe(3);
    expect(broken.stderr).toContain('broken.json');
    expect(broken.stderr).toContain('not valid JSON');
    const missing = await tcr(['campaign', 'create', `${dir}/nope.json`], { client });
    expect(missing.code).toBe(3);
    expect(missing.stderr).toContain('ENOENT');
  });

  it('an invalid campaign order file lists every field error and exits 3', async () => {
    const dir = tempDir();
    const file = writeJson(dir, 'bad-campaign.json', {
      reference: 'camp-1',
      account: 'local',
      brandReference: '',
      campaign: { usecase: 'ACCOUNT_NOTIFICATION', subscriberOptin: 'yes' },
    });
    const { client, touched } = tripwireClient();
    const run = await tcr(['campaign', 'create', file, '--json'], { client });
    expect(run.code).toBe(3);
    for (const path of [
      'brandReference',
      'upstreamCnpId',
      'campaign.description',
      'campaign.subscriberOptin',
    ])
      expect(run.stderr).toContain(`  ${path}: `);
    expect(touched).toEqual([]);
  });

  it('operator requests are checked with the update schemas before anything is sent', async () => {
    const { client, touched } = tripwireClient();
    const vet = await tcr(['vet', 'order', 'acme', '--evp', 'AEGIS', '--class', 'PLATINUM'], { client });
    expect(vet.code).toBe(3);
    expect(vet.stderr).toContain('vettingClass');
    const correct = await tcr(['brand', 'correct', 'acme', '--set', 'email=nope'], { client });
    expect(correct.code).toBe(3);
    expect(correct.stderr).toContain('patch.email');
    const setJson = await tcr(['brand', 'correct', 'acme', '--set-json', 'email={'], { client });
    expect(setJson.code).toBe(2);
    expect(touched).toEqual([]);
  });
});

describe('tcr worker', () => {
  it('exits 2 naming the variable when the configuration is incomplete, without connecting', async () => {
    const run = await tcr(['worker'], { env: { TEMPORAL_ADDRESS: '127.0.0.1:1' } });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('TCR_ACCOUNTS');
    const secret = 'super-secret-value';
    const bad = await tcr(['worker'], {
      env: {
        TCR_ACCOUNTS: JSON.stringify([
          { name: 'x', environment: 'moon', baseUrl: 'http://127.0.0.1:1', apiKey: 'k', apiSecret: secret },
        ]),
      },
    });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('TCR_ACCOUNTS[0].environment');
    expect(bad.stderr).not.toContain(secret);
  });
});

describe('the package entry point (src/index.ts)', () => {
  it('exports the order-system API and no workflow functions', async () => {
    const api = await import('../../src/index.js');
    for (const name of [
      'startBrandOrder',
      'waitForBrandPhase',
      'getBrandStatus',
      'correctBrand',
      'appealBrand',
      'orderVet',
      'importVet',
      'cancelBrand',
      'acknowledgeBrandAction',
      'startCampaignOrder',
      'waitForCampaignPhase',
      'approveCampaignFee',
      'resubmitCampaign',
      'shareCampaignWith',
      'acknowledgeCampaignAction',
      'BrandOrderSchema',
      'CampaignOrderSchema',
      'parseBrandOrder',
      'OrderValidationError',
      'RegistryEventSchema',
      'brandWorkflowId',
      'campaignWorkflowId',
      'PhaseKey',
      'NeedsActionKey',
      'brandStatusQuery',
      'campaignStatusQuery',
    ])
      expect(api, name).toHaveProperty(name);
    expect(api).not.toHaveProperty('brandWorkflow');
    expect(api).not.toHaveProperty('campaignWorkflow');
    expect(() => api.parseBrandOrder(brandOrder('ok-1', 'local'))).not.toThrow();
  });
});

describe('pure parts', () => {
  it('builds visibility queries from the list filters and refuses values that would need quoting', () => {
    expect(buildListQuery({})).toBe("WorkflowType IN ('brandWorkflow', 'campaignWorkflow')");
    expect(
      buildListQuery({
        kind: 'brand',
        needsAction: true,
        phase: 'needs-correction',
        account: 'local',
        running: true,
      }),
    ).toBe(
      "WorkflowType = 'brandWorkflow' AND TcrNeedsAction = true AND TcrPhase = 'needs-correction' AND TcrAccount = 'local' AND ExecutionStatus = 'Running'",
    );
    expect(() => buildListQuery({ phase: "x' OR 1=1" })).toThrow(/phase/);
  });

  it('reads the ingress counters from Prometheus text, leaving histogram buckets out', () => {
    const counters = parseIngressCounters(
      [
        '# HELP tcr_ingress_events_received_total x',
        'tcr_ingress_events_received_total 7',
        'tcr_ingress_events_routed_total{target="brand",via="reference"} 5',
        'tcr_ingress_handoff_seconds_bucket{le="0.01"} 3',
        'tcr_ingress_handoff_seconds_count 5',
      ].join('\n'),
    );
    expect(counters).toEqual({
      tcr_ingress_events_received_total: 7,
      'tcr_ingress_events_routed_total{target="brand",via="reference"}': 5,
      tcr_ingress_handoff_seconds_count: 5,
    });
  });
});
