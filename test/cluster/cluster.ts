/**
 * A production-shaped cluster on loopback, every part its own process, in one temporary folder:
 *
 *   PostgreSQL (initdb into the folder, its own port, password authentication)
 *   Temporal server (all services in one process) on it: SQL persistence and SQL visibility, schema
 *     set up with the SQL tool, the dynamic config of temporal-docker/dynamicconfig/tcr.yaml, the
 *     search attributes registered by temporal-docker/register-search-attributes.sh
 *   two `tcr worker` processes (accounts file, payload keys file)
 *   two `tcr ingress` replicas behind nginx (an upstream with both), trusting only nginx's forwarded
 *     address: nginx connects from 127.0.0.2, the only trusted proxy, and the only allowed source
 *     is the simulator's address nginx forwards (127.0.0.1)
 *   `tcr simulator`, delivering its webhooks to nginx
 *
 * Built by scripts/setup-cluster.sh; run by scripts/cluster-test.sh (test/cluster/cluster.test.ts).
 * Each part can be stopped, killed and started again on the same ports and data.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { until } from '../../bench/support/stats.js';
import { dataConverter } from '../../src/codec/data-converter.js';
import { WORKFLOW_TASK_QUEUE } from '../../src/contracts/task-queues.js';
import { SimulatorControl } from '../../src/simulator/control-client.js';
import { DEFAULT_ACCOUNT } from '../../src/simulator/index.js';
import { freePort, waitForTcp } from '../../src/stack/ports.js';
import { subscribeIngress } from '../../src/stack/webhooks.js';
import { searchAttributeFlags } from '../../src/toolchain/dev-server.js';
import { projectRoot, temporalCliPath, toolchainVersions } from '../../src/toolchain/paths.js';
import { startIngressProcess } from '../support/ingress-process.js';

export const ACCOUNT = 'local';
const NAMESPACE = 'default';
const NGINX_SOURCE = '127.0.0.2';
const cli = join(projectRoot, 'dist/cli/main.js');

/** A child process of the cluster, its output appended to `{dir}/logs/{name}.log`. */
export interface Proc {
  name: string;
  child: ChildProcess;
  exited: Promise<number | null>;
  alive(): boolean;
  /** What it wrote to stdout and stderr so far. */
  output(): string;
}

function startProc(
  dir: string,
  name: string,
  command: string,
  args: string[],
  opts: { env?: Record<string, string>; uid?: number; gid?: number; cwd?: string } = {},
): Proc {
  const child = spawn(command, args, {
    env: { ...process.env, ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(opts.uid !== undefined ? { uid: opts.uid, gid: opts.gid } : {}),
    ...(opts.cwd ? { cwd: opts.cwd } : {}),
  });
  let out = '';
  const take = (chunk: Buffer) => {
    out += chunk.toString();
    if (out.length > 200_000) out = out.slice(-100_000);
  };
  child.stdout?.on('data', take);
  child.stderr?.on('data', take);
  let running = true;
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code, signal) => {
      running = false;
      writeFileSync(join(dir, 'logs', `${name}.log`), out, { flag: 'a' });
      resolve(code ?? (signal ? -1 : null));
    }),
  );
  return { name, child, exited, alive: () => running, output: () => out };
}

async function stopProc(p: Proc | undefined, signal: NodeJS.Signals = 'SIGTERM', graceMs = 30_000) {
  if (!p?.alive()) return;
  p.child.kill(signal);
  const timer = setTimeout(() => p.child.kill('SIGKILL'), graceMs);
  await p.exited;
  clearTimeout(timer);
}

const run = (command: string, args: string[], env: Record<string, string> = {}, uid?: number) =>
  execFileSync(command, args, {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(uid !== undefined ? { uid, gid: uid } : {}),
  }).toString();

function pgBin(): string {
  const versions = readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a));
  for (const v of versions) {
    const bin = `/usr/lib/postgresql/${v}/bin`;
    if (existsSync(join(bin, 'postgres'))) return bin;
  }
  throw new Error('PostgreSQL is not installed: run bash scripts/setup-cluster.sh');
}

function nginxBin(): string {
  for (const p of ['/usr/sbin/nginx', '/usr/bin/nginx']) if (existsSync(p)) return p;
  throw new Error('nginx is not installed: run bash scripts/setup-cluster.sh');
}

export function temporalServerDir(): string {
  const tools = process.env.TCR_TOOLS_DIR || join(projectRoot, '.tools');
  const dir = join(tools, 'temporal-server', toolchainVersions().TEMPORAL_SERVER_VERSION ?? '');
  if (!existsSync(join(dir, 'temporal-server')))
    throw new Error(`${dir}/temporal-server is missing: run bash scripts/setup-cluster.sh`);
  return dir;
}

/** `n` distinct free loopback ports in 20000-32767 (random, each bound once to check it is free). */
async function lowPorts(n: number): Promise<number[]> {
  const out: number[] = [];
  while (out.length < n) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (out.includes(port)) continue;
    const free = await new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
    if (free) out.push(port);
  }
  return out;
}

export interface Cluster {
  dir: string;
  client: Client;
  control: SimulatorControl;
  simulatorUrl: string;
  temporalAddress: string;
  webhookUrl: string;
  workers: Proc[];
  ingress: { url: string; port: number; proc: Proc }[];
  /** SIGKILLs worker i and starts a new one in its place; resolves once it runs. */
  killWorker(i: number): Promise<void>;
  /** Stops ingress replica i (SIGTERM, graceful). */
  stopIngress(i: number): Promise<void>;
  /** Starts ingress replica i again on its port. */
  startIngress(i: number): Promise<void>;
  restartTemporal(): Promise<void>;
  restartPostgres(): Promise<void>;
  /** Every process's output so far (for a failure message). */
  logs(): string;
  stop(): Promise<void>;
}

export async function startCluster(opts: {
  timeScale: number;
  log?: (line: string) => void;
}): Promise<Cluster> {
  const log = opts.log ?? (() => undefined);
  const dir = mkdtempSync(join(tmpdir(), 'tcr-cluster-'));
  // PostgreSQL runs as its own user (it refuses root): the folder must be traversable.
  chmodSync(dir, 0o711);
  mkdirSync(join(dir, 'logs'));
  const procs = new Set<Proc>();
  const track = (p: Proc) => {
    procs.add(p);
    p.exited.then(() => procs.delete(p));
    return p;
  };
  const cleanups: (() => Promise<void>)[] = [];
  let connection: Connection | undefined;
  const stop = async () => {
    for (const step of cleanups.splice(0).reverse()) await step().catch(() => undefined);
    for (const p of [...procs]) await stopProc(p, 'SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  };
  const logs = () => [...procs].map((p) => `--- ${p.name}\n${p.output().slice(-4000)}`).join('\n');
  try {
    // --- PostgreSQL -----------------------------------------------------------------------------
    const bin = pgBin();
    const isRoot = process.getuid?.() === 0;
    const pgUid = isRoot ? Number(run('id', ['-u', 'postgres']).trim()) : undefined;
    const pgGid = isRoot ? Number(run('id', ['-g', 'postgres']).trim()) : undefined;
    const pgData = join(dir, 'pg');
    mkdirSync(pgData, { mode: 0o700 });
    const pgPassword = randomBytes(24).toString('hex');
    const pwFile = join(dir, 'pg-password');
    writeFileSync(pwFile, `${pgPassword}\n`, { mode: 0o600 });
    if (isRoot) {
      chownSync(pgData, pgUid!, pgGid!);
      chownSync(pwFile, pgUid!, pgGid!);
    }
    execFileSync(
      join(bin, 'initdb'),
      [
        '-D',
        pgData,
        '-U',
        'temporal',
        `--pwfile=${pwFile}`,
        '--auth=scram-sha-256',
        '-E',
        'UTF8',
        '--no-sync',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'], cwd: dir, ...(isRoot ? { uid: pgUid, gid: pgGid } : {}) },
    );
    rmSync(pwFile);
    const pgPort = await freePort();
    let postgres: Proc | undefined;
    const startPostgres = async () => {
      postgres = track(
        startProc(
          dir,
          'postgres',
          join(bin, 'postgres'),
          ['-D', pgData, '-p', String(pgPort), '-c', 'listen_addresses=127.0.0.1', '-k', pgData],
          isRoot ? { uid: pgUid, gid: pgGid, cwd: dir } : { cwd: dir },
        ),
      );
      const p = postgres;
      await until(
        'PostgreSQL accepting connections',
        async () => {
          if (!p.alive()) throw new Error(`PostgreSQL exited: ${p.output()}`);
          try {
            run(join(bin, 'pg_isready'), ['-q', '-h', '127.0.0.1', '-p', String(pgPort)]);
            return true;
          } catch {
            return undefined;
          }
        },
        60_000,
        200,
      );
    };
    await startPostgres();
    cleanups.push(async () => stopProc(postgres, 'SIGINT'));
    log(`PostgreSQL on 127.0.0.1:${pgPort}`);

    // --- Temporal server: schema, config, start -------------------------------------------------
    const serverDir = temporalServerDir();
    const sqlEnv = {
      SQL_PLUGIN: 'postgres12',
      SQL_HOST: '127.0.0.1',
      SQL_PORT: String(pgPort),
      SQL_USER: 'temporal',
      SQL_PASSWORD: pgPassword,
    };
    const sqlTool = join(serverDir, 'temporal-sql-tool');
    for (const [db, schema] of [
      ['temporal', 'postgresql/v12/temporal'],
      ['temporal_visibility', 'postgresql/v12/visibility'],
    ] as const) {
      const env = { ...sqlEnv, SQL_DATABASE: db };
      run(sqlTool, ['create-database'], env);
      run(sqlTool, ['setup-schema', '-v', '0.0'], env);
      run(sqlTool, ['update-schema', '--schema-name', schema], env);
    }
    // Membership ports are kept in a PostgreSQL smallint (cluster_membership.rpc_port): below 32768,
    // under the kernel's ephemeral range, so they are probed there rather than asked of port 0.
    const low = await lowPorts(4);
    const [frontend, frontendHttp, history, matching, worker] = await Promise.all(
      Array.from({ length: 5 }, () => freePort()),
    );
    const membership = low;
    const temporalAddress = `127.0.0.1:${frontend}`;
    const configDir = join(dir, 'temporal', 'config');
    mkdirSync(configDir, { recursive: true });
    const store = (db: string, conns: number) => `
      sql:
        pluginName: postgres12
        databaseName: ${db}
        connectAddr: "127.0.0.1:${pgPort}"
        connectProtocol: tcp
        user: temporal
        password: "${pgPassword}"
        maxConns: ${conns}
        maxIdleConns: ${conns}
        maxConnLifetime: 1h`;
    const service = (grpc: number, member: number, http?: number) => `
    rpc:
      grpcPort: ${grpc}
      membershipPort: ${member}
      bindOnLocalHost: true${http ? `\n      httpPort: ${http}` : ''}`;
    writeFileSync(
      join(configDir, 'cluster.yaml'),
      `log:
  stdout: true
  level: warn
persistence:
  defaultStore: default
  visibilityStore: visibility
  numHistoryShards: 4
  datastores:
    default:${store('temporal', 20)}
    visibility:${store('temporal_visibility', 10)}
global:
  membership:
    maxJoinDuration: 30s
    broadcastAddress: 127.0.0.1
services:
  frontend:${service(frontend!, membership[0]!, frontendHttp)}
  history:${service(history!, membership[1]!)}
  matching:${service(matching!, membership[2]!)}
  worker:${service(worker!, membership[3]!)}
clusterMetadata:
  enableGlobalNamespace: false
  failoverVersionIncrement: 10
  masterClusterName: active
  currentClusterName: active
  clusterInformation:
    active:
      enabled: true
      initialFailoverVersion: 1
      rpcName: frontend
      rpcAddress: "${temporalAddress}"
dcRedirectionPolicy:
  policy: noop
dynamicConfigClient:
  filepath: "${join(projectRoot, 'temporal-docker/dynamicconfig/tcr.yaml')}"
  pollInterval: 10s
`,
      { mode: 0o600 },
    );
    const temporal = temporalCliPath();
    let server: Proc | undefined;
    const startTemporal = async () => {
      server = track(
        startProc(dir, 'temporal-server', join(serverDir, 'temporal-server'), [
          '--root',
          join(dir, 'temporal'),
          '--config',
          'config',
          '--env',
          'cluster',
          '--allow-no-auth',
          'start',
        ]),
      );
      const s = server;
      await until(
        'the Temporal server serving',
        async () => {
          if (!s.alive()) throw new Error(`the Temporal server exited: ${s.output()}`);
          try {
            const out = run(temporal, ['operator', 'cluster', 'health', '--address', temporalAddress]);
            return out.includes('SERVING') ? true : undefined;
          } catch {
            return undefined;
          }
        },
        120_000,
        500,
      );
    };
    await startTemporal();
    cleanups.push(async () => stopProc(server));
    log(`Temporal server on ${temporalAddress} (PostgreSQL persistence and visibility)`);
    // The namespace (the compose file's auto-setup image creates it) and the search attributes, by the
    // compose file's own registration job, with the attributes the code declares.
    run(temporal, [
      'operator',
      'namespace',
      'create',
      '--namespace',
      NAMESPACE,
      '--retention',
      '72h',
      '--address',
      temporalAddress,
    ]);
    const pairs = searchAttributeFlags().filter((a) => a !== '--search-attribute');
    run('sh', [join(projectRoot, 'temporal-docker/register-search-attributes.sh')], {
      PATH: `${dirname(temporal)}:${process.env.PATH}`,
      TEMPORAL_ADDRESS: temporalAddress,
      TEMPORAL_NAMESPACE: NAMESPACE,
      TCR_SEARCH_ATTRIBUTES: pairs.join(' '),
    });
    log(`namespace ${NAMESPACE}, search attributes ${pairs.join(' ')}`);

    // --- Secrets: payload keys, accounts, webhook secret ----------------------------------------
    const payloadKeys = join(dir, 'payload-keys.json');
    run(process.execPath, [cli, 'payload-keys', 'init', '--file', payloadKeys]);
    // The ingress replicas get only the public ingress keys (issue 35, item 3).
    const ingressPublicKeys = join(dir, 'ingress-public-keys.json');
    run(process.execPath, [cli, 'payload-keys', 'public', '--file', payloadKeys, '--out', ingressPublicKeys]);
    process.env.TCR_PAYLOAD_KEYS_FILE = payloadKeys;

    // --- Simulator --------------------------------------------------------------------------------
    const sim = track(
      startProc(dir, 'simulator', process.execPath, [
        cli,
        'simulator',
        '--port',
        '0',
        '--time-scale',
        String(opts.timeScale),
        '--state-file',
        join(dir, 'simulator.json'),
      ]),
    );
    cleanups.push(async () => stopProc(sim));
    const simulatorUrl = await until(
      'the simulator listening',
      async () => {
        if (!sim.alive()) throw new Error(`the simulator exited: ${sim.output()}`);
        return /control API (\S+)\/control/.exec(sim.output())?.[1];
      },
      30_000,
      100,
    );
    const control = new SimulatorControl(simulatorUrl);

    const accountsFile = join(dir, 'accounts.json');
    writeFileSync(
      accountsFile,
      JSON.stringify([
        {
          name: ACCOUNT,
          environment: 'local',
          baseUrl: simulatorUrl,
          apiKey: DEFAULT_ACCOUNT.apiKey,
          apiSecret: DEFAULT_ACCOUNT.apiSecret,
          cspId: DEFAULT_ACCOUNT.cspId,
        },
      ]),
      { mode: 0o600 },
    );
    const webhookSecret = randomBytes(32).toString('hex');
    const secretsFile = join(dir, 'webhook-secrets');
    writeFileSync(
      secretsFile,
      `# tcr webhook secrets: one secret per line; lines starting with # are comments\n${webhookSecret}\n`,
      { mode: 0o600 },
    );
    const common = {
      TEMPORAL_ADDRESS: temporalAddress,
      TEMPORAL_NAMESPACE: NAMESPACE,
      TCR_PAYLOAD_KEYS_FILE: payloadKeys,
    };

    // --- Workers ----------------------------------------------------------------------------------
    let workerSeq = 0;
    const startWorker = async (): Promise<Proc> => {
      const w = track(
        startProc(dir, `worker-${++workerSeq}`, process.execPath, [cli, 'worker'], {
          env: { ...common, TCR_ACCOUNTS_FILE: accountsFile, TCR_WORKER_METRICS_ADDRESS: 'off' },
        }),
      );
      await until(
        `worker ${workerSeq} running`,
        async () => {
          if (!w.alive()) throw new Error(`worker exited: ${w.output()}`);
          return w.output().includes('tcr worker running') ? true : undefined;
        },
        120_000,
        100,
      );
      return w;
    };
    const workers = [await startWorker(), await startWorker()];
    cleanups.push(async () => {
      await Promise.all(workers.map((w) => stopProc(w)));
    });
    log('two workers running');

    // --- Ingress replicas and nginx -------------------------------------------------------------
    const nginxPort = await freePort();
    const webhookUrl = `http://127.0.0.1:${nginxPort}/webhooks/registry`;
    const ingressEnv = {
      ...common,
      TCR_PAYLOAD_KEYS_FILE: '',
      TCR_INGRESS_PAYLOAD_PUBLIC_KEYS_FILE: ingressPublicKeys,
      TCR_PAYLOAD_ENCRYPTION: 'required',
      TCR_WEBHOOK_URL: webhookUrl,
      TCR_WEBHOOK_SECRETS_FILE: secretsFile,
      TCR_INGRESS_ACCOUNTS: ACCOUNT,
      TCR_PARKED_EVENTS_TASK_QUEUE: WORKFLOW_TASK_QUEUE,
      TCR_INGRESS_TRUSTED_PROXIES: `${NGINX_SOURCE}/32`,
      TCR_INGRESS_ALLOW: '127.0.0.1/32',
      TCR_INGRESS_LOG_LEVEL: 'warn',
    };
    const ingress: Cluster['ingress'] = [];
    let ingressSeq = 0;
    const startReplica = async (port = 0) => {
      const p = await startIngressProcess({ env: { ...ingressEnv, TCR_INGRESS_PORT: String(port) } });
      const proc: Proc = {
        name: `ingress-${++ingressSeq}`,
        child: p.child,
        exited: new Promise((resolve) => {
          if (p.child.exitCode !== null) resolve(p.child.exitCode);
          else p.child.once('exit', (code) => resolve(code));
        }),
        alive: () => p.child.exitCode === null && p.child.signalCode === null,
        output: () => '',
      };
      track(proc);
      return { url: p.url, port: Number(new URL(p.url).port), proc };
    };
    ingress.push(await startReplica(), await startReplica());
    cleanups.push(async () => {
      await Promise.all(ingress.map((r) => stopProc(r.proc)));
    });
    const nginxDir = join(dir, 'nginx');
    mkdirSync(nginxDir, { mode: 0o755 });
    writeFileSync(
      join(nginxDir, 'nginx.conf'),
      `worker_processes 1;
pid ${nginxDir}/nginx.pid;
error_log ${nginxDir}/error.log warn;
${isRoot ? 'user root;' : ''}
events { worker_connections 256; }
http {
  access_log ${nginxDir}/access.log;
  client_body_temp_path ${nginxDir}/body;
  proxy_temp_path ${nginxDir}/proxy;
  fastcgi_temp_path ${nginxDir}/fastcgi;
  uwsgi_temp_path ${nginxDir}/uwsgi;
  scgi_temp_path ${nginxDir}/scgi;
  upstream tcr_ingress {
${ingress.map((r) => `    server 127.0.0.1:${r.port} max_fails=1 fail_timeout=2s;`).join('\n')}
    keepalive 8;
  }
  server {
    listen 127.0.0.1:${nginxPort};
    location /webhooks/ {
      proxy_pass http://tcr_ingress;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $host;
      proxy_set_header X-Forwarded-For $remote_addr;
      proxy_set_header X-Forwarded-Proto $scheme;
      proxy_bind ${NGINX_SOURCE};
      proxy_next_upstream error timeout http_502 http_503;
    }
  }
}
`,
    );
    const nginx = track(
      startProc(dir, 'nginx', nginxBin(), [
        '-p',
        nginxDir,
        '-c',
        join(nginxDir, 'nginx.conf'),
        '-e',
        join(nginxDir, 'error.log'),
        '-g',
        'daemon off;',
      ]),
    );
    cleanups.push(async () => stopProc(nginx, 'SIGQUIT'));
    await waitForTcp('127.0.0.1', nginxPort, 30_000, nginx.alive);
    log(`nginx on 127.0.0.1:${nginxPort} in front of ingress ${ingress.map((r) => r.port).join(', ')}`);

    await subscribeIngress({
      simulatorUrl,
      control,
      account: DEFAULT_ACCOUNT,
      webhookUrl,
      secret: webhookSecret,
    });

    connection = await Connection.connect({ address: temporalAddress });
    const conn = connection;
    cleanups.push(async () => conn.close());
    const client = new Client({ connection, namespace: NAMESPACE, dataConverter: dataConverter() });

    return {
      dir,
      client,
      control,
      simulatorUrl,
      temporalAddress,
      webhookUrl,
      workers,
      ingress,
      async killWorker(i) {
        const w = workers[i]!;
        w.child.kill('SIGKILL');
        await w.exited;
        workers[i] = await startWorker();
      },
      async stopIngress(i) {
        await stopProc(ingress[i]!.proc);
      },
      async startIngress(i) {
        ingress[i] = await startReplica(ingress[i]!.port);
      },
      async restartTemporal() {
        await stopProc(server);
        await startTemporal();
      },
      async restartPostgres() {
        await stopProc(postgres, 'SIGINT'); // fast shutdown: open connections are cut
        await startPostgres();
      },
      logs,
      stop,
    };
  } catch (error) {
    const text = logs();
    await stop();
    throw new Error(`${error instanceof Error ? error.message : String(error)}\n${text}`);
  }
}
