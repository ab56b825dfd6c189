/**
 * Going live: the one account configuration the worker and `tcr` share (src/config/accounts.ts).
 * Remote accounts are accepted with their hosts configured (per account or per environment) and
 * refused at start otherwise, naming the account, the field and the fix; the accounts file must be
 * private; TCR_REGISTRY_TIMEOUT_MS reaches the clients the worker makes.
 */
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { ConfigError, loadWorkerConfig } from '../../src/config/worker-config.js';
import { closeRegistryClients } from '../../src/registry/client.js';
import { RegistryTimeoutError } from '../../src/registry/errors.js';
import { projectRoot } from '../../src/toolchain/paths.js';
import { createWorkers, registryResolver } from '../../src/workers/create-workers.js';
import { tempDir } from '../support/temp-dir.js';

const API_KEY = 'key-Zq9-never-print-me';
const SECRET = 'sekret-Zq9-never-print-me';
const NO_TOML = { TEMPORAL_CONFIG_FILE: '/nonexistent/temporal.toml' };

const production = (overrides: Record<string, unknown> = {}) => ({
  name: 'acme',
  environment: 'production',
  baseUrl: 'https://api.registry.example/v2',
  apiKey: API_KEY,
  apiSecret: SECRET,
  ...overrides,
});

function problemsOf(env: Record<string, string | undefined>): string[] {
  try {
    loadWorkerConfig({ ...NO_TOML, ...env });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    for (const secret of [SECRET, API_KEY]) expect((error as Error).message).not.toContain(secret);
    return (error as ConfigError).problems;
  }
  throw new Error('expected a ConfigError');
}

afterAll(() => closeRegistryClients());

describe('remote accounts', () => {
  it('a production account with an unknown host is refused at start, naming the account, the field and the fix', () => {
    const [problem, ...rest] = problemsOf({ TCR_ACCOUNTS: JSON.stringify([production()]) });
    expect(rest).toEqual([]);
    expect(problem).toMatch(
      /^TCR_ACCOUNTS\[0\]\.baseUrl \(account acme\): host api\.registry\.example is not a known production registry host/,
    );
    expect(problem).toContain('"allowedHosts": ["api.registry.example"]');
    expect(problem).toContain('TCR_REGISTRY_PRODUCTION_HOSTS=api.registry.example');
  });

  it("a production account at another environment's host is told the environment or URL is wrong, not to allow the host", () => {
    const [problem, ...rest] = problemsOf({
      TCR_ACCOUNTS: JSON.stringify([production()]),
      TCR_REGISTRY_QA_HOSTS: 'api.registry.example',
      TCR_REGISTRY_PRODUCTION_HOSTS: 'prod.registry.example',
    });
    expect(rest).toEqual([]);
    expect(problem).toMatch(
      /^TCR_ACCOUNTS\[0\]\.baseUrl \(account acme\): host api\.registry\.example is a qa registry host, not a production one; refusing to send production credentials there\. Fix: use the base URL of the production registry, or, if these are qa credentials, set "environment": "qa"$/,
    );
    expect(problem).not.toContain('allowedHosts');
  });

  it('is accepted with its host on the account or in TCR_REGISTRY_<ENV>_HOSTS, and the worker builds its client', () => {
    const own = loadWorkerConfig({
      ...NO_TOML,
      TCR_ACCOUNTS: JSON.stringify([production({ allowedHosts: ['API.registry.example'] })]),
    });
    const byEnvironment = loadWorkerConfig({
      ...NO_TOML,
      TCR_ACCOUNTS: JSON.stringify([production()]),
      TCR_REGISTRY_PRODUCTION_HOSTS: 'dr.registry.example, api.registry.example',
    });
    for (const config of [own, byEnvironment]) {
      const client = registryResolver(config.accounts)('acme');
      expect(client?.baseUrl).toBe('https://api.registry.example');
    }
  });

  it('refuses http for a remote environment, and a host claimed by two environments', () => {
    expect(
      problemsOf({
        TCR_ACCOUNTS: JSON.stringify([
          production({ baseUrl: 'http://127.0.0.1:8480', allowedHosts: ['127.0.0.1'] }),
        ]),
      })[0],
    ).toMatch(/account acme.*must use https/);
    const conflict = problemsOf({
      TCR_ACCOUNTS: JSON.stringify([
        production({ allowedHosts: ['api.registry.example'] }),
        production({ name: 'beta', environment: 'qa' }),
      ]),
      TCR_REGISTRY_QA_HOSTS: 'api.registry.example',
    });
    expect(conflict).toEqual([
      expect.stringMatching(
        /\[0\]\.baseUrl \(account acme\): host api\.registry\.example is configured for qa/,
      ),
      expect.stringMatching(
        /\[1\]\.baseUrl \(account beta\): host api\.registry\.example is configured for production/,
      ),
    ]);
  });

  it('names a misspelt field instead of dropping it', () => {
    expect(problemsOf({ TCR_ACCOUNTS: JSON.stringify([production({ allowedHost: ['x'] })]) })).toEqual([
      expect.stringMatching(/^TCR_ACCOUNTS\[0\] \(account acme\): Unrecognized key: "allowedHost"/),
    ]);
  });

  it('temporal-docker/accounts.example.json is a valid configuration as shipped', () => {
    const dir = tempDir('tcr-accounts-');
    const file = join(dir, 'accounts.json');
    writeFileSync(file, readFileSync(join(projectRoot, 'temporal-docker/accounts.example.json')), {
      mode: 0o600,
    });
    expect(loadWorkerConfig({ ...NO_TOML, TCR_ACCOUNTS_FILE: file }).accounts[0]?.environment).toBe(
      'production',
    );
  });
});

describe('TCR_ACCOUNTS_FILE', () => {
  it('is refused when group or others can read it, with the chmod that fixes it', () => {
    const dir = tempDir('tcr-accounts-');
    const file = join(dir, 'accounts.json');
    writeFileSync(file, JSON.stringify([production({ allowedHosts: ['api.registry.example'] })]));
    chmodSync(file, 0o644);
    expect(problemsOf({ TCR_ACCOUNTS_FILE: file })).toEqual([
      `TCR_ACCOUNTS_FILE (${file}): the file is readable or writable by group or others (mode 0644); it holds secrets: run chmod 600 ${file}`,
    ]);
    chmodSync(file, 0o600);
    expect(loadWorkerConfig({ ...NO_TOML, TCR_ACCOUNTS_FILE: file }).accounts[0]?.name).toBe('acme');
  });
});

describe('tcr worker', () => {
  it('refuses to start with a misconfigured account: exit 2 and the message, before any connection', async () => {
    const err: string[] = [];
    const code = await runCli(['worker'], {
      io: { out: () => undefined, err: (t) => err.push(t) },
      // Temporal's address is unreachable on purpose: the refusal comes before any connection.
      env: { ...NO_TOML, TCR_ACCOUNTS: JSON.stringify([production()]), TEMPORAL_ADDRESS: '127.0.0.1:1' },
    });
    expect(code).toBe(2);
    const text = err.join('\n');
    expect(text).toMatch(
      /account acme\): host api\.registry\.example is not a known production registry host/,
    );
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain(API_KEY);
  });

  it('createWorkers refuses an account its registry client refuses, before connecting', async () => {
    await expect(
      createWorkers({
        temporal: { address: '127.0.0.1:1', namespace: 'default' },
        accounts: [
          {
            name: 'acme',
            environment: 'production',
            baseUrl: 'https://x.example',
            apiKey: 'k',
            apiSecret: 's',
          },
        ],
      }),
    ).rejects.toThrow(/^account acme: host x\.example is not a known production registry host/);
  });
});

describe('TCR_REGISTRY_TIMEOUT_MS', () => {
  let server: Server;
  const sockets: Socket[] = [];

  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await new Promise((r) => server?.close(r));
  });

  it('is the timeout of the clients the worker makes; an account can set its own', async () => {
    // A registry that accepts connections and never answers.
    server = createServer((socket) => sockets.push(socket));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    const local = (overrides: Record<string, unknown> = {}) => ({
      name: 'acme',
      environment: 'local',
      baseUrl: `http://127.0.0.1:${port}`,
      apiKey: API_KEY,
      apiSecret: SECRET,
      rateLimits: { getsPerSecond: 100, writesPer10Seconds: 100 },
      ...overrides,
    });
    const call = async (env: Record<string, string>) => {
      const config = loadWorkerConfig({ ...NO_TOML, ...env });
      const client = registryResolver(config.accounts)('acme');
      return client?.listMnos().then(
        () => undefined,
        (error: unknown) => error,
      );
    };
    const fromVariable = await call({
      TCR_ACCOUNTS: JSON.stringify([local()]),
      TCR_REGISTRY_TIMEOUT_MS: '150',
    });
    expect(fromVariable).toBeInstanceOf(RegistryTimeoutError);
    expect((fromVariable as RegistryTimeoutError).timeoutMs).toBe(150);
    const fromAccount = await call({
      TCR_ACCOUNTS: JSON.stringify([local({ timeoutMs: 120 })]),
      TCR_REGISTRY_TIMEOUT_MS: '150',
    });
    expect((fromAccount as RegistryTimeoutError).timeoutMs).toBe(120);
    expect(
      loadWorkerConfig({ ...NO_TOML, TCR_ACCOUNTS: JSON.stringify([local()]) }).accounts[0],
    ).toMatchObject({
      timeoutMs: 30_000,
    });
    expect(problemsOf({ TCR_ACCOUNTS: JSON.stringify([local()]), TCR_REGISTRY_TIMEOUT_MS: 'soon' })).toEqual([
      'TCR_REGISTRY_TIMEOUT_MS: expected a whole number of milliseconds, 1 to 600000',
    ]);
  });
});
