/**
 * Every variable of docs/operations.md's "Temporal connection" table (the worker, the ingress and the
 * CLI read it through src/config/temporal-connection.ts) changes the connection when set, as the
 * table says; this project's earlier TLS names too. A variable added to the table without a case
 * here fails the first test.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  loadTemporalConnection,
  type TemporalConnectionConfig,
  temporalConnectionOptions,
} from '../../src/config/temporal-connection.js';
import { tempDir } from '../support/temp-dir.js';

const doc = readFileSync(join(import.meta.dirname, '..', '..', 'docs/operations.md'), 'utf8');
const section = doc.slice(doc.indexOf('### Temporal connection'), doc.indexOf('### Worker'));
const documented = [...section.matchAll(/^\| ([^|]+)\|/gm)].flatMap((row) =>
  [...row[1]!.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]!),
);

const dir = tempDir('tcr-temporal-vars-');
const file = (name: string, text: string) => {
  writeFileSync(join(dir, name), text);
  return join(dir, name);
};
const cert = file('client.pem', 'client-certificate\n');
const key = file('client.key', 'client-key\n');
const ca = file('ca.pem', 'ca-bundle\n');
const emptyProfile = file('empty.toml', '[profile.default]\n');
const profiles = file(
  'temporal.toml',
  '[profile.default]\naddress = "default.example:7233"\n\n[profile.other]\naddress = "other.example:7233"\nnamespace = "other-ns"\n',
);

/** The connection for `env` over an empty profile file (never the machine's own temporal.toml). */
function load(env: Record<string, string>): TemporalConnectionConfig {
  const problems: string[] = [];
  const config = loadTemporalConnection({ TEMPORAL_CONFIG_FILE: emptyProfile, ...env }, problems);
  expect(problems).toEqual([]);
  return config;
}
const tlsObject = (c: TemporalConnectionConfig) =>
  typeof c.tls === 'object' ? c.tls : ({} as Exclude<TemporalConnectionConfig['tls'], boolean | undefined>);
const text = (b: Buffer | Uint8Array | undefined) => (b ? Buffer.from(b).toString('utf8') : undefined);

const cases: Record<
  string,
  { env: Record<string, string>; read: (c: TemporalConnectionConfig) => unknown; is: unknown }
> = {
  TEMPORAL_ADDRESS: {
    env: { TEMPORAL_ADDRESS: 'frontend.example:7233' },
    read: (c) => c.address,
    is: 'frontend.example:7233',
  },
  TEMPORAL_NAMESPACE: { env: { TEMPORAL_NAMESPACE: 'tcr-prod' }, read: (c) => c.namespace, is: 'tcr-prod' },
  TEMPORAL_API_KEY: {
    env: { TEMPORAL_API_KEY: 'k-1' },
    read: (c) => [c.apiKey, temporalConnectionOptions(c).tls],
    is: ['k-1', true],
  },
  TEMPORAL_TLS: { env: { TEMPORAL_TLS: 'true' }, read: (c) => Boolean(c.tls), is: true },
  TEMPORAL_TLS_CLIENT_CERT_PATH: {
    env: { TEMPORAL_TLS_CLIENT_CERT_PATH: cert, TEMPORAL_TLS_CLIENT_KEY_PATH: key },
    read: (c) => text(tlsObject(c).clientCertPair?.crt),
    is: 'client-certificate\n',
  },
  TEMPORAL_TLS_CLIENT_KEY_PATH: {
    env: { TEMPORAL_TLS_CLIENT_CERT_PATH: cert, TEMPORAL_TLS_CLIENT_KEY_PATH: key },
    read: (c) => text(tlsObject(c).clientCertPair?.key),
    is: 'client-key\n',
  },
  TEMPORAL_TLS_CERT: {
    env: { TEMPORAL_TLS_CERT: cert, TEMPORAL_TLS_KEY: key },
    read: (c) => text(tlsObject(c).clientCertPair?.crt),
    is: 'client-certificate\n',
  },
  TEMPORAL_TLS_KEY: {
    env: { TEMPORAL_TLS_CERT: cert, TEMPORAL_TLS_KEY: key },
    read: (c) => text(tlsObject(c).clientCertPair?.key),
    is: 'client-key\n',
  },
  TEMPORAL_TLS_SERVER_CA_CERT_PATH: {
    env: { TEMPORAL_TLS_SERVER_CA_CERT_PATH: ca },
    read: (c) => text(tlsObject(c).serverRootCACertificate),
    is: 'ca-bundle\n',
  },
  TEMPORAL_TLS_CA: {
    env: { TEMPORAL_TLS_CA: ca },
    read: (c) => text(tlsObject(c).serverRootCACertificate),
    is: 'ca-bundle\n',
  },
  TEMPORAL_TLS_SERVER_NAME: {
    env: { TEMPORAL_TLS: 'true', TEMPORAL_TLS_SERVER_NAME: 'frontend.internal' },
    read: (c) => tlsObject(c).serverNameOverride,
    is: 'frontend.internal',
  },
  TEMPORAL_CONFIG_FILE: {
    env: { TEMPORAL_CONFIG_FILE: profiles },
    read: (c) => c.address,
    is: 'default.example:7233',
  },
  TEMPORAL_PROFILE: {
    env: { TEMPORAL_CONFIG_FILE: profiles, TEMPORAL_PROFILE: 'other' },
    read: (c) => [c.address, c.namespace],
    is: ['other.example:7233', 'other-ns'],
  },
};

describe("the Temporal connection's variables (docs/operations.md)", () => {
  it('every variable in the table (first column and earlier names) has a case here', () => {
    const earlierNames = ['TEMPORAL_TLS_CERT', 'TEMPORAL_TLS_KEY', 'TEMPORAL_TLS_CA'];
    for (const name of earlierNames) expect(section, name).toContain(`\`${name}\``);
    expect(documented.length).toBeGreaterThan(8);
    expect([...new Set([...documented, ...earlierNames])].sort()).toEqual(Object.keys(cases).sort());
  });

  for (const [name, c] of Object.entries(cases))
    it(`${name} changes the connection from its default`, () => {
      const set = c.read(load(c.env));
      expect(set).toEqual(c.is);
      expect(set).not.toEqual(c.read(load({})));
    });

  it('the variables win over the profile file', () => {
    expect(load({ TEMPORAL_CONFIG_FILE: profiles, TEMPORAL_ADDRESS: 'env.example:7233' }).address).toBe(
      'env.example:7233',
    );
  });
});
