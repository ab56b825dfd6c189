// The upgrade drill (issue 36, item 3), run by scripts/upgrade-drill.sh: node scripts/upgrade-drill.mjs OLD_DIR
//
// A Temporal dev server (this tree's CLI, loopback, ephemeral ports, in memory) and the registry
// simulator (every decision by the control API only) serve two releases in turn:
//   1. the previous release's workers, ingress and CLI (OLD_DIR, built by build-previous-release.sh)
//      open workflows in every kind of wait (legacy ids brand/{ref}, campaign/{ref});
//   2. the old workers and ingress are stopped; this tree's (or, with UPGRADE_DRILL_BREAK=1, a copy of
//      its dist/ with one command reordered and no patch) take over, and this tree's CLI and the
//      simulator's control API drive every workflow to its end state.
// It fails when a workflow failed or did not reach its end state, or a worker log shows a
// non-determinism error. Logs: test-results/logs/upgrade-drill/{start time}/. Last line: what it proved.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  cpSync,
  createWriteStream,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const oldDir = process.argv[2];
if (!oldDir) throw new Error('usage: node scripts/upgrade-drill.mjs OLD_RELEASE_DIR [RELEASE_NAME]');
const breakMode = process.env.UPGRADE_DRILL_BREAK === '1';
const started = Date.now();
// A hang guard: every wait ends by it. The drill takes about 80 s on 2 idle cores (issue 36 allows
// 5 minutes); a machine shared with other jobs slows it, and only a hang should fail it.
const budgetMs = 600_000;
// One folder per run (test-results/ is git-ignored; a run's logs stay for the next one to compare).
const logDir = join(
  root,
  'test-results',
  'logs',
  'upgrade-drill',
  new Date(started).toISOString().replace(/[:.]/g, '-'),
);
mkdirSync(logDir, { recursive: true });
const work = mkdtempSync(join(tmpdir(), 'tcr-upgrade-drill-'));

const { startDevServer } = await import(join(root, 'dist/stack/temporal-dev-server.js'));
const { freePort, waitForTcp } = await import(join(root, 'dist/stack/ports.js'));
const { startSimulator, DEFAULT_ACCOUNT } = await import(join(root, 'dist/simulator/index.js'));
const { SimulatorControl } = await import(join(root, 'dist/simulator/control-client.js'));
const { subscribeIngress } = await import(join(root, 'dist/stack/webhooks.js'));
const { requiredDataConverter } = await import(join(root, 'dist/codec/data-converter.js'));
const { Connection, Client } = await import('@temporalio/client');

const say = (line) => process.stdout.write(`[upgrade-drill] ${line}\n`);
const secs = (ms) => `${(ms / 1000).toFixed(1)}s`;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const children = new Set();
const cleanups = [];

/** Runs a CLI command of a release to its end; returns stdout (throws with stderr on a non-zero exit). */
function cli(dir, args, env) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [join(dir, 'dist/cli/main.js'), ...args], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      err += d;
    });
    child.on('exit', (code) =>
      code === 0
        ? resolvePromise(out)
        : reject(new Error(`tcr ${args.join(' ')} exited ${code}: ${err.trim() || out.trim()}`)),
    );
  });
}

/** A long-running tcr process (worker, ingress), its output in a log file. */
function serve(name, dir, args, env) {
  const log = join(logDir, `${name}.log`);
  const out = createWriteStream(log);
  const child = spawn(process.execPath, [join(dir, 'dist/cli/main.js'), ...args], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.pipe(out);
  child.stderr.pipe(out);
  children.add(child);
  const exited = new Promise((r) => child.once('exit', r));
  exited.then(() => children.delete(child));
  return {
    log,
    alive: () => child.exitCode === null && child.signalCode === null,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

async function until(what, check, timeoutMs = 90_000) {
  const deadline = Math.min(Date.now() + timeoutMs, started + budgetMs);
  let last;
  for (;;) {
    try {
      const value = await check();
      if (value) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline)
      throw new Error(
        `timed out waiting for ${what}, ${secs(Date.now() - started)} into the drill${last ? ` (last error: ${last.message})` : ''}`,
      );
    if (breakMode) assertDeterministic();
    await sleep(500);
  }
}

const workerLogs = [];
function nondeterminism() {
  return workerLogs.flatMap((file) => {
    let text = '';
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      return [];
    }
    return text.split('\n').filter((line) => /Nondeterminism|TMPRL1100/i.test(line));
  });
}
function assertDeterministic() {
  const lines = nondeterminism();
  if (lines.length > 0) {
    throw new Error(
      `non-determinism in a worker log (${lines.length} lines), first: ${lines[0].slice(0, 400)}`,
    );
  }
}

/** This tree's dist, or in BREAK mode a copy of it whose brand workflow orders one command differently, unpatched. */
function newRelease() {
  if (!breakMode) return root;
  const dir = join(work, 'broken-release');
  mkdirSync(dir);
  cpSync(join(root, 'dist'), join(dir, 'dist'), { recursive: true });
  cpSync(join(root, 'package.json'), join(dir, 'package.json'));
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
  const file = join(dir, 'dist/workflows/brand/workflow.js');
  const source = readFileSync(file, 'utf8');
  // A timer (condition with a timeout: imported there already) before the brand workflow's first
  // command, not behind patched(): every brand history the old release recorded starts with the
  // search-attribute upsert, so replay must stop with a non-determinism error.
  const anchor = /(export async function brandWorkflow\([^)]*\)\s*\{)/;
  if (!anchor.test(source)) throw new Error(`BREAK: no brandWorkflow function found in ${file}`);
  writeFileSync(file, source.replace(anchor, '$1\n    await condition(() => false, 1);'));
  return dir;
}

const failures = [];
try {
  // --- servers ---------------------------------------------------------------------------------
  const devServer = await startDevServer({
    port: await freePort(),
    uiPort: await freePort(),
    namespace: 'default',
  });
  cleanups.push(() => devServer.stop());
  // Stopped from outside (the script's trap, a timeout): leave no server or worker behind.
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.once(signal, () => {
      for (const child of children) child.kill('SIGKILL');
      if (devServer.pid !== undefined) process.kill(devServer.pid, 'SIGKILL');
      rmSync(work, { recursive: true, force: true });
      process.exit(130);
    });
  }
  const simulator = await startSimulator({
    port: 0,
    timeScale: 1,
    // Every decision through the control API: the drill decides what waits and when it ends.
    delays: {
      contactVerificationSeconds: null,
      vetDecisionSeconds: null,
      appealReviewSeconds: null,
      shareDecisionSeconds: null,
      dcaDecisionSeconds: null,
    },
  });
  cleanups.push(() => simulator.close());
  const control = new SimulatorControl(simulator.url);
  const connection = await Connection.connect({ address: devServer.address });
  cleanups.push(() => connection.close());

  const ingressPort = await freePort();
  const webhookUrl = `http://127.0.0.1:${ingressPort}/webhooks/registry`;
  const secret = randomBytes(32).toString('hex');
  await subscribeIngress({
    simulatorUrl: simulator.url,
    control,
    account: DEFAULT_ACCOUNT,
    webhookUrl,
    secret,
  });
  const keysFile = join(work, 'payload-keys.json');
  const env = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    TEMPORAL_ADDRESS: devServer.address,
    TEMPORAL_NAMESPACE: 'default',
    TCR_DATA_DIR: work,
    TCR_PAYLOAD_KEYS_FILE: keysFile,
    TCR_ACCOUNT: 'local',
    TCR_ACCOUNTS: JSON.stringify([
      {
        name: 'local',
        environment: 'local',
        baseUrl: simulator.url,
        apiKey: DEFAULT_ACCOUNT.apiKey,
        apiSecret: DEFAULT_ACCOUNT.apiSecret,
        cspId: DEFAULT_ACCOUNT.cspId,
      },
    ]),
    TCR_WORKER_METRICS_ADDRESS: 'off',
    TCR_SWEEP_EVERY: 'off',
    TCR_WORKER_LOG_LEVEL: 'warn',
    TCR_INGRESS_HOST: '127.0.0.1',
    TCR_INGRESS_PORT: String(ingressPort),
    TCR_WEBHOOK_URL: webhookUrl,
    TCR_WEBHOOK_SECRETS: secret,
    TCR_INGRESS_ACCOUNTS: `local=${DEFAULT_ACCOUNT.cspId}`,
    TCR_INGRESS_INTERNAL_LISTEN: '127.0.0.1:0',
    TCR_INGRESS_LOG_LEVEL: 'warn',
  };
  // The key file predates the upgrade, as a deployment's does: the previous release writes it, and
  // this release must read it.
  await cli(oldDir, ['payload-keys', 'init', '--file', keysFile], env);
  const client = new Client({
    connection,
    namespace: 'default',
    dataConverter: requiredDataConverter({ TCR_PAYLOAD_KEYS_FILE: keysFile }),
  });

  // --- 1. the previous release opens workflows in every kind of wait -----------------------------
  const t1 = Date.now();
  const oldWorker = serve('old-worker', oldDir, ['worker'], env);
  workerLogs.push(oldWorker.log);
  const oldIngress = serve('old-ingress', oldDir, ['ingress'], env);
  await waitForTcp('127.0.0.1', ingressPort, 30_000, oldIngress.alive);
  const ex = (p) => join(oldDir, 'examples', p);
  const orderFile = (name, order) => {
    const file = join(work, `${name}.json`);
    writeFileSync(file, JSON.stringify(order));
    return file;
  };
  const acme = JSON.parse(readFileSync(ex('brands/acme-widgets.json'), 'utf8'));
  const brands = {
    // ready, hosts the campaigns; its vet stays PENDING (the control API decides it after the upgrade)
    'drill-ready': { ...acme, reference: 'drill-ready' },
    // awaiting-contact-verification: the contact's e-mail verifies only through the control API
    'drill-2fa': {
      ...JSON.parse(readFileSync(ex('brands/globex-public.json'), 'utf8')),
      reference: 'drill-2fa',
    },
    // needs-correction: UNVERIFIED until an operator corrects it (after the upgrade)
    'drill-identity': {
      ...JSON.parse(readFileSync(ex('brands/initech-unverified.json'), 'utf8')),
      reference: 'drill-identity',
    },
  };
  brands['drill-2fa'].brand = {
    ...brands['drill-2fa'].brand,
    businessContactEmail: 'cfo-NOVERIFY@globex.example',
  };
  // One CLI process per order, side by side (each is a second of CPU on its own).
  await Promise.all(
    Object.entries(brands).map(([ref, order]) =>
      cli(oldDir, ['brand', 'register', orderFile(ref, order)], env),
    ),
  );

  // Waits read the status query of the legacy id in this process (a CLI process per poll costs a
  // second of CPU); this tree's CLI shows each workflow once after the upgrade.
  const legacyId = (ref) => `${ref in brands ? 'brand' : 'campaign'}/${ref}`;
  const query = (ref) => client.workflow.getHandle(legacyId(ref)).query('status');
  const phaseIs = (ref, phases) => async () => {
    const s = await query(ref);
    return phases.includes(s.phase) ? s : undefined;
  };
  await until('drill-ready ready', phaseIs('drill-ready', ['ready']));

  const marketing = JSON.parse(readFileSync(ex('campaigns/acme-marketing-fee-approval.json'), 'utf8'));
  const campaign = (reference, brandReference, upstreamCnpId, extra = {}) => ({
    ...marketing,
    reference,
    brandReference,
    upstreamCnpId,
    requireFeeApproval: false,
    ...extra,
  });
  const campaigns = {
    'drill-awaiting-brand': campaign('drill-awaiting-brand', 'drill-2fa', 'SINCH'),
    'drill-fee': campaign('drill-fee', 'drill-ready', 'SINCH', { requireFeeApproval: true }),
    'drill-share': campaign('drill-share', 'drill-ready', 'SINCH'),
    'drill-dca': campaign('drill-dca', 'drill-ready', 'CSPUPSTREAM'),
    'drill-running': campaign('drill-running', 'drill-ready', 'SINCH'),
  };
  await Promise.all([
    cli(oldDir, ['vet', 'order', 'drill-ready', '--evp', 'AEGIS', '--class', 'STANDARD'], env),
    ...Object.entries(campaigns).map(([ref, order]) =>
      cli(oldDir, ['campaign', 'create', orderFile(ref, order)], env),
    ),
  ]);

  const expectOld = {
    'drill-2fa': ['awaiting-contact-verification'],
    'drill-identity': ['needs-correction'],
    'drill-awaiting-brand': ['awaiting-brand'],
    'drill-fee': ['awaiting-fee-approval'],
    'drill-share': ['share-pending'],
    'drill-dca': ['share-pending'],
    'drill-running': ['share-pending'],
  };
  const registryIds = {};
  for (const [ref, phases] of Object.entries(expectOld)) {
    const s = await until(`${ref} in ${phases.join('/')} (previous release)`, phaseIs(ref, phases));
    registryIds[ref] = s.campaignId ?? s.brandId;
  }
  await control.acceptShare(registryIds['drill-dca']);
  await control.acceptShare(registryIds['drill-running']);
  await until('drill-dca awaiting-dca', phaseIs('drill-dca', ['awaiting-dca']));
  await until('drill-running running', phaseIs('drill-running', ['running']));
  const vetOf = async () => (await query('drill-ready')).vets?.find((v) => v.vettingId);
  const vet = await until('the vet of drill-ready ordered (PENDING)', vetOf);
  const opened = await list(client);
  say(
    `previous release opened ${opened.length} workflows in ${secs(Date.now() - t1)}: ${summarize(opened)}; ids ${opened
      .map((w) => w.workflowId)
      .filter((id) => !id.startsWith('registry-budget'))
      .join(', ')}`,
  );
  await oldIngress.stop();
  await oldWorker.stop();

  // --- 2. this tree's workers take over and drive every workflow to its end ----------------------
  const t2 = Date.now();
  const newDir = newRelease();
  // the key file gets what this release's ingress needs before this release's workers read it
  const newIngressEnv = await ingressEnv(newDir, env, keysFile);
  const newWorker = serve('new-worker', newDir, ['worker'], env);
  workerLogs.push(newWorker.log);
  cleanups.push(() => newWorker.stop());
  const newIngress = serve('new-ingress', newDir, ['ingress'], newIngressEnv);
  cleanups.push(() => newIngress.stop());
  await waitForTcp('127.0.0.1', ingressPort, 30_000, newIngress.alive);
  // its workflow bundle built and its pollers started (a query before that times out)
  await until("this release's workers running", () =>
    readFileSync(newWorker.log, 'utf8').includes('tcr worker running'),
  );
  const reach = (ref, phases) => until(`${ref} in ${phases.join('/')} (this release)`, phaseIs(ref, phases));

  // this tree's CLI finds every workflow of the previous release by its bare reference (legacy ids)
  await Promise.all(
    Object.keys(expectOld).map(async (ref) => {
      // asked again while a loaded machine times out the first workflow task of a replay
      const shown = await until(`tcr status ${ref}`, async () =>
        JSON.parse(await cli(root, ['status', ref, '--json'], env)),
      );
      if (shown.phase !== (await query(ref)).phase) failures.push(`tcr status ${ref} showed ${shown.phase}`);
    }),
  );
  await control.decideVet(
    vet.vettingId,
    { outcome: 'ACTIVE', score: 80 },
    registryIds['drill-ready'] ?? undefined,
  );
  await control.verifyContact(registryIds['drill-2fa']);
  await reach('drill-2fa', ['ready']);
  await cli(
    root,
    ['brand', 'correct', 'drill-identity', '--set', 'companyName=Initech Holdings LLC', '--revet'],
    env,
  );
  await reach('drill-identity', ['ready']);
  await cli(root, ['campaign', 'approve-fee', 'drill-fee', '--by', 'upgrade-drill'], env);
  await control.dcaComplete(registryIds['drill-dca']);
  await control.acceptShare(registryIds['drill-share']);
  for (const ref of ['drill-fee', 'drill-awaiting-brand']) {
    const s = await reach(ref, ['share-pending']);
    registryIds[ref] = s.campaignId;
    await control.acceptShare(s.campaignId);
  }
  for (const ref of Object.keys(campaigns)) await reach(ref, ['running']);
  await until('the vet ACTIVE in the brand (this release)', async () =>
    (await query('drill-ready')).vets?.some((v) => v.vettingId === vet.vettingId && v.state === 'active'),
  );
  // end states: one campaign wound down by the operator's cancel, every one expired at the registry
  await cli(root, ['campaign', 'cancel', 'drill-running', '--reason', 'upgrade drill'], env);
  await reach('drill-running', ['winding-down']);
  for (const ref of Object.keys(campaigns)) await control.expireCampaign(registryIds[ref]);
  for (const ref of Object.keys(campaigns)) await reach(ref, ['expired']);
  for (const ref of Object.keys(brands))
    await cli(root, ['brand', 'cancel', ref, '--reason', 'upgrade drill'], env);
  for (const ref of Object.keys(brands)) await reach(ref, ['cancelled']);

  const entities = [...Object.keys(brands), ...Object.keys(campaigns)];
  const all = await until('every brand, campaign and vet workflow closed', async () => {
    const now = await list(client);
    const open = now.filter((w) => w.status === 'RUNNING' && isEntity(w.workflowId));
    return open.length === 0 ? now : undefined;
  });
  // the new client steered the legacy ids: it started no account-scoped twin (brand/local/{ref})
  for (const w of all)
    if (/^(brand|campaign)\/local\//.test(w.workflowId))
      failures.push(`${w.workflowId} started beside its legacy id`);
  for (const w of all) {
    if (w.status === 'FAILED' || w.status === 'TERMINATED' || w.status === 'TIMED_OUT')
      failures.push(`${w.workflowId} ${w.status}`);
  }
  assertDeterministic();
  if (failures.length > 0) throw new Error(`workflows did not end well: ${failures.join('; ')}`);
  const closed = all.filter((w) => isEntity(w.workflowId));
  say(`this release closed them in ${secs(Date.now() - t2)}: ${summarize(all)}`);
  say(
    `PROVED: ${opened.length} workflows the previous release (${process.argv[3] ?? oldDir}) opened in every wait (${entities.length} brands and campaigns on legacy ids, 1 vet, the write budget) ran on under this tree's workers to their end states (${closed.length} closed: campaigns expired, brands cancelled, vet ACTIVE; 0 failed), 0 non-determinism lines in ${workerLogs.length} worker logs; old phase ${secs(t2 - t1)}, new phase ${secs(Date.now() - t2)}, total ${secs(Date.now() - started)}`,
  );
} catch (error) {
  process.exitCode = 1;
  const lines = nondeterminism();
  say(`worker logs: ${logDir}`);
  const message = error instanceof Error ? error.message : String(error);
  const cause =
    lines.length > 0 && !message.startsWith('non-determinism')
      ? `non-determinism in a worker log (${lines.length} lines), first: ${lines[0].slice(0, 400)}; then: ${message}`
      : message;
  say(`FAILED after ${secs(Date.now() - started)}${breakMode ? ' (UPGRADE_DRILL_BREAK=1)' : ''}: ${cause}`);
} finally {
  for (const child of children) child.kill('SIGTERM');
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  for (const child of children) child.kill('SIGKILL');
  rmSync(work, { recursive: true, force: true });
}

/**
 * The ingress's environment for a release. One that seals payloads with an ingress key pair (`tcr
 * payload-keys ingress-key`) must not hold the key file: the upgrade adds the ingress key to the key
 * file (workers first, then the ingress) and gives the ingress only the public half.
 */
async function ingressEnv(dir, env, keysFile) {
  try {
    await cli(dir, ['payload-keys', 'ingress-key', '--help'], env);
  } catch {
    return env; // the release's ingress encrypts with the key file
  }
  const publicKeys = join(dirname(keysFile), 'ingress-public-keys.json');
  await cli(dir, ['payload-keys', 'ingress-key', '--file', keysFile], env);
  await cli(dir, ['payload-keys', 'public', '--file', keysFile, '--out', publicKeys], env);
  const { TCR_PAYLOAD_KEYS_FILE: _keys, ...rest } = env;
  return { ...rest, TCR_INGRESS_PAYLOAD_PUBLIC_KEYS_FILE: publicKeys };
}

function isEntity(workflowId) {
  return /^(brand|campaign|vet)\//.test(workflowId);
}

async function list(c) {
  const out = [];
  for await (const w of c.workflow.list())
    out.push({ workflowId: w.workflowId, type: w.type, status: w.status.name });
  return out;
}

function summarize(ws) {
  const counts = {};
  for (const w of ws) counts[`${w.type} ${w.status}`] = (counts[`${w.type} ${w.status}`] ?? 0) + 1;
  return Object.entries(counts)
    .map(([k, n]) => `${n} ${k}`)
    .join(', ');
}
