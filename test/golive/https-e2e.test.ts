/**
 * Going live, production-shaped: the registry is the simulator served over HTTPS (a CA this test
 * makes) under a host name that is not loopback, as environment `qa`; the ingress sits behind its
 * own https name, the URL the subscriptions register. Everything the product does runs as an
 * operator runs it, from dist/ (`npm test` builds it first; `npm run build` before running this file
 * alone): `tcr webhooks subscribe` stores the registry's per-category secrets, `tcr ingress` reads
 * them from that file, `tcr accounts check` passes, `tcr worker` takes its account from a private
 * TCR_ACCOUNTS_FILE, and a brand and a campaign go from order (`tcr brand register`,
 * `tcr campaign create`) to `running` (`tcr status`). Every webhook the simulator delivered went to
 * the https URL and was accepted.
 *
 * Name resolution. The product resolves registry names with the system resolver, as every deployment
 * does; a real user needs nothing for it (their DNS knows the registry). So the test does not add a
 * product option for it: it runs each product process in a private mount namespace
 * (`unshare --mount`) whose /etc/hosts is the test's own file, bind-mounted over the real one only
 * inside that namespace (nothing on the machine is edited). The code path under test is exactly the
 * one users run: getaddrinfo, then TLS checked against the CA. The test CA is given the standard way,
 * NODE_EXTRA_CA_CERTS, which is what a user of a registry with a private CA would set. The TLS
 * terminators in front of the simulator and the ingress stand for the registry's and the CSP's load
 * balancers; everything listens on 127.0.0.1. The namespace needs root, or a user namespace
 * (`unshare --user --map-root-user`, allowed to unprivileged users on most Linux systems): the test is
 * skipped when neither works, its name saying so, except under CI, where that is a failure
 * (test/support/ci-requirement.ts).
 *
 * It must also fail when it should: a production account whose host is not a production host, a
 * remote account over plain http and a group-readable accounts file each stop `tcr worker` and
 * `tcr accounts check` at start (exit 2, naming account, field and fix) without a single connection
 * to the registry; a wrong API secret is named by `tcr accounts check` (exit 1) and never printed.
 */
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { chmodSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import tls from 'node:tls';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../../src/toolchain/paths.js';
import { requirement } from '../support/ci-requirement.js';
import { tempDir } from '../support/temp-dir.js';
import { devServerEnv } from '../support/temporal-env.js';

const REGISTRY_HOST = 'api.registry-qa.test';
const HOOKS_HOST = 'hooks.csp-golive.test';
const ACCOUNT = 'golive-qa';
const CSP_ID = 'CSPGOLIVE';
const API_KEY = 'golive-qa-key-4f9d2c';
const API_SECRET = 'golive-qa-secret-8b1e7a';
/** The `tcr` under test: the build, or another one (GOLIVE_TCR_MAIN, e.g. a deliberately broken copy). */
const MAIN = process.env.GOLIVE_TCR_MAIN || join(projectRoot, 'dist/cli/main.js');

/** The `unshare` options that give a process its own mount namespace here, or undefined. */
function namespaceOptions(): string[] | undefined {
  for (const options of [['--mount'], ['--user', '--map-root-user', '--mount']])
    if (spawnSync('unshare', [...options, 'true'], { stdio: 'ignore' }).status === 0) return options;
  return undefined;
}
const unshareOptions = namespaceOptions();
const namespace = requirement(
  'a private mount namespace (unshare --mount as root, or unshare --user --map-root-user --mount)',
  unshareOptions,
  'unshare is in util-linux, which bash scripts/setup-test-tools.sh installs; run as root, or allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1)',
);

interface Front {
  port: number;
  /** Connections accepted so far (TCP, before any TLS). */
  connections(): number;
  close(): Promise<void>;
}

/** A TLS terminator on 127.0.0.1 passing the bytes to a plain-TCP backend (a load balancer's part). */
async function tlsFront(backendPort: () => number, key: Buffer, cert: Buffer): Promise<Front> {
  const sockets = new Set<net.Socket>();
  let connections = 0;
  const server = tls.createServer({ key, cert }, (socket) => {
    const upstream = net.connect(backendPort(), '127.0.0.1');
    sockets.add(socket).add(upstream);
    socket.pipe(upstream).pipe(socket);
    const end = () => {
      socket.destroy();
      upstream.destroy();
    };
    socket.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  server.on('connection', () => connections++);
  server.on('tlsClientError', () => undefined);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as net.AddressInfo).port,
    connections: () => connections,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

/** A CA and one server certificate for both names, made with openssl. */
function makeCertificates(dir: string): { ca: string; key: Buffer; cert: Buffer } {
  const file = (name: string) => join(dir, name);
  const run = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  run(
    'req',
    '-x509',
    ...ec,
    '-keyout',
    file('ca.key'),
    '-out',
    file('ca.pem'),
    '-days',
    '2',
    '-subj',
    '/CN=tcr go-live test CA',
  );
  run(
    'req',
    ...ec,
    '-keyout',
    file('server.key'),
    '-out',
    file('server.csr'),
    '-subj',
    `/CN=${REGISTRY_HOST}`,
  );
  writeFileSync(
    file('server.ext'),
    `subjectAltName=DNS:${REGISTRY_HOST},DNS:${HOOKS_HOST}\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n`,
  );
  run(
    'x509',
    '-req',
    '-in',
    file('server.csr'),
    '-CA',
    file('ca.pem'),
    '-CAkey',
    file('ca.key'),
    '-CAcreateserial',
    '-out',
    file('server.pem'),
    '-days',
    '2',
    '-extfile',
    file('server.ext'),
  );
  return {
    ca: file('ca.pem'),
    key: readFileSync(file('server.key')),
    cert: readFileSync(file('server.pem')),
  };
}

const title = `go live: https registry under a real name, tcr processes, order to running${namespace.note}`;
describe.skipIf(namespace.skip)(title, () => {
  let dir: string;
  let hostsFile: string;
  let env: TestWorkflowEnvironment;
  let baseEnv: Record<string, string>;
  const children: ChildProcess[] = [];
  let registryFront: Front;
  let ingressFront: Front;
  let simulatorPort = 0;
  let ingressPort = 0;
  let registryUrl = '';
  let simulatorControl = '';
  let webhookUrl = '';
  const logs: Record<string, string> = {};

  /** Spawns `tcr ARGS` inside a private mount namespace whose /etc/hosts is the test's. */
  function tcrProcess(name: string, args: string[], extraEnv: Record<string, string> = {}): ChildProcess {
    const child = spawn(
      'unshare',
      [
        ...(unshareOptions ?? []),
        '--',
        'sh',
        '-c',
        'mount --bind "$1" /etc/hosts && shift && exec "$@"',
        'sh',
        hostsFile,
        process.execPath,
        MAIN,
        ...args,
      ],
      { env: { ...process.env, ...baseEnv, ...extraEnv }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    logs[name] = '';
    child.stdout?.on('data', (c: Buffer) => (logs[name] += c.toString()));
    child.stderr?.on('data', (c: Buffer) => (logs[name] += c.toString()));
    return child;
  }

  /** Runs `tcr ARGS` to its end; its exit code and output. */
  function tcr(
    args: string[],
    extraEnv: Record<string, string> = {},
  ): Promise<{ code: number | null; output: string }> {
    const name = `tcr ${args.join(' ')} #${Object.keys(logs).length}`;
    const child = tcrProcess(name, args, extraEnv);
    return new Promise((resolve) =>
      child.once('exit', (code) => resolve({ code, output: logs[name] ?? '' })),
    );
  }

  /** Resolves when the process has written `text`, rejects when it exits first. */
  function waitForOutput(name: string, child: ChildProcess, text: string | RegExp): Promise<string> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const log = logs[name] ?? '';
        const found =
          typeof text === 'string' ? (log.includes(text) ? text : undefined) : text.exec(log)?.[0];
        if (found !== undefined) resolve(found);
      };
      child.stdout?.on('data', check);
      child.stderr?.on('data', check);
      child.once('exit', (code) =>
        reject(new Error(`${name} exited (${code}) before '${text}': ${logs[name]}`)),
      );
      check();
    });
  }

  /**
   * Runs `tcr worker` until it either exits or gets past its configuration (it says it starts its
   * workers; it is then killed and the code is null): how a configuration refused at start is told
   * from one accepted, without a time bound.
   */
  function workerStart(extraEnv: Record<string, string>): Promise<{ code: number | null; output: string }> {
    const name = `worker #${Object.keys(logs).length}`;
    const child = tcrProcess(name, ['worker'], { TCR_WORKER_METRICS_ADDRESS: 'off', ...extraEnv });
    children.push(child);
    return new Promise((resolve) => {
      const running = () => {
        if (!logs[name]?.includes('tcr worker starting')) return;
        child.kill('SIGKILL');
        resolve({ code: null, output: logs[name] ?? '' });
      };
      child.stderr?.on('data', running);
      child.stdout?.on('data', running);
      child.once('exit', (code) => resolve({ code, output: logs[name] ?? '' }));
    });
  }

  /** A private (0600) accounts file holding `accounts`; its path. */
  function accountsFile(name: string, accounts: object[], mode = 0o600): string {
    const path = join(dir, name);
    writeFileSync(path, JSON.stringify(accounts));
    chmodSync(path, mode);
    return path;
  }

  /**
   * A function that resolves with the workflow's history events it has not returned yet, once there
   * are any: a long poll on the history (the server answers when a new event is written). The first
   * call returns at once (the history so far); a state only a workflow task changes is then re-read
   * only after one ran.
   */
  function historyWatcher(
    workflowId: string,
  ): () => Promise<{ workflowTaskCompletedEventAttributes?: unknown }[]> {
    let nextPageToken: Uint8Array | undefined;
    return async () => {
      for (;;) {
        const page = await env.connection.workflowService.getWorkflowExecutionHistory({
          namespace: 'default',
          execution: { workflowId },
          waitNewEvent: true,
          nextPageToken,
        });
        nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
        // Events, or the workflow closed (no token): either way something happened.
        const events = page.history?.events ?? [];
        if (events.length > 0 || !nextPageToken) return events;
      }
    };
  }

  beforeAll(async () => {
    namespace.check();
    dir = tempDir('tcr-golive-');
    const certs = makeCertificates(dir);
    hostsFile = join(dir, 'hosts');
    writeFileSync(
      hostsFile,
      `127.0.0.1 localhost\n::1 localhost\n127.0.0.1 ${REGISTRY_HOST} ${HOOKS_HOST}\n`,
    );
    env = await devServerEnv();

    registryFront = await tlsFront(() => simulatorPort, certs.key, certs.cert);
    ingressFront = await tlsFront(() => ingressPort, certs.key, certs.cert);
    registryUrl = `https://${REGISTRY_HOST}:${registryFront.port}/v2`;
    webhookUrl = `https://${HOOKS_HOST}:${ingressFront.port}/webhooks/registry`;

    baseEnv = {
      NODE_EXTRA_CA_CERTS: certs.ca,
      TCR_ACCOUNTS_FILE: accountsFile('accounts.json', [
        {
          name: ACCOUNT,
          environment: 'qa',
          baseUrl: registryUrl,
          apiKey: API_KEY,
          apiSecret: API_SECRET,
          cspId: CSP_ID,
        },
      ]),
      TCR_REGISTRY_QA_HOSTS: REGISTRY_HOST,
      TCR_WEBHOOK_URL: webhookUrl,
      TCR_WEBHOOK_SECRETS_FILE: join(dir, 'webhook-secrets'),
      TCR_PAYLOAD_KEYS_FILE: join(dir, 'payload-keys.json'),
      TEMPORAL_ADDRESS: env.address,
      TEMPORAL_NAMESPACE: 'default',
      TEMPORAL_CONFIG_FILE: join(dir, 'no-temporal.toml'),
    };
    // No inherited account, secret or key settings may leak in from the developer's shell.
    for (const name of [
      'TCR_ACCOUNTS',
      'TCR_WEBHOOK_SECRETS',
      'TCR_PAYLOAD_KEYS',
      'TCR_REGISTRY_STAGING_HOSTS',
      'TCR_REGISTRY_PREVIEW_HOSTS',
      'TCR_REGISTRY_PRODUCTION_HOSTS',
    ])
      baseEnv[name] = '';

    // The registry: `tcr simulator` behind the https front (it delivers webhooks to the https ingress URL).
    const sim = tcrProcess('simulator', [
      'simulator',
      '--port',
      '0',
      '--time-scale',
      '3600',
      '--account',
      `${CSP_ID}:${API_KEY}:${API_SECRET}`,
    ]);
    children.push(sim);
    await waitForOutput('simulator', sim, 'registry simulator listening on');
    const match = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(logs.simulator ?? '');
    simulatorPort = Number(match?.[1]);
    simulatorControl = `http://127.0.0.1:${simulatorPort}/control`;
  }, 180_000);

  afterAll(async () => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
    await Promise.all(
      children.map((c) => (c.exitCode === null ? new Promise((r) => c.once('exit', r)) : undefined)),
    );
    await registryFront?.close();
    await ingressFront?.close();
    await env?.teardown();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it('refuses a misconfigured account at start, naming account, field and fix, and sends it nowhere', async () => {
    const account = {
      name: 'golive-prod',
      environment: 'production',
      baseUrl: registryUrl,
      apiKey: API_KEY,
      apiSecret: API_SECRET,
      cspId: CSP_ID,
    };
    const cases: { what: string; file: string; env: Record<string, string>; expected: string[] }[] = [
      {
        what: 'production credentials for the qa host',
        file: accountsFile('prod-at-qa.json', [account]),
        env: { TCR_REGISTRY_PRODUCTION_HOSTS: 'api.registry-production.test' },
        expected: [
          `[0].baseUrl (account golive-prod)`,
          `host ${REGISTRY_HOST} is a qa registry host, not a production one; refusing to send production credentials there`,
          'Fix: use the base URL of the production registry, or, if these are qa credentials, set "environment": "qa"',
        ],
      },
      {
        what: 'a remote account over plain http',
        file: accountsFile('qa-http.json', [
          {
            ...account,
            name: 'golive-http',
            environment: 'qa',
            baseUrl: registryUrl.replace('https:', 'http:'),
          },
        ]),
        env: {},
        expected: [
          '[0].baseUrl (account golive-http)',
          'registry base URL of environment qa must use https',
          'Fix: use the https:// base URL of the qa registry',
        ],
      },
      {
        what: 'an accounts file others can read',
        file: accountsFile('readable.json', [{ ...account, environment: 'qa' }], 0o644),
        env: {},
        expected: ['TCR_ACCOUNTS_FILE', 'mode 0644', 'chmod 600'],
      },
    ];
    const connectionsBefore = registryFront.connections();
    for (const c of cases) {
      const extra = { TCR_ACCOUNTS_FILE: c.file, ...c.env };
      const worker = await workerStart(extra);
      expect(worker.code, `${c.what}: ${worker.output}`).toBe(2);
      for (const text of c.expected) expect(worker.output, c.what).toContain(text);
      const check = await tcr(['accounts', 'check'], extra);
      expect(check.code, `${c.what}: ${check.output}`).toBe(2);
      for (const text of c.expected) expect(check.output, c.what).toContain(text);
      for (const output of [worker.output, check.output]) {
        expect(output).not.toContain(API_KEY);
        expect(output).not.toContain(API_SECRET);
      }
    }
    // Not one connection reached the registry: no credentials were sent anywhere.
    expect(registryFront.connections()).toBe(connectionsBefore);

    // A wrong secret reaches the registry (the configuration is valid) and is named, never printed.
    const wrongSecret = 'golive-qa-secret-WRONG-31337';
    const wrong = await tcr(['accounts', 'check'], {
      TCR_ACCOUNTS_FILE: accountsFile('wrong-secret.json', [
        { ...account, name: ACCOUNT, environment: 'qa', apiSecret: wrongSecret },
      ]),
    });
    expect(wrong.code, wrong.output).toBe(1);
    expect(wrong.output).toMatch(/credentials +PROBLEM: the registry rejected the credentials \(401\)/);
    expect(wrong.output).toContain(`account ${ACCOUNT}`);
    expect(wrong.output).not.toContain(wrongSecret);
    expect(registryFront.connections()).toBeGreaterThan(connectionsBefore);
  }, 120_000);

  it('subscribes, checks, runs the worker and the ingress, and takes a brand and a campaign to running', async () => {
    // The payload key, made as an operator makes it.
    const keys = await tcr(['payload-keys', 'init']);
    expect(keys.code, keys.output).toBe(0);
    // The ingress gets only its public half (issue 35, item 3).
    const publicKeys = join(dir, 'ingress-public-keys.json');
    const pub = await tcr(['payload-keys', 'public', '--out', publicKeys]);
    expect(pub.code, pub.output).toBe(0);

    // Before the subscriptions: the check names what is missing.
    const before = await tcr(['accounts', 'check', '--account', ACCOUNT]);
    expect(before.output).toMatch(/credentials +ok/);
    expect(before.output).toMatch(/not subscribed: BRAND, VETTING, CAMPAIGN, CAMPAIGN_SHARING/);
    expect(before.code).toBe(1);

    const subscribed = await tcr(['webhooks', 'subscribe', '--account', ACCOUNT, '--url', webhookUrl]);
    expect(subscribed.output.match(/ subscribed /g), subscribed.output).toHaveLength(4);
    expect(subscribed.code).toBe(0);
    // Again: nothing changes, at the registry or in the secrets file.
    const secretsBefore = readFileSync(baseEnv.TCR_WEBHOOK_SECRETS_FILE!, 'utf8');
    const again = await tcr(['webhooks', 'subscribe', '--account', ACCOUNT, '--url', webhookUrl]);
    expect(again.output.match(/ unchanged /g), again.output).toHaveLength(4);
    expect(again.code).toBe(0);
    expect(readFileSync(baseEnv.TCR_WEBHOOK_SECRETS_FILE!, 'utf8')).toBe(secretsBefore);
    const listed = await tcr(['webhooks', 'list']);
    expect(listed.output.split(`→ ${webhookUrl} (secret stored)`), listed.output).toHaveLength(5);

    // The ingress on its own https name, with the secrets the subscriptions returned; it binds its
    // own ports and says which (the front passes to it from then on).
    const ingress = tcrProcess('ingress', ['ingress'], {
      TCR_PAYLOAD_KEYS_FILE: '',
      TCR_INGRESS_PAYLOAD_PUBLIC_KEYS_FILE: publicKeys,
      TCR_INGRESS_HOST: '127.0.0.1',
      TCR_INGRESS_PORT: '0',
      TCR_INGRESS_INTERNAL_LISTEN: '127.0.0.1:0',
    });
    children.push(ingress);
    const listening = await waitForOutput(
      'ingress',
      ingress,
      /ingress listening on http:\/\/127\.0\.0\.1:(\d+)/,
    );
    ingressPort = Number(/:(\d+)$/.exec(listening)?.[1]);

    const check = await tcr(['accounts', 'check']);
    expect(check.output).toMatch(/^OK: 1 account checked$/m);
    expect(check.output).toContain(`webhooks     ok: 4/4 categories → ${webhookUrl}, secrets stored`);
    expect(check.code).toBe(0);

    const worker = tcrProcess('worker', ['worker'], { TCR_WORKER_METRICS_ADDRESS: 'off' });
    children.push(worker);
    await waitForOutput('worker', worker, 'tcr worker running');

    // Orders as an operator places them.
    const brandFile = join(dir, 'brand.json');
    const campaignFile = join(dir, 'campaign.json');
    const brand = JSON.parse(readFileSync(join(projectRoot, 'examples/brands/acme-widgets.json'), 'utf8'));
    const campaign = JSON.parse(
      readFileSync(join(projectRoot, 'examples/campaigns/acme-account-notifications.json'), 'utf8'),
    );
    writeFileSync(brandFile, JSON.stringify({ ...brand, reference: 'golive-brand', account: ACCOUNT }));
    writeFileSync(
      campaignFile,
      JSON.stringify({
        ...campaign,
        reference: 'golive-campaign',
        account: ACCOUNT,
        brandReference: 'golive-brand',
      }),
    );
    const registered = await tcr(['brand', 'register', brandFile]);
    expect(registered.code, registered.output).toBe(0);
    const created = await tcr(['campaign', 'create', campaignFile]);
    expect(created.code, created.output).toBe(0);

    // Until the campaign runs (webhooks through the https ingress wake it): `tcr status` again each
    // time the campaign's history grows. A product that never gets there fails on the test's timeout
    // with the logs below.
    const phaseOf = async (id: string) => {
      const status = await tcr(['status', id, '--json']);
      expect(status.code, status.output).toBe(0);
      return String(JSON.parse(status.output.slice(status.output.indexOf('{'))).phase);
    };
    const grown = historyWatcher(`campaign/${ACCOUNT}/golive-campaign`);
    // A workflow answers queries once its first workflow task is done.
    while (!(await grown()).some((e) => e.workflowTaskCompletedEventAttributes)) {}
    const phases: string[] = [];
    for (;;) {
      const phase = await phaseOf(`campaign/${ACCOUNT}/golive-campaign`);
      if (phases.at(-1) !== phase) phases.push(phase);
      if (phase === 'running' || phase === 'failed' || phase === 'rejected') break;
      await grown();
    }
    expect(
      phases.at(-1),
      `phases ${phases.join(' → ')}\nworker log:\n${logs.worker}\ningress log:\n${logs.ingress}`,
    ).toBe('running');
    expect(await phaseOf(`brand/${ACCOUNT}/golive-brand`)).toBe('ready');

    // Every webhook went to the https URL and was accepted (a bad signature would be a 401 and a retry).
    const response = await fetch(`${simulatorControl}/webhooks/deliveries?cspId=${CSP_ID}`);
    const deliveries = (await response.json()) as {
      endpoint: string | null;
      status: number | null;
      outcome: string;
    }[];
    const attempted = deliveries.filter((d) => d.endpoint !== null);
    expect(attempted.length).toBeGreaterThan(0);
    expect(attempted.filter((d) => d.endpoint !== webhookUrl || d.outcome !== 'DELIVERED')).toEqual([]);
    expect(deliveries.map((d) => d.outcome)).not.toContain('NO_SUBSCRIPTION');
    expect(ingressFront.connections()).toBeGreaterThan(0);

    // The payloads the product wrote are encrypted with the operator's key.
    const history = await env.client.workflow.getHandle(`brand/${ACCOUNT}/golive-brand`).fetchHistory();
    const input = history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
    expect(Buffer.from(input?.metadata?.encoding ?? []).toString()).toBe('binary/encrypted');

    // No secret reached a log line.
    const secrets = readFileSync(baseEnv.TCR_WEBHOOK_SECRETS_FILE!, 'utf8')
      .split('\n')
      .filter((line) => line && !line.startsWith('#'));
    expect(secrets).toHaveLength(4);
    for (const text of Object.values(logs)) {
      expect(text).not.toContain(API_SECRET);
      expect(text).not.toContain(API_KEY);
      for (const secret of secrets) expect(text).not.toContain(secret);
    }
  }, 300_000);
});
