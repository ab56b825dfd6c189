import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, describeWorkerConfig, loadWorkerConfig } from '../../src/config/worker-config.js';
import { tempDir } from '../support/temp-dir.js';

const SECRET = 'sekret-Zq9-never-print-me';
const API_KEY = 'key-Zq9-never-print-me';
const TEMPORAL_KEY = 'tcld-Zq9-never-print-me';

const account = (overrides: Record<string, unknown> = {}) => ({
  name: 'acme',
  environment: 'local',
  baseUrl: 'http://127.0.0.1:8480',
  apiKey: API_KEY,
  apiSecret: SECRET,
  ...overrides,
});

function problemsOf(env: Record<string, string | undefined>): string[] {
  try {
    loadWorkerConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    const e = error as ConfigError;
    for (const secret of [SECRET, API_KEY, TEMPORAL_KEY]) expect(e.message).not.toContain(secret);
    return e.problems;
  }
  throw new Error('expected a ConfigError');
}

describe('loadWorkerConfig', () => {
  it('reads defaults, accounts and Temporal Cloud settings', () => {
    const config = loadWorkerConfig({
      TCR_ACCOUNTS: JSON.stringify([
        account(),
        account({ name: 'beta', environment: 'qa', baseUrl: 'https://api.qa-registry.example/v2' }),
      ]),
      TCR_REGISTRY_QA_HOSTS: 'api.qa-registry.example',
      TEMPORAL_API_KEY: TEMPORAL_KEY,
      TEMPORAL_ADDRESS: 'ns.acct.tmprl.cloud:7233',
      TEMPORAL_NAMESPACE: 'ns.acct',
      TEMPORAL_CONFIG_FILE: '/nonexistent/temporal.toml',
    });
    expect(config.temporal).toEqual({
      address: 'ns.acct.tmprl.cloud:7233',
      namespace: 'ns.acct',
      apiKey: TEMPORAL_KEY,
      tls: true,
    });
    expect(config.accounts.map((a) => a.name)).toEqual(['acme', 'beta']);
    const local = loadWorkerConfig({
      TCR_ACCOUNTS: JSON.stringify([account()]),
      TEMPORAL_CONFIG_FILE: '/nonexistent/temporal.toml',
    });
    expect(local.temporal).toEqual({ address: '127.0.0.1:7233', namespace: 'default' });
  });

  it('reads accounts from TCR_ACCOUNTS_FILE, and names the variable when the file is missing', () => {
    const dir = tempDir('tcr-config-');
    const file = join(dir, 'accounts.json');
    writeFileSync(file, JSON.stringify([account()]), { mode: 0o600 });
    expect(loadWorkerConfig({ TCR_ACCOUNTS_FILE: file }).accounts[0]?.name).toBe('acme');
    const [problem] = problemsOf({ TCR_ACCOUNTS_FILE: join(dir, 'absent.json') });
    expect(problem).toMatch(/^TCR_ACCOUNTS_FILE .*: cannot read the file \(ENOENT\)/);
    writeFileSync(file, `[{"apiSecret": "${SECRET}",`);
    expect(problemsOf({ TCR_ACCOUNTS_FILE: file })[0]).toMatch(/TCR_ACCOUNTS_FILE .*: not valid JSON/);
  });

  it('names the variable of every problem at once', () => {
    const problems = problemsOf({
      TEMPORAL_ADDRESS: 'no-port',
      TEMPORAL_TLS_CERT: '/etc/cert.pem',
    });
    expect(problems).toEqual([
      'TEMPORAL_ADDRESS: expected host:port',
      expect.stringMatching(/^TEMPORAL_TLS_CERT \/ TEMPORAL_TLS_KEY: set both/),
      expect.stringMatching(/^TCR_ACCOUNTS or TCR_ACCOUNTS_FILE: required/),
    ]);
  });

  it('names the account field at fault, never its value', () => {
    const problems = problemsOf({
      TCR_ACCOUNTS: JSON.stringify([
        account({ apiSecret: '' }),
        account({ name: 'acme', baseUrl: SECRET, environment: API_KEY }),
        { name: 'bad name!', apiSecret: SECRET },
      ]),
    });
    // Each problem names the variable, the field and (where it has a valid name) the account.
    expect(problems).toContainEqual(
      expect.stringMatching(/^TCR_ACCOUNTS\[0\]\.apiSecret \(account acme\): /),
    );
    const fields = problems.map((p) => p.split(':')[0]?.replace(/ \(account [^)]*\)$/, ''));
    expect(fields).toEqual(
      expect.arrayContaining([
        'TCR_ACCOUNTS[0].apiSecret',
        'TCR_ACCOUNTS[1].baseUrl',
        'TCR_ACCOUNTS[1].environment',
        'TCR_ACCOUNTS[2].name',
        'TCR_ACCOUNTS[2].apiKey',
        'TCR_ACCOUNTS[2].baseUrl',
      ]),
    );
    for (const p of problems) for (const s of [SECRET, API_KEY]) expect(p).not.toContain(s);
  });

  it('refuses duplicate account names, an empty list and JSON that is not JSON (without echoing it)', () => {
    expect(problemsOf({ TCR_ACCOUNTS: JSON.stringify([account(), account()]) })).toEqual([
      expect.stringMatching(/^TCR_ACCOUNTS\[1\]\.name \(account acme\): duplicate account name acme/),
    ]);
    expect(problemsOf({ TCR_ACCOUNTS: '[]' })[0]).toMatch(/^TCR_ACCOUNTS: at least one CSP account/);
    expect(problemsOf({ TCR_ACCOUNTS: `[{"apiSecret":"${SECRET}"` })).toEqual([
      'TCR_ACCOUNTS: not valid JSON (expected an array of accounts)',
    ]);
  });

  it("reads an account's own rate budget and the workflow cache size, and names the field at fault", () => {
    const config = loadWorkerConfig({
      TCR_ACCOUNTS: JSON.stringify([account({ rateLimits: { getsPerSecond: 50, writesPer10Seconds: 100 } })]),
      TCR_WORKER_MAX_CACHED_WORKFLOWS: '500',
    });
    expect(config.accounts[0]?.rateLimits).toEqual({ getsPerSecond: 50, writesPer10Seconds: 100 });
    expect(config.maxCachedWorkflows).toBe(500);
    const defaults = loadWorkerConfig({ TCR_ACCOUNTS: JSON.stringify([account()]) });
    expect(defaults.accounts[0]?.rateLimits).toBeUndefined();
    expect(defaults.maxCachedWorkflows).toBeUndefined();

    const problems = problemsOf({
      TCR_ACCOUNTS: JSON.stringify([
        account({ rateLimits: { getsPerSecond: 0, writesPer10Seconds: 20 } }),
        account({ name: 'beta', rateLimits: { getsPerSecond: 20, writesPerSecond: 2 } }),
        account({ name: 'gamma', rateLimits: { getsPerSecond: 20, writesPer10Seconds: 5_000 } }),
      ]),
      TCR_WORKER_MAX_CACHED_WORKFLOWS: 'lots',
    });
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^TCR_ACCOUNTS\[0\]\.rateLimits\.getsPerSecond \(account acme\): /),
        expect.stringMatching(/^TCR_ACCOUNTS\[1\]\.rateLimits\.writesPer10Seconds \(account beta\): /),
        expect.stringMatching(/^TCR_ACCOUNTS\[1\]\.rateLimits \(account beta\): .*writesPerSecond/),
        // More than the write budget can hold: refused here, not by every write at run time.
        expect.stringMatching(
          /^TCR_ACCOUNTS\[2\]\.rateLimits\.writesPer10Seconds \(account gamma\): .*at most 1000/,
        ),
        'TCR_WORKER_MAX_CACHED_WORKFLOWS: expected a whole number of at least 2',
      ]),
    );
  });

  it('describeWorkerConfig redacts every secret', () => {
    const config = loadWorkerConfig({
      TCR_ACCOUNTS: JSON.stringify([account()]),
      TEMPORAL_API_KEY: TEMPORAL_KEY,
    });
    const described = JSON.stringify(describeWorkerConfig(config));
    for (const secret of [SECRET, API_KEY, TEMPORAL_KEY]) expect(described).not.toContain(secret);
    expect(described).toContain('[redacted]');
    expect(described).toContain('http://127.0.0.1:8480');
  });
});
