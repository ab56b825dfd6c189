/**
 * Static checks of the Docker deployment (no Docker engine runs here): the compose file parses, every
 * image is pinned, every environment variable the product reads (scanned from src/) is named in the
 * compose file or .env.example and documented in docs/operations.md, the Dockerfile's commands exist
 * in the CLI, the search attributes registered equal the product's, no secret is baked into an image.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commands } from '../../src/cli/run.js';
import { loadWorkerConfig } from '../../src/config/worker-config.js';
import { allSearchAttributeKeys, searchAttributeCliType } from '../../src/contracts/search-attributes.js';
import { WORKFLOW_TASK_QUEUE } from '../../src/contracts/task-queues.js';
import { DEFAULT_PARKED_TASK_QUEUE } from '../../src/ingress/config.js';
import { requirement } from '../support/ci-requirement.js';
import { tempDir } from '../support/temp-dir.js';
import { NOT_ENVIRONMENT, SYSTEM_VARIABLES, scanEnvironmentVariables } from './env-scan.js';
import { parseYamlSubset, type YamlValue } from './yaml-subset.js';

const root = join(import.meta.dirname, '..', '..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');

type Obj = { [key: string]: YamlValue };
const isObj = (v: YamlValue | undefined): v is Obj =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
function obj(v: YamlValue | undefined, what: string): Obj {
  if (!isObj(v)) throw new Error(`${what} is not a mapping`);
  return v;
}

const composeText = read('temporal-docker/docker-compose.yml');
const compose = obj(parseYamlSubset(composeText), 'compose file');
const services = obj(compose.services, 'services');
const envExample = read('temporal-docker/.env.example');
const dockerfile = read('Dockerfile');
const operations = () => (existsSync(join(root, 'docs/operations.md')) ? read('docs/operations.md') : '');
const scan = scanEnvironmentVariables(root);

function environmentOf(name: string): Obj {
  const env = obj(services[name], name).environment;
  return env === undefined || env === null ? {} : obj(env, `${name}.environment`);
}

/** Variables the product reads, minus system ones the deployment does not set. */
const productVariables = [...scan.variables.keys()].filter((n) => !Object.hasOwn(SYSTEM_VARIABLES, n)).sort();

/** `NAME` as a whole word (so TCR_ACCOUNTS does not count as named by TCR_ACCOUNTS_FILE). */
const namedIn = (text: string, name: string) =>
  new RegExp(`(^|[^A-Za-z0-9_<>])${name.replace(/[<>]/g, '\\$&')}([^A-Za-z0-9_]|$)`, 'm').test(text);

/** A python3 that imports PyYAML: the one on PATH, else Debian's (python3-yaml). */
const python = ['python3', '/usr/bin/python3'].find(
  (candidate) => spawnSync(candidate, ['-c', 'import yaml'], { stdio: 'ignore' }).status === 0,
);
const pyyaml = requirement(
  'PyYAML for python3',
  python,
  'bash scripts/setup-test-tools.sh installs it (Debian: apt-get install python3-yaml)',
);

describe('temporal-docker/docker-compose.yml', () => {
  it('parses and has the expected services', () => {
    expect(Object.keys(services).sort()).toEqual(
      [
        'grafana',
        'ingress',
        'postgresql',
        'prometheus',
        'temporal',
        'temporal-admin-tools',
        'temporal-ui',
        'worker',
      ].sort(),
    );
  });

  it.skipIf(pyyaml.skip)(`parses to the same document with PyYAML${pyyaml.note}`, () => {
    const json = execFileSync(
      pyyaml.check(),
      ['-c', 'import sys, json, yaml; print(json.dumps(yaml.safe_load(sys.stdin.read())))'],
      { input: composeText, encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] },
    );
    expect(JSON.parse(json)).toEqual(compose);
  });

  it('pins every image to a version (no latest, no bare name), optionally by digest', () => {
    for (const [name, raw] of Object.entries(services)) {
      const image = obj(raw, name).image;
      expect(typeof image, `${name} has an image`).toBe('string');
      const [reference, digest] = String(image).split('@');
      const tag = (reference ?? '').split(':')[1] ?? '';
      expect(tag, `${name} image ${String(image)}`).toMatch(/^v?\d+\.\d+(\.\d+)?([-.][\w.-]+)?$/);
      if (digest !== undefined) expect(digest, `${name} digest`).toMatch(/^sha256:[0-9a-f]{64}$/);
      expect(String(image)).not.toContain('${');
    }
    expect(dockerfile).toMatch(/^ARG NODE_IMAGE=node:\d+\.\d+\.\d+-bookworm-slim$/m);
    for (const from of dockerfile.match(/^FROM .*/gm) ?? [])
      expect(from).toMatch(/^FROM \$\{NODE_IMAGE\} AS /);
  });

  it('has a health check on every long-running service, and the product waits for the setup job', () => {
    for (const [name, raw] of Object.entries(services)) {
      if (name === 'temporal-admin-tools') continue;
      const healthcheck = obj(obj(raw, name).healthcheck, `${name}.healthcheck`);
      expect(Array.isArray(healthcheck.test), `${name} healthcheck.test`).toBe(true);
    }
    const workerDeps = obj(obj(services.worker, 'worker').depends_on, 'worker.depends_on');
    expect(obj(workerDeps['temporal-admin-tools'], 'dep').condition).toBe('service_completed_successfully');
    expect(obj(services['temporal-admin-tools'], 'admin').restart).toBe('no');
  });

  it('registers exactly the search attributes the workflows use, with their types', () => {
    const pairs = String(environmentOf('temporal-admin-tools').TCR_SEARCH_ATTRIBUTES).split(/\s+/);
    const registered = Object.fromEntries(pairs.map((p) => p.split('=') as [string, string]));
    const expected = Object.fromEntries(
      allSearchAttributeKeys.map((k) => [k.name, searchAttributeCliType[k.type]]),
    );
    expect(registered).toEqual(expected);
    const script = read('temporal-docker/register-search-attributes.sh');
    expect(script).toContain('temporal operator search-attribute create');
    expect(script).toContain('$TCR_SEARCH_ATTRIBUTES');
    const volumes = obj(services['temporal-admin-tools'], 'admin').volumes as string[];
    expect(volumes.some((v) => v.startsWith('./register-search-attributes.sh:'))).toBe(true);
  });

  it('runs the worker and ingress from the project image with commands the CLI has', () => {
    expect(dockerfile).toContain('ENTRYPOINT ["node", "dist/cli/main.js"]');
    expect(read('src/cli/main.ts')).toMatch(/runCli|commands/);
    const worker = obj(services.worker, 'worker');
    const ingress = obj(services.ingress, 'ingress');
    for (const service of [worker, ingress]) {
      expect(obj(service.build, 'build').dockerfile).toBe('Dockerfile');
      expect(obj(service.build, 'build').context).toBe('..');
    }
    expect(ingress.image).toBe(worker.image);
    for (const service of [worker, ingress]) {
      const [command] = service.command as string[];
      expect(Object.hasOwn(commands, command as string), `tcr ${String(command)} exists`).toBe(true);
    }
    expect((worker.command as string[])[0]).toBe('worker');
    expect((ingress.command as string[])[0]).toBe('ingress');
    // Servers inside containers must listen beyond loopback to be reachable and scraped.
    expect(environmentOf('ingress').TCR_INGRESS_HOST).toBe('0.0.0.0');
    expect(environmentOf('worker').TCR_WORKER_METRICS_ADDRESS).toBe('0.0.0.0:9464');
  });

  it('parks events on the task queue the worker polls for workflows', () => {
    // The worker hosts parkedEvents beside the entity workflows; a parked-events workflow started on
    // any other queue would never run, and its events never reach their owner.
    expect(String(environmentOf('ingress').TCR_PARKED_EVENTS_TASK_QUEUE)).toBe(
      `\${TCR_PARKED_EVENTS_TASK_QUEUE:-${WORKFLOW_TASK_QUEUE}}`,
    );
    expect(envExample).toMatch(new RegExp(`^TCR_PARKED_EVENTS_TASK_QUEUE=${WORKFLOW_TASK_QUEUE}$`, 'm'));
    expect(DEFAULT_PARKED_TASK_QUEUE).toBe(WORKFLOW_TASK_QUEUE);
  });

  it('gives the ingress the same Temporal connection variables as the worker', () => {
    // The docs say one .env serves an external cluster or Temporal Cloud for both.
    const temporalOf = (name: string) =>
      Object.fromEntries(Object.entries(environmentOf(name)).filter(([k]) => k.startsWith('TEMPORAL_')));
    expect(Object.keys(temporalOf('worker')).sort()).toEqual([
      'TEMPORAL_ADDRESS',
      'TEMPORAL_API_KEY',
      'TEMPORAL_NAMESPACE',
      'TEMPORAL_TLS_CA',
      'TEMPORAL_TLS_CERT',
      'TEMPORAL_TLS_KEY',
    ]);
    expect(temporalOf('ingress')).toEqual(temporalOf('worker'));
  });

  it('builds a production image that runs as a non-root user with prod dependencies only', () => {
    expect(dockerfile).toMatch(/^RUN npm ci --ignore-scripts --no-audit/m);
    expect(dockerfile).toMatch(/^RUN npm ci --omit=dev --ignore-scripts/m);
    expect(dockerfile).toContain('RUN npm run build');
    const runtime = dockerfile.slice(dockerfile.lastIndexOf('FROM '));
    expect(runtime).toMatch(/^USER node$/m);
    expect(runtime).toContain('COPY --from=prod-deps');
    expect(runtime).toContain('/app/dist ./dist');
    // Every file the image copies must be in the build context .dockerignore lets through.
    const dockerignore = read('.dockerignore');
    for (const m of dockerfile.matchAll(/^COPY (?!--from)(?:--\S+ )*(.+) \S+$/gm)) {
      for (const source of (m[1] as string).split(' ')) {
        expect(existsSync(join(root, source)), `${source} exists`).toBe(true);
        expect(dockerignore, `${source} allowed in .dockerignore`).toMatch(
          new RegExp(`^!${source.replace(/\./g, '\\.')}(/\\*\\*)?$`, 'm'),
        );
      }
    }
    expect(dockerignore).toMatch(/^\*\*\/\.env$/m);
  });

  it('never bakes a secret into an image or writes one literally into the compose file', () => {
    const secretName = /SECRET|PASSWORD|PWD|API_KEY|TOKEN/;
    for (const m of dockerfile.matchAll(/^(?:ENV|ARG)\s+(\w+)/gm)) expect(m[1]).not.toMatch(secretName);
    for (const name of Object.keys(services)) {
      for (const [variable, value] of Object.entries(environmentOf(name))) {
        if (variable.endsWith('_FILE')) {
          // A secret file's path: a Docker secret, never a value.
          if (secretName.test(variable))
            expect(String(value), `${name}.${variable}`).toMatch(/^\/run\/secrets\//);
        } else if (secretName.test(variable) && variable !== 'TCR_SEARCH_ATTRIBUTES')
          expect(String(value), `${name}.${variable}`).toMatch(/^\$\{[A-Z0-9_]+(:?[-?][^}]*)?\}$/);
      }
    }
    // The CSP credentials reach the worker as a Docker secret file, not an environment value.
    expect(environmentOf('worker').TCR_ACCOUNTS_FILE).toBe('/run/secrets/tcr_accounts');
    expect(environmentOf('worker').TCR_ACCOUNTS).toBeUndefined();
    expect(obj(obj(compose.secrets, 'secrets').tcr_accounts, 'tcr_accounts').file).toBe(
      './secrets/accounts.json',
    );
    // So do the webhook signing secrets (one per line: no separator can split a secret).
    expect(environmentOf('ingress').TCR_WEBHOOK_SECRETS_FILE).toBe('/run/secrets/tcr_webhook_secrets');
    expect(environmentOf('ingress').TCR_WEBHOOK_SECRETS).toBeUndefined();
    expect(obj(services.ingress, 'ingress').secrets).toEqual([
      'tcr_webhook_secrets',
      'tcr_ingress_public_keys',
    ]);
    expect(obj(obj(compose.secrets, 'secrets').tcr_webhook_secrets, 'tcr_webhook_secrets').file).toBe(
      './secrets/webhook-secrets',
    );
    // And the payload keys to the worker; the ingress gets only the public ingress keys (it encrypts,
    // and can decrypt no history: issue 35, item 3).
    expect(environmentOf('worker').TCR_PAYLOAD_KEYS_FILE).toBe('/run/secrets/tcr_payload_keys');
    expect(environmentOf('worker').TCR_PAYLOAD_KEYS).toBeUndefined();
    expect(obj(services.worker, 'worker').secrets).toContain('tcr_payload_keys');
    expect(environmentOf('ingress').TCR_PAYLOAD_KEYS_FILE).toBeUndefined();
    expect(environmentOf('ingress').TCR_PAYLOAD_KEYS).toBeUndefined();
    expect(environmentOf('ingress').TCR_INGRESS_PAYLOAD_PUBLIC_KEYS_FILE).toBe(
      '/run/secrets/tcr_ingress_public_keys',
    );
    expect(obj(services.ingress, 'ingress').secrets).not.toContain('tcr_payload_keys');
    expect(obj(obj(compose.secrets, 'secrets').tcr_payload_keys, 'tcr_payload_keys').file).toBe(
      './secrets/payload-keys.json',
    );
    expect(obj(obj(compose.secrets, 'secrets').tcr_ingress_public_keys, 'tcr_ingress_public_keys').file).toBe(
      './secrets/ingress-public-keys.json',
    );
    expect(read('temporal-docker/.gitignore')).toMatch(/^\.env$/m);
  });

  it('ships an accounts example that the worker configuration accepts', () => {
    // Copied and made private as the compose steps say (cp ... secrets/accounts.json; chmod 600): the
    // worker refuses an accounts file that group or others can read, as the checked-out example is.
    const file = join(tempDir('tcr-accounts-'), 'accounts.json');
    writeFileSync(file, readFileSync(join(root, 'temporal-docker/accounts.example.json')), { mode: 0o600 });
    const config = loadWorkerConfig({ TCR_ACCOUNTS_FILE: file });
    expect(config.accounts.map((a) => a.name)).toEqual(['acme']);
  });
});

describe('compose hardening', () => {
  const networks = obj(compose.networks, 'networks');
  const networksOf = (name: string) => (obj(services[name], name).networks ?? []) as string[];
  const membersOf = (network: string) => Object.keys(services).filter((s) => networksOf(s).includes(network));
  /** The services `name` shares a network with. */
  const reachableFrom = (name: string) =>
    [...new Set(networksOf(name).flatMap(membersOf))].filter((s) => s !== name).sort();
  const isInternal = (network: string) => obj(networks[network], network).internal === true;

  it('puts every service on named networks only, each declared', () => {
    for (const name of Object.keys(services)) {
      expect(networksOf(name).length, `${name} networks`).toBeGreaterThan(0);
      for (const network of networksOf(name)) expect(Object.hasOwn(networks, network), network).toBe(true);
    }
  });

  it('lets only Temporal reach PostgreSQL, and the ingress reach only Temporal and the Prometheus that scrapes it', () => {
    expect(reachableFrom('postgresql')).toEqual(['temporal']);
    expect(reachableFrom('ingress')).toEqual(['prometheus', 'temporal']);
    // Grafana reaches Prometheus alone; Prometheus reaches what it scrapes, and Grafana.
    expect(reachableFrom('grafana')).toEqual(['prometheus']);
    expect(reachableFrom('prometheus')).not.toContain('postgresql');
    // The worker talks to Temporal and the registry; it does not share a network with PostgreSQL.
    expect(reachableFrom('worker')).not.toContain('postgresql');
    expect(reachableFrom('temporal-ui')).not.toContain('postgresql');
  });

  it('makes every shared network internal; only single-service networks route out or publish', () => {
    for (const network of Object.keys(networks)) {
      const members = membersOf(network);
      if (members.length > 1) expect(isInternal(network), `${network} (${members.join(', ')})`).toBe(true);
    }
    // A service with published ports needs a network that is not internal to publish them on.
    for (const [name, raw] of Object.entries(services)) {
      if (obj(raw, name).ports === undefined) continue;
      expect(
        networksOf(name).some((n) => !isInternal(n)),
        `${name} publishes`,
      ).toBe(true);
    }
    expect(networksOf('postgresql').every(isInternal)).toBe(true);
  });

  it('drops every capability, forbids new privileges, limits memory and pids everywhere', () => {
    for (const [name, raw] of Object.entries(services)) {
      const service = obj(raw, name);
      expect(service.cap_drop, `${name}.cap_drop`).toEqual(['ALL']);
      expect(service.security_opt, `${name}.security_opt`).toContain('no-new-privileges:true');
      expect(String(service.mem_limit), `${name}.mem_limit`).toMatch(/^(\d+[mg]|\$\{[A-Z_]+:-\d+[mg]\})$/);
      expect(typeof service.pids_limit, `${name}.pids_limit`).toBe('number');
      expect(service.pids_limit as number).toBeGreaterThan(0);
    }
    // Only PostgreSQL's entry point needs capabilities back (it owns its folder, then switches user).
    const withCapAdd = Object.keys(services).filter((n) => obj(services[n], n).cap_add !== undefined);
    expect(withCapAdd).toEqual(['postgresql']);
    expect(obj(services.postgresql, 'postgresql').cap_add).toEqual([
      'CHOWN',
      'DAC_OVERRIDE',
      'FOWNER',
      'SETGID',
      'SETUID',
    ]);
  });

  it('runs read-only root file systems except where the image writes its configuration at start', () => {
    const writable = Object.keys(services)
      .filter((n) => obj(services[n], n).read_only !== true)
      .sort();
    expect(writable).toEqual(['temporal', 'temporal-ui']);
    for (const name of writable)
      expect(composeText, `${name} says why it is not read_only`).toMatch(
        new RegExp(`^  ${name}:[\\s\\S]*?# Not read_only: `, 'm'),
      );
  });

  it('publishes every port but the webhook listener on loopback only (the Temporal frontend above all)', () => {
    for (const [name, raw] of Object.entries(services)) {
      for (const port of (obj(raw, name).ports ?? []) as string[]) {
        if (port.startsWith(`\${TCR_INGRESS_PUBLISH`)) continue;
        expect(port, `${name} publishes ${port}`).toMatch(/^127\.0\.0\.1:/);
      }
    }
    expect(obj(services.temporal, 'temporal').ports).toEqual([`127.0.0.1:\${TEMPORAL_GRPC_PORT:-7233}:7233`]);
    // The webhook listener's default is loopback too (a TLS proxy on the host in front of it).
    expect(envExample).toMatch(/^TCR_INGRESS_PUBLISH=127\.0\.0\.1:8470$/m);
  });

  it('turns the Web UI write actions off by default', () => {
    expect(environmentOf('temporal-ui').TEMPORAL_DISABLE_WRITE_ACTIONS).toBe(
      `\${TEMPORAL_UI_DISABLE_WRITE_ACTIONS:-true}`,
    );
    expect(envExample).toMatch(/^TEMPORAL_UI_DISABLE_WRITE_ACTIONS=true$/m);
  });

  it('scrapes the worker, the ingress and Temporal, loads the alert rules and provisions the dashboard', () => {
    const prometheus = obj(services.prometheus, 'prometheus');
    expect(prometheus.volumes).toEqual([
      './prometheus/prometheus.yml:/etc/prometheus/prometheus.yml:ro',
      './prometheus/alerts.yml:/etc/prometheus/alerts.yml:ro',
      'prometheus-data:/prometheus',
    ]);
    const config = read('temporal-docker/prometheus/prometheus.yml');
    // Each target is a service and port the compose file really serves metrics on.
    expect(config).toContain('"worker:9464"');
    expect(environmentOf('worker').TCR_WORKER_METRICS_ADDRESS).toBe('0.0.0.0:9464');
    expect(config).toContain('"ingress:8471"');
    expect(environmentOf('ingress').TCR_INGRESS_INTERNAL_LISTEN).toBe('0.0.0.0:8471');
    expect(config).toContain('"temporal:8000"');
    expect(environmentOf('temporal').PROMETHEUS_ENDPOINT).toBe('0.0.0.0:8000');
    const grafana = obj(services.grafana, 'grafana');
    expect(grafana.volumes).toEqual([
      './grafana/provisioning:/etc/grafana/provisioning:ro',
      './grafana/dashboards:/var/lib/grafana/dashboards:ro',
      'grafana-data:/var/lib/grafana',
    ]);
    // A login, no anonymous access; Prometheus itself is not published.
    expect(environmentOf('grafana').GF_AUTH_ANONYMOUS_ENABLED).toBe('false');
    expect(prometheus.ports).toBeUndefined();
  });

  it('documents authentication in front of the UI and mTLS on the frontend', () => {
    const doc = operations();
    for (const needle of [
      'TEMPORAL_AUTH_ENABLED',
      'TEMPORAL_TLS_REQUIRE_CLIENT_AUTH',
      'TEMPORAL_TLS_FRONTEND_CERT',
      'TEMPORAL_TLS_CLIENT1_CA_CERT',
    ])
      expect(doc, needle).toContain(needle);
  });

  it('runs the image with the pinned jemalloc preloaded, the same package the setup script fetches', () => {
    const toolchain = read('scripts/toolchain.env');
    const version = /^JEMALLOC_DEB_VERSION=(\S+)$/m.exec(toolchain)?.[1];
    expect(version).toBeDefined();
    expect(toolchain).toMatch(/^JEMALLOC_DEB_SHA256_AMD64=[0-9a-f]{64}$/m);
    expect(toolchain).toMatch(/^JEMALLOC_DEB_SHA256_ARM64=[0-9a-f]{64}$/m);
    const runtime = dockerfile.slice(dockerfile.lastIndexOf('FROM '));
    expect(runtime).toContain(`apt-get install -y --no-install-recommends libjemalloc2=${version} `);
    const linked = /ln -s .+ (\S+)$/m.exec(runtime)?.[1];
    expect(runtime).toMatch(new RegExp(`^ENV LD_PRELOAD=${linked}$`, 'm'));
    expect(runtime).toMatch(/^ENV MALLOC_CONF=background_thread:true,/m);
    // Installed before the code is copied and the user dropped: apt runs as root, once, cached.
    expect(runtime.indexOf('apt-get install')).toBeLessThan(runtime.indexOf('USER node'));
  });

  it('builds the image without running dependency install scripts', () => {
    const installs = dockerfile.match(/^RUN npm (ci|install)\b.*$/gm) ?? [];
    expect(installs.length).toBe(2);
    for (const line of installs) expect(line).toContain('--ignore-scripts');
  });

  it('pins no image older than the patch releases it was reviewed at', () => {
    const image = (name: string) => String(obj(services[name], name).image).split('@')[0];
    expect(image('postgresql')).toBe('postgres:16.15-bookworm');
    expect(image('temporal')).toBe('temporalio/auto-setup:1.29.7');
    expect(image('temporal-admin-tools')).toBe('temporalio/admin-tools:1.29.7-tctl-1.18.4-cli-1.7.2');
    expect(image('prometheus')).toBe('prom/prometheus:v3.5.0');
    expect(image('grafana')).toBe('grafana/grafana:12.1.0');
    // The image's Node is the one scripts/test-on-image-node.sh runs the suite on, and a supported line.
    const imageNode = /^IMAGE_NODE_VERSION=(\d+)\.(\d+)\.(\d+)$/m.exec(read('scripts/toolchain.env'));
    expect(imageNode).not.toBeNull();
    expect(dockerfile).toContain(`\nARG NODE_IMAGE=node:${imageNode![0].split('=')[1]}-bookworm-slim\n`);
    expect(Number(imageNode![1])).toBeGreaterThanOrEqual(22); // Node 20 reached end of life in April 2026
  });
});

describe('temporal-docker/pin-images.sh', () => {
  it('pins each pulled image to the digest docker reports, and leaves built and pinned ones', () => {
    const dir = tempDir('pin-images-');
    const bin = join(dir, 'bin');
    mkdirSync(bin);
    const digest = (ref: string) => `sha256:${createHash('sha256').update(ref).digest('hex')}`;
    // A stand-in for docker: `pull -q` succeeds, `image inspect` prints the repo digest.
    writeFileSync(
      join(bin, 'docker'),
      `#!/bin/sh\ncase "$1" in\n  pull) exit 0 ;;\n  image) ref="$5"; printf '%s@sha256:%s\\n' "\${ref%%:*}" "$(printf '%s' "$ref" | sha256sum | cut -c1-64)" ;;\nesac\n`,
      { mode: 0o755 },
    );
    const compose = join(dir, 'docker-compose.yml');
    const pinned = `redis:7.4.1@${digest('old')}`;
    writeFileSync(
      compose,
      `services:\n  a:\n    image: postgres:16.15-bookworm\n  b:\n    image: tcr-orchestrator:0.1.0\n  c:\n    image: ${pinned}\n`,
    );
    copyFileSync(join(root, 'temporal-docker/pin-images.sh'), join(dir, 'pin-images.sh'));
    execFileSync('sh', [join(dir, 'pin-images.sh')], {
      env: { ...process.env, PATH: `${bin}:${process.env.PATH}` },
      stdio: 'pipe',
    });
    const images = readFileSync(compose, 'utf8').match(/image: .*/g);
    expect(images).toEqual([
      `image: postgres:16.15-bookworm@${digest('postgres:16.15-bookworm')}`,
      'image: tcr-orchestrator:0.1.0',
      `image: ${pinned}`,
    ]);
  });
});

describe('environment variables', () => {
  it('the scan finds the variables of every part (worker, ingress, registry, CLI)', () => {
    for (const known of [
      'TEMPORAL_ADDRESS',
      'TCR_ACCOUNTS_FILE',
      'TCR_WEBHOOK_SECRETS',
      'TCR_INGRESS_LOG_LEVEL',
      'TCR_REGISTRY_TIMEOUT_MS',
      'TCR_REGISTRY_PRODUCTION_HOSTS',
      'TCR_WORKER_METRICS_ADDRESS',
    ])
      expect(productVariables).toContain(known);
  });

  it('names every variable the product reads in the compose file or .env.example', () => {
    const missing = productVariables.filter((n) => !namedIn(composeText, n) && !namedIn(envExample, n));
    expect(missing, 'add them to temporal-docker/.env.example (or docker-compose.yml)').toEqual([]);
  });

  it('documents every variable the product reads in docs/operations.md', () => {
    const missing = [...scan.variables.keys()].filter((n) => !namedIn(operations(), n));
    expect(missing, 'add them to the configuration table of docs/operations.md').toEqual([]);
  });

  it('excludes only names that are really not read from the environment', () => {
    for (const name of Object.keys(NOT_ENVIRONMENT)) expect(scan.directReads.has(name)).toBe(false);
  });

  // Compose-only variables (the product does not read them; compose interpolates them): each reaches
  // the service and the field it is for, with its default (written %{NAME...} for compose's ${NAME...}).
  const composeOnly: Record<string, { service: string; field: string; as: string }[]> = {
    POSTGRES_USER: [
      { service: 'postgresql', field: 'environment', as: 'POSTGRES_USER: %{POSTGRES_USER:-temporal}' },
      { service: 'temporal', field: 'environment', as: 'POSTGRES_USER: %{POSTGRES_USER:-temporal}' },
    ],
    POSTGRES_PASSWORD: [
      { service: 'postgresql', field: 'environment', as: 'POSTGRES_PASSWORD: %{POSTGRES_PASSWORD:?' },
      { service: 'temporal', field: 'environment', as: 'POSTGRES_PWD: %{POSTGRES_PASSWORD:?' },
    ],
    POSTGRES_MEM_LIMIT: [{ service: 'postgresql', field: 'mem_limit', as: '%{POSTGRES_MEM_LIMIT:-1g}' }],
    TEMPORAL_NAMESPACE_RETENTION: [
      {
        service: 'temporal',
        field: 'environment',
        as: 'DEFAULT_NAMESPACE_RETENTION: %{TEMPORAL_NAMESPACE_RETENTION:-720h}',
      },
    ],
    TEMPORAL_GRPC_PORT: [
      { service: 'temporal', field: 'ports', as: '127.0.0.1:%{TEMPORAL_GRPC_PORT:-7233}:7233' },
    ],
    TEMPORAL_MEM_LIMIT: [{ service: 'temporal', field: 'mem_limit', as: '%{TEMPORAL_MEM_LIMIT:-2g}' }],
    TEMPORAL_UI_PORT: [
      { service: 'temporal-ui', field: 'ports', as: '127.0.0.1:%{TEMPORAL_UI_PORT:-8080}:8080' },
      {
        service: 'temporal-ui',
        field: 'environment',
        as: 'TEMPORAL_CORS_ORIGINS: http://localhost:%{TEMPORAL_UI_PORT:-8080}',
      },
    ],
    TEMPORAL_UI_DISABLE_WRITE_ACTIONS: [
      {
        service: 'temporal-ui',
        field: 'environment',
        as: 'TEMPORAL_DISABLE_WRITE_ACTIONS: %{TEMPORAL_UI_DISABLE_WRITE_ACTIONS:-true}',
      },
    ],
    TCR_WORKER_METRICS_PORT: [
      { service: 'worker', field: 'ports', as: '127.0.0.1:%{TCR_WORKER_METRICS_PORT:-9464}:9464' },
    ],
    TCR_WORKER_MEM_LIMIT: [{ service: 'worker', field: 'mem_limit', as: '%{TCR_WORKER_MEM_LIMIT:-2g}' }],
    TCR_INGRESS_PUBLISH: [
      { service: 'ingress', field: 'ports', as: '%{TCR_INGRESS_PUBLISH:-127.0.0.1:8470}:8470' },
    ],
    TCR_INGRESS_INTERNAL_PORT: [
      { service: 'ingress', field: 'ports', as: '127.0.0.1:%{TCR_INGRESS_INTERNAL_PORT:-8471}:8471' },
    ],
    TCR_INGRESS_MEM_LIMIT: [{ service: 'ingress', field: 'mem_limit', as: '%{TCR_INGRESS_MEM_LIMIT:-512m}' }],
    PROMETHEUS_MEM_LIMIT: [{ service: 'prometheus', field: 'mem_limit', as: '%{PROMETHEUS_MEM_LIMIT:-1g}' }],
    GRAFANA_MEM_LIMIT: [{ service: 'grafana', field: 'mem_limit', as: '%{GRAFANA_MEM_LIMIT:-512m}' }],
    GRAFANA_PORT: [{ service: 'grafana', field: 'ports', as: '127.0.0.1:%{GRAFANA_PORT:-3000}:3000' }],
    GRAFANA_ADMIN_PASSWORD: [
      {
        service: 'grafana',
        field: 'environment',
        as: 'GF_SECURITY_ADMIN_PASSWORD: %{GRAFANA_ADMIN_PASSWORD:?',
      },
    ],
  };

  /** A service field as `KEY: value` lines (mappings), values (lists) or the value itself. */
  const fieldLines = (service: string, field: string): string[] => {
    const value = obj(services[service], service)[field];
    if (Array.isArray(value)) return value.map(String);
    if (isObj(value)) return Object.entries(value).map(([k, v]) => `${k}: ${String(v)}`);
    return [String(value)];
  };

  it('passes each compose-only variable to the service and field it is for, and nowhere else', () => {
    for (const [variable, places] of Object.entries(composeOnly)) {
      for (const { service, field, as } of places)
        expect(
          fieldLines(service, field).some((line) => line.startsWith(as.replaceAll('%{', '\u0024{'))),
          `${variable} reaches ${service}.${field} as ${as}`,
        ).toBe(true);
      const usedBy = Object.keys(services).filter((name) =>
        JSON.stringify(services[name]).includes(`\${${variable}`),
      );
      expect(usedBy.sort(), `services interpolating ${variable}`).toEqual(
        [...new Set(places.map((p) => p.service))].sort(),
      );
    }
  });

  it('every .env.example variable is read by the product or is a compose-only one checked above', () => {
    const listed = [...envExample.matchAll(/^([A-Z][A-Z0-9_]+)=/gm)].map((m) => m[1] as string);
    const unaccounted = listed.filter((n) => !productVariables.includes(n) && !Object.hasOwn(composeOnly, n));
    expect(unaccounted).toEqual([]);
  });

  it('gives every product variable interpolated in compose a value in .env.example', () => {
    const interpolated = new Set([...composeText.matchAll(/\$\{([A-Z0-9_]+)/g)].map((m) => m[1] as string));
    for (const name of interpolated) expect(envExample, name).toMatch(new RegExp(`^#? ?${name}=`, 'm'));
  });
});
