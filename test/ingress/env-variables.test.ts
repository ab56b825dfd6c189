/**
 * Every variable of docs/ingress.md's configuration table is read: set to a value other than its
 * default, it changes the ingress configuration the way the table says. A variable added to the
 * table without a case here fails the first test. Where no other test observes a variable's effect
 * on a running ingress, it is observed here (TCR_INGRESS_MAX_REQUESTS_PER_SOCKET).
 */
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { type IngressConfig, parseIngressConfig } from '../../src/ingress/config.js';
import { startIngress } from '../../src/ingress/server.js';
import { createIngressClient } from '../../src/ingress/temporal.js';
import { tempDir } from '../support/temp-dir.js';

const SECRET = 'env-variables-secret-0123456789abcdef';
const base = {
  TCR_WEBHOOK_URL: 'https://csp.example/webhooks/registry',
  TCR_WEBHOOK_SECRETS: SECRET,
  TCR_INGRESS_ACCOUNTS: 'acme',
};
const doc = readFileSync(join(import.meta.dirname, '..', '..', 'docs/ingress.md'), 'utf8');
const configSection = doc.slice(doc.indexOf('## Configuration'), doc.indexOf('## Endpoints and answers'));
const documented = [...configSection.matchAll(/^\| `([A-Z][A-Z0-9_]+)`(?:, `([A-Z][A-Z0-9_]+)`)*/gm)].flatMap(
  (m) => [...m[0].matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((n) => n[1]!),
);

const secretsFile = (() => {
  const dir = tempDir('tcr-ingress-env-');
  const path = join(dir, 'secrets');
  writeFileSync(path, `# rotation\n${SECRET}\nsecond-secret-0123456789abcdefghij\n`);
  chmodSync(path, 0o600);
  return path;
})();
const certDir = (() => {
  const dir = tempDir('tcr-ingress-tls-');
  for (const name of ['client.pem', 'client.key', 'ca.pem']) writeFileSync(join(dir, name), `${name}\n`);
  return dir;
})();

/** Per variable: the environment to set (over `base`) and what the configuration must then hold. */
const cases: Record<
  string,
  { env: Record<string, string>; expected: (c: IngressConfig) => unknown; is: unknown }
> = {
  TCR_WEBHOOK_URL: {
    env: { TCR_WEBHOOK_URL: 'https://other.example/webhooks/registry' },
    expected: (c) => c.webhookUrl,
    is: 'https://other.example/webhooks/registry',
  },
  TCR_WEBHOOK_SECRETS_FILE: {
    env: { TCR_WEBHOOK_SECRETS: '', TCR_WEBHOOK_SECRETS_FILE: secretsFile },
    expected: (c) => c.secrets,
    is: [SECRET, 'second-secret-0123456789abcdefghij'],
  },
  TCR_WEBHOOK_SECRETS: {
    env: { TCR_WEBHOOK_SECRETS: `${SECRET},another-secret-0123456789abcdefgh` },
    expected: (c) => c.secrets,
    is: [SECRET, 'another-secret-0123456789abcdefgh'],
  },
  TCR_INGRESS_ACCOUNTS: {
    env: { TCR_INGRESS_ACCOUNTS: 'acme=CSPACME' },
    expected: (c) => ({ accounts: c.accounts, secrets: c.accountSecrets.map((s) => s.account) }),
    is: { accounts: [{ name: 'acme', cspId: 'CSPACME' }], secrets: ['acme'] },
  },
  TCR_INGRESS_HOST: {
    env: { TCR_INGRESS_HOST: '0.0.0.0', TCR_INGRESS_ALLOW_ANY: '1' },
    expected: (c) => c.host,
    is: '0.0.0.0',
  },
  TCR_INGRESS_ALLOW_ANY: {
    env: { TCR_INGRESS_ALLOW_ANY: '1' },
    expected: (c) => c.allowAny,
    is: true,
  },
  TCR_INGRESS_RATE_LIMIT: { env: { TCR_INGRESS_RATE_LIMIT: '5' }, expected: (c) => c.rateLimit, is: 5 },
  TCR_INGRESS_RATE_BURST: { env: { TCR_INGRESS_RATE_BURST: '7' }, expected: (c) => c.rateBurst, is: 7 },
  TCR_INGRESS_PORT: { env: { TCR_INGRESS_PORT: '9123' }, expected: (c) => c.port, is: 9123 },
  TCR_INGRESS_PATH: {
    env: { TCR_INGRESS_PATH: '/hooks', TCR_WEBHOOK_URL: 'https://csp.example/hooks' },
    expected: (c) => c.path,
    is: '/hooks',
  },
  TCR_INGRESS_BODY_LIMIT: { env: { TCR_INGRESS_BODY_LIMIT: '4096' }, expected: (c) => c.bodyLimit, is: 4096 },
  TCR_INGRESS_REQUEST_TIMEOUT_MS: {
    env: { TCR_INGRESS_REQUEST_TIMEOUT_MS: '2500' },
    expected: (c) => c.requestTimeoutMs,
    is: 2500,
  },
  TCR_INGRESS_IDLE_TIMEOUT_MS: {
    env: { TCR_INGRESS_IDLE_TIMEOUT_MS: '60000' },
    expected: (c) => c.idleTimeoutMs,
    is: 60_000,
  },
  TCR_INGRESS_KEEP_ALIVE_TIMEOUT_MS: {
    env: { TCR_INGRESS_KEEP_ALIVE_TIMEOUT_MS: '1500' },
    expected: (c) => c.keepAliveTimeoutMs,
    is: 1500,
  },
  TCR_INGRESS_MAX_REQUESTS_PER_SOCKET: {
    env: { TCR_INGRESS_MAX_REQUESTS_PER_SOCKET: '7' },
    expected: (c) => c.maxRequestsPerSocket,
    is: 7,
  },
  TCR_INGRESS_MAX_CONNECTIONS: {
    env: { TCR_INGRESS_MAX_CONNECTIONS: '10' },
    expected: (c) => c.maxConnections,
    is: 10,
  },
  TCR_INGRESS_MAX_CONNECTIONS_PER_ADDRESS: {
    env: { TCR_INGRESS_MAX_CONNECTIONS_PER_ADDRESS: '3' },
    expected: (c) => c.maxConnectionsPerAddress,
    is: 3,
  },
  TCR_INGRESS_INTERNAL_LISTEN: {
    env: { TCR_INGRESS_INTERNAL_LISTEN: 'off' },
    expected: (c) => c.internal,
    is: { mode: 'off' },
  },
  TCR_INGRESS_HANDOFF_FAILURE: {
    env: { TCR_INGRESS_HANDOFF_FAILURE: '503' },
    expected: (c) => c.handoffFailure,
    is: '503',
  },
  TCR_INGRESS_ALLOW: {
    env: { TCR_INGRESS_ALLOW: '192.0.2.0/24,198.51.100.7' },
    expected: (c) => c.allow.length,
    is: 2,
  },
  TCR_INGRESS_TRUSTED_PROXIES: {
    env: { TCR_INGRESS_TRUSTED_PROXIES: '10.0.0.1' },
    expected: (c) => c.trustedProxies.length,
    is: 1,
  },
  TCR_INGRESS_HANDOFF_TIMEOUT_MS: {
    env: { TCR_INGRESS_HANDOFF_TIMEOUT_MS: '1200' },
    expected: (c) => c.handoffTimeoutMs,
    is: 1200,
  },
  TCR_PARKED_EVENTS_TASK_QUEUE: {
    env: { TCR_PARKED_EVENTS_TASK_QUEUE: 'other-queue' },
    expected: (c) => c.parkedTaskQueue,
    is: 'other-queue',
  },
  TCR_PARKED_RETENTION_DAYS: {
    env: { TCR_PARKED_RETENTION_DAYS: '2' },
    expected: (c) => c.parkedRetentionMs,
    is: 2 * 24 * 3600_000,
  },
  TEMPORAL_ADDRESS: {
    env: { TEMPORAL_ADDRESS: 'temporal.example:7233' },
    expected: (c) => [c.temporalAddress, c.temporal.address],
    is: ['temporal.example:7233', 'temporal.example:7233'],
  },
  TEMPORAL_NAMESPACE: {
    env: { TEMPORAL_NAMESPACE: 'tcr-prod' },
    expected: (c) => [c.temporalNamespace, c.temporal.namespace],
    is: ['tcr-prod', 'tcr-prod'],
  },
  TEMPORAL_API_KEY: {
    env: { TEMPORAL_API_KEY: 'k' },
    expected: (c) => [c.temporal.apiKey, c.temporal.tls],
    is: ['k', true],
  },
  TEMPORAL_TLS_CERT: {
    env: { TEMPORAL_TLS_CERT: join(certDir, 'client.pem'), TEMPORAL_TLS_KEY: join(certDir, 'client.key') },
    expected: (c) => Boolean(c.temporal.tls && typeof c.temporal.tls === 'object'),
    is: true,
  },
  TEMPORAL_TLS_KEY: {
    env: { TEMPORAL_TLS_CERT: join(certDir, 'client.pem'), TEMPORAL_TLS_KEY: join(certDir, 'client.key') },
    expected: (c) => Boolean(c.temporal.tls && typeof c.temporal.tls === 'object'),
    is: true,
  },
  TEMPORAL_TLS_CA: {
    env: { TEMPORAL_TLS_CA: join(certDir, 'ca.pem') },
    expected: (c) => Boolean(c.temporal.tls && typeof c.temporal.tls === 'object'),
    is: true,
  },
  TCR_INGRESS_LOG_LEVEL: { env: { TCR_INGRESS_LOG_LEVEL: 'warn' }, expected: (c) => c.logLevel, is: 'warn' },
  OTEL_EXPORTER_OTLP_ENDPOINT: {
    env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' },
    expected: (c) => c.tracing,
    is: { tracesUrl: 'http://127.0.0.1:4318/v1/traces', serviceName: 'tcr-ingress' },
  },
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: {
    env: { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://otel.example/v1/traces' },
    expected: (c) => c.tracing?.tracesUrl,
    is: 'https://otel.example/v1/traces',
  },
  OTEL_SERVICE_NAME: {
    env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_SERVICE_NAME: 'tcr-ingress-eu' },
    expected: (c) => c.tracing?.serviceName,
    is: 'tcr-ingress-eu',
  },
};

describe("the ingress's configuration variables (docs/ingress.md)", () => {
  it('every documented variable has a case here, and every case is documented', () => {
    expect(documented.length).toBeGreaterThan(20);
    expect([...new Set(documented)].sort()).toEqual(Object.keys(cases).sort());
  });

  for (const [name, c] of Object.entries(cases))
    it(`${name} changes the configuration from its default`, () => {
      const withoutIt = { ...base } as Record<string, string>;
      const defaultValue = c.expected(parseIngressConfig(withoutIt));
      const env = Object.fromEntries(Object.entries({ ...base, ...c.env }).filter(([, v]) => v !== ''));
      const set = c.expected(parseIngressConfig(env));
      expect(set).toEqual(c.is);
      expect(set).not.toEqual(defaultValue);
    });

  it('TCR_INGRESS_MAX_REQUESTS_PER_SOCKET: a kept-alive connection is closed after that many requests', async () => {
    const config = parseIngressConfig({
      TCR_WEBHOOK_URL: 'http://127.0.0.1:1/webhooks/registry',
      TCR_WEBHOOK_SECRETS: 'x',
      TCR_INGRESS_ACCOUNTS: 'acme',
      TCR_INGRESS_PORT: '0',
      TCR_INGRESS_INTERNAL_LISTEN: 'off',
      TCR_INGRESS_MAX_REQUESTS_PER_SOCKET: '2',
    });
    // Temporal is never reached: these requests are refused before any hand-off.
    const client = createIngressClient({ temporalAddress: '127.0.0.1:1', temporalNamespace: 'default' });
    const ingress = await startIngress({ config, client, logger: pino({ level: 'silent' }) });
    try {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      const sockets: unknown[] = [];
      const answers: { status: number | undefined; connection: string | undefined }[] = [];
      for (let i = 0; i < 3; i++)
        answers.push(
          await new Promise((resolve, reject) => {
            const req = request(
              `${ingress.endpoint}`,
              { method: 'POST', agent, headers: { 'content-type': 'application/json' } },
              (res) => {
                res.resume();
                res.on('end', () => resolve({ status: res.statusCode, connection: res.headers.connection }));
              },
            );
            req.on('socket', (s) => {
              if (!sockets.includes(s)) sockets.push(s);
            });
            req.on('error', reject);
            req.end('{}');
          }),
        );
      agent.destroy();
      // Unsigned: 401 each time; the second answer closes the connection, the third comes on a new one.
      expect(answers).toEqual([
        { status: 401, connection: 'keep-alive' },
        { status: 401, connection: 'close' },
        { status: 401, connection: 'keep-alive' },
      ]);
      expect(sockets).toHaveLength(2);
    } finally {
      await ingress.close();
      await client.connection.close();
    }
  });
});
