/**
 * The mTLS overlay (temporal-docker/docker-compose.mtls.yml) and its certificate script, checked
 * without a Docker engine: the overlay extends services the compose file has, mounts exactly the
 * files the script writes, gives each client its own certificate through the variables it reads,
 * and the certificates the script makes chain to its CA and are read by the product's connection
 * settings (TEMPORAL_TLS_*), whose subject `tcr` then sends as its identity.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { callerIdentity } from '../../src/cli/caller-identity.js';
import { loadTemporalConnection } from '../../src/config/temporal-connection.js';
import { tempDir } from '../support/temp-dir.js';
import { parseYamlSubset, type YamlValue } from './yaml-subset.js';

const root = join(import.meta.dirname, '..', '..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');
type Obj = { [key: string]: YamlValue };
const obj = (v: YamlValue | undefined) => v as Obj;

const base = obj(parseYamlSubset(read('temporal-docker/docker-compose.yml')));
const overlay = obj(parseYamlSubset(read('temporal-docker/docker-compose.mtls.yml')));
const services = obj(overlay.services);
const env = (name: string) => obj(obj(services[name]).environment);

describe('temporal-docker/docker-compose.mtls.yml', () => {
  it('extends only services of the compose file and keeps their own secrets', () => {
    for (const [name, service] of Object.entries(services)) {
      expect(Object.hasOwn(obj(base.services), name), name).toBe(true);
      const own = (obj(obj(base.services)[name]).secrets ?? []) as string[];
      for (const secret of own) expect(obj(service).secrets, `${name} keeps ${secret}`).toContain(secret);
    }
  });

  it('requires client certificates on the frontend and gives each client its own', () => {
    expect(env('temporal').TEMPORAL_TLS_REQUIRE_CLIENT_AUTH).toBe('true');
    expect(env('temporal').TEMPORAL_TLS_CLIENT1_CA_CERT).toBe('/run/secrets/tcr_mtls_ca');
    const certs = ['worker', 'ingress', 'temporal-ui', 'temporal-admin-tools'].map(
      (name) => env(name).TEMPORAL_TLS_CERT,
    );
    expect(new Set(certs).size).toBe(4);
    // The product's services: exactly the three variables compose already passes them.
    for (const name of ['worker', 'ingress'])
      expect(Object.keys(env(name)).sort()).toEqual([
        'TEMPORAL_TLS_CA',
        'TEMPORAL_TLS_CERT',
        'TEMPORAL_TLS_KEY',
      ]);
  });

  it('mounts the files gen-mtls-certs.sh writes, and those chain to its CA and are read by the product', () => {
    const dir = tempDir('tcr-mtls-');
    execFileSync('sh', [join(root, 'temporal-docker/gen-mtls-certs.sh'), 'alice'], {
      env: { ...process.env, TCR_MTLS_DIR: dir },
      stdio: 'pipe',
    });
    const secrets = obj(overlay.secrets);
    for (const [name, value] of Object.entries(secrets)) {
      const file = String(obj(value).file);
      expect(file, name).toMatch(/^\.\/secrets\/mtls\//);
      readFileSync(join(dir, file.slice('./secrets/mtls/'.length))); // exists
    }
    for (const cert of ['frontend', 'worker', 'ingress', 'ui', 'admin', 'operator-alice'])
      expect(
        execFileSync('openssl', ['verify', '-CAfile', join(dir, 'ca.pem'), join(dir, `${cert}.pem`)], {
          encoding: 'utf8',
        }),
      ).toContain(': OK');
    const problems: string[] = [];
    const connection = loadTemporalConnection(
      {
        TEMPORAL_ADDRESS: 'temporal:7233',
        TEMPORAL_TLS_CERT: join(dir, 'operator-alice.pem'),
        TEMPORAL_TLS_KEY: join(dir, 'operator-alice.key'),
        TEMPORAL_TLS_CA: join(dir, 'ca.pem'),
      },
      problems,
    );
    expect(problems).toEqual([]);
    expect(callerIdentity(connection, { user: 'alice', host: 'ops-1' })).toBe(
      'tcr os-user=alice host=ops-1 cert="O=tcr, OU=operator, CN=alice"',
    );
  });
});
