/**
 * The fault drills, parameterised by size: the small versions run in `npm test` (test/drills), the
 * larger ones on demand (bench/drills). Each returns its figures; the callers assert on them.
 */

import { registryEndpointTemplate } from '../../src/common/registry-endpoint.js';
import { getBrandStatus, startBrandOrder } from '../../src/orders/brand-client.js';
import { getCampaignStatus } from '../../src/orders/campaign-orders.js';
import type { DeliveryLogEntry } from '../../src/simulator/control-client.js';
import type { SimulatorDelays } from '../../src/simulator/index.js';
import { type BenchStack, startBenchStack } from './bench-stack.js';
import { type BulkOptions, type BulkRun, registryCensus, startBulk, waitForBulk } from './bulk.js';
import { isWrite } from './counting-proxy.js';
import { brandOrder } from './orders.js';
import { percentile, round, sleep, until } from './stats.js';
import { postSignedEvent } from './webhooks.js';

export interface BulkDrillFigures {
  orders: number;
  completed: number;
  notCompleted: string[];
  seconds: number;
  e2eMs: { p50: number; p99: number };
  /** Registry entities / fees per order other than exactly one. */
  registryAnomalies: string[];
  /** Accepted billable creates seen at the registry (expected: n each). */
  brandCreates: number;
  campaignCreates: number;
  shares: number;
  fees: number;
  /** Registry answers 429 during the run, before the census (every registry call of the workers goes through the proxy). */
  rateLimited: number;
  /** 429s met while the census read the registry (not counted in `rateLimited`). */
  rateLimitedDuringCensus: number;
  /** Those 429s, as `METHOD endpoint-template @ seconds into the run`: which budget was overrun, and when. */
  rateLimitedCalls: string[];
  /**
   * What woke the step that finished each order (its audit's cause for the phase change to ready or
   * running: `start` when the order's first run got there, `webhook`, `poll`, `timer`...), counted.
   */
  doneCauses: Record<string, number>;
}

const acceptedCalls = (stack: BenchStack, method: string, pattern: RegExp) =>
  stack.proxy.calls.filter(
    (c) => c.method === method && pattern.test(c.path) && c.status > 0 && c.status < 300,
  ).length;

async function finish(stack: BenchStack, run: BulkRun, timeoutMs: number): Promise<BulkDrillFigures> {
  const waited = await waitForBulk(stack.client, run, timeoutMs);
  const seconds = round((Date.now() - run.startedAt) / 1000, 1);
  const e2e = run.timings.filter((t) => t.doneAt).map((t) => t.doneAt! - t.startedAt);
  // The census reads the account straight from the simulator, outside the product's budget, while
  // the workflows may still read (a campaign's last steps): a 429 the product meets from then on is
  // the census's doing, so only the calls that started before it count.
  const censusAt = Date.now();
  const census = await registryCensus(stack.sim.url, stack.control, run);
  const ledger = await stack.control.ledger();
  const limited = stack.proxy.calls.filter(
    (c) => c.status === 429 && c.startMs >= run.startedAt && c.startMs < censusAt,
  );
  return {
    orders: run.timings.length,
    completed: waited.done,
    notCompleted: waited.pending.map((t) => `${t.kind} ${t.reference}: ${t.phase ?? '?'}`),
    seconds,
    e2eMs: { p50: percentile(e2e, 50), p99: percentile(e2e, 99) },
    registryAnomalies: census.anomalies,
    brandCreates: acceptedCalls(stack, 'POST', /^\/v2\/brand\/nonBlocking$/),
    campaignCreates: acceptedCalls(stack, 'POST', /^\/v2\/campaignBuilder$/),
    shares: acceptedCalls(stack, 'PUT', /^\/v2\/campaign\/[^/]+\/sharing\//),
    fees: ledger.filter((e) => e.kind === 'CAMPAIGN_REGISTRATION').length,
    rateLimited: limited.length,
    rateLimitedDuringCensus: stack.proxy.calls.filter((c) => c.status === 429 && c.startMs >= censusAt)
      .length,
    doneCauses: countBy(run.timings.filter((t) => t.doneAt).map((t) => t.doneCause ?? '(not in the audit)')),
    rateLimitedCalls: limited.map(
      (c) =>
        `${c.method} ${registryEndpointTemplate(c.path) ?? c.path} @ ${round((c.startMs - run.startedAt) / 1000, 1)} s`,
    ),
  };
}

function countBy(values: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const v of values) counts[v] = (counts[v] ?? 0) + 1;
  return counts;
}

const prefixOf = (name: string) => `${name}${Date.now().toString(36)}`;

// (a) ---------------------------------------------------------------------------------------------

export interface WorkerKillFigures extends BulkDrillFigures {
  kills: number;
  /** Worker restart (spawn → running) times. */
  restartMs: number[];
  /**
   * Per kill, the registry creates that were in flight when it landed and whose answer never reached
   * the worker (its connection died with it), as `METHOD path status`: the status is what the registry
   * answered after the kill (2xx: committed, with nobody left to learn it).
   */
  writesCutByKill: string[][];
}

/** Real milliseconds each create waits at the simulator, so a kill can land while one is in flight. */
const KILL_DRILL_WRITE_LATENCY_MS = 1_500;
const BRAND_CREATE = /^\/v2\/brand\/nonBlocking$/;
const ANY_CREATE = /^\/v2\/(brand\/nonBlocking|campaignBuilder)$/;

/**
 * SIGKILLs the worker process `kills` times during a bulk run and restarts it each time. Each kill
 * waits until a registry create is in flight: a brand's for the first kill (watched from before the
 * orders start, as brands are created first), any create `everyMs` after the previous restart for
 * the others. The creates are held KILL_DRILL_WRITE_LATENCY_MS at the simulator, and the proxy lets a
 * call whose caller died finish, so the simulator commits it after the kill: every kill cuts a create
 * whose outcome the worker never learns, and the next attempt must find the entity rather than create
 * (and pay for) a second one.
 */
export async function workerKillDrill(opts: {
  n: number;
  kills: number;
  everyMs: number;
  timeoutMs: number;
  /**
   * Start the orders one rate window after the stack's setup, whose webhook subscription writes go to
   * the registry outside the workers' budget (a 429 count is then the budget's alone).
   */
  idleWindowFirst?: boolean;
}): Promise<WorkerKillFigures> {
  const stack = await startBenchStack({ workers: 'process', timeScale: 3600 });
  try {
    await stack.control.addFault({
      kind: 'latency',
      method: 'POST',
      pathPattern: ANY_CREATE.source,
      latencyMs: KILL_DRILL_WRITE_LATENCY_MS,
      count: 4 * opts.n,
    });
    let worker = stack.startWorkerProcess();
    await worker.ready;
    if (opts.idleWindowFirst) await stack.setupWritesLeftWindow();
    const restartMs: number[] = [];
    const inFlightAtKill: number[][] = [];
    /** Waits for a create on `path` recent enough to be still held when the kill lands, kills, restarts. */
    const killDuringCreate = async (path: RegExp) => {
      const writes = await until(
        `a registry create in flight (${path.source})`,
        async () => {
          const open = stack.proxy
            .inFlight()
            .filter(
              (c) =>
                isWrite(c) && path.test(c.path) && Date.now() - c.startMs < KILL_DRILL_WRITE_LATENCY_MS / 2,
            );
          return open.length > 0 ? open : undefined;
        },
        opts.timeoutMs,
        20,
      );
      worker.child.kill('SIGKILL');
      await worker.exited;
      inFlightAtKill.push(writes.map((w) => w.seq));
      const t = Date.now();
      worker = stack.startWorkerProcess();
      await worker.ready;
      restartMs.push(Date.now() - t);
    };
    const firstKill = opts.kills > 0 ? killDuringCreate(BRAND_CREATE) : Promise.resolve();
    firstKill.catch(() => undefined); // awaited below; not an unhandled rejection meanwhile
    const run = await startBulk(stack.client, { n: opts.n, prefix: prefixOf('kill') });
    await firstKill;
    for (let k = 1; k < opts.kills; k++) {
      await sleep(opts.everyMs);
      await killDuringCreate(ANY_CREATE);
    }
    const figures = await finish(stack, run, opts.timeoutMs);
    const cut = (seq: number) => stack.proxy.calls.find((c) => c.seq === seq && c.callerGone);
    const writesCutByKill = inFlightAtKill.map((seqs) =>
      seqs.flatMap((seq) => {
        const c = cut(seq);
        return c ? [`${c.method} ${c.path} ${c.status}`] : [];
      }),
    );
    return { ...figures, kills: opts.kills, restartMs, writesCutByKill };
  } finally {
    await stack.stop();
  }
}

// (b) ---------------------------------------------------------------------------------------------

export interface TemporalOutageFigures {
  brands: number;
  outageSeconds: number;
  /** Brands that reached ready, and of those, woken by the webhook (audit cause) rather than a poll. */
  ready: number;
  readyByWebhook: number;
  /** What moved each ready brand to ready (the drill expects 'webhook' for all). */
  readyCauses: string[];
  /** What a failed hand-off answered: the ingress's TCR_INGRESS_HANDOFF_FAILURE. */
  handoffFailure: 'close' | '503';
  /**
   * BRAND_CONTACT_VERIFIED deliveries retried (any reason), of them retried after an HTTP answer (by
   * status) and after a network error (no answer, connection closed); delivered; discarded.
   */
  retriedAttempts: number;
  retryStatuses: Record<string, number>;
  networkRetries: number;
  delivered: number;
  discarded: number;
  /** From the Temporal server's restart to the last brand ready. */
  recoverySeconds: number;
  ingressHandoffFailures: number;
}

/**
 * PUBLIC_PROFIT brands wait for business-contact verification with their reconciliation poll set to
 * an hour, so only the webhook can wake them within the drill. The Temporal dev server is stopped,
 * every contact is verified at the simulator (BRAND_CONTACT_VERIFIED webhooks go out), the server
 * stays down for `outageSeconds`, then starts again on the same SQLite file.
 */
export async function temporalOutageDrill(opts: {
  n: number;
  outageSeconds: number;
  timeScale: number;
  timeoutMs: number;
  /** What the ingress answers a failed hand-off (default the ingress's own, `close`). */
  handoffFailure?: 'close' | '503';
}): Promise<TemporalOutageFigures> {
  const handoffFailure = opts.handoffFailure ?? 'close';
  const stack = await startBenchStack({ timeScale: opts.timeScale, handoffTimeoutMs: 2_000, handoffFailure });
  try {
    const prefix = prefixOf('outage');
    const refs = Array.from({ length: opts.n }, (_, i) => `${prefix}-b${i}`);
    const hour = 3_600_000;
    await Promise.all(
      refs.map((ref) =>
        startBrandOrder(
          stack.client,
          brandOrder(ref, {
            entityType: 'PUBLIC_PROFIT',
            stockSymbol: 'GLBX',
            stockExchange: 'NASDAQ',
            businessContactEmail: `cfo.NOVERIFY.${ref}@bench.example`,
            businessContactFirstName: 'Hank',
            businessContactLastName: 'Scorpio',
            businessContactTitle: 'CFO',
          }),
          { workflowOptions: { pendingPoll: { initialMs: hour, maxMs: hour } } },
        ),
      ),
    );
    const brandIds = await Promise.all(
      refs.map((ref) =>
        until(
          `${ref} awaiting contact verification`,
          async () => {
            const s = await getBrandStatus(stack.client, ref);
            // Waiting (its next poll scheduled), not mid-read: a read in flight when Temporal stops
            // would finish after the restart and could find the verification before the webhook does.
            return s.phase === 'awaiting-contact-verification' && s.brandId && s.waitingFor?.nextPollAt
              ? s.brandId
              : undefined;
          },
          opts.timeoutMs,
        ),
      ),
    );
    // Let the registration's own webhooks drain before the outage.
    await until(
      'webhook queue empty',
      async () => ((await stack.control.webhookQueue()).length === 0 ? true : undefined),
      30_000,
      200,
    );
    await stack.stopTemporal();
    for (const id of brandIds) await stack.control.verifyContact(id);
    await sleep(opts.outageSeconds * 1000);
    await stack.startTemporal();
    const restartedAt = Date.now();
    const statuses = await Promise.all(
      refs.map((ref) =>
        until(
          `${ref} ready`,
          async () => {
            const s = await getBrandStatus(stack.client, ref);
            return s.phase === 'ready' ? s : undefined;
          },
          opts.timeoutMs,
        ).catch(() => undefined),
      ),
    );
    const recoverySeconds = round((Date.now() - restartedAt) / 1000, 1);
    const ready = statuses.filter((s) => s !== undefined);
    const readyCauses = ready.map(
      (s) => s.audit.entries.find((e) => e.event === 'phase' && e.to === 'ready')?.cause ?? 'unknown',
    );
    const readyByWebhook = ready.filter(
      (s) => s.audit.entries.find((e) => e.event === 'phase' && e.to === 'ready')?.cause === 'webhook',
    ).length;
    const log: DeliveryLogEntry[] = await stack.control.deliveries({ eventType: 'BRAND_CONTACT_VERIFIED' });
    const retryStatuses: Record<string, number> = {};
    for (const d of log.filter((e) => e.outcome === 'RETRY'))
      retryStatuses[String(d.status ?? d.error)] = (retryStatuses[String(d.status ?? d.error)] ?? 0) + 1;
    return {
      brands: opts.n,
      outageSeconds: opts.outageSeconds,
      ready: ready.length,
      readyByWebhook,
      readyCauses,
      handoffFailure,
      retriedAttempts: log.filter((e) => e.outcome === 'RETRY' || e.outcome === 'NETWORK_RETRY').length,
      retryStatuses,
      networkRetries: log.filter((e) => e.outcome === 'NETWORK_RETRY').length,
      delivered: log.filter((e) => e.outcome === 'DELIVERED').length,
      discarded: log.filter((e) => e.outcome === 'DISCARDED').length,
      recoverySeconds,
      ingressHandoffFailures: stack.ingress.metrics.snapshot().handoffFailures,
    };
  } finally {
    await stack.stop();
  }
}

// (c) ---------------------------------------------------------------------------------------------

/** The event types a bulk run's workflows are woken by (each gets a share of drops). */
export const BULK_EVENT_TYPES = [
  'BRAND_ADD',
  'BRAND_IDENTITY_STATUS_UPDATE',
  'CAMPAIGN_ADD',
  'CAMPAIGN_SHARE_ADD',
  'CAMPAIGN_SHARE_ACCEPT',
  'CAMPAIGN_DCA_COMPLETE',
];

export interface WebhookDropFigures extends BulkDrillFigures {
  sent: number;
  dropped: number;
  droppedShare: number;
  /** End-to-end of orders that lost at least one webhook vs the others. */
  affectedE2eMs: { p50: number; p99: number; count: number };
  unaffectedE2eMs: { p50: number; p99: number; count: number };
  /** Orders whose last step was taken on a reconciliation poll (their webhook was dropped) vs on a webhook. */
  completedByPoll: { count: number; p50: number; p99: number };
  completedByWebhook: { count: number; p50: number; p99: number };
  /** p50 / p99 of poll-completed minus webhook-completed end-to-end time. */
  addedDelayP50Ms: number;
  addedDelayP99Ms: number;
}

/** Drops `share` of each event type's webhooks (the first ones of each type: a fault with a count). */
export async function webhookDropDrill(opts: {
  /** Start the orders one rate window after the stack's setup writes (a 429 is then the budget's alone). */
  idleWindowFirst?: boolean;
  n: number;
  share: number;
  timeoutMs: number;
  bulk?: Partial<BulkOptions>;
  /** The simulator's scenario delays (simulated seconds, at 3600×): long ones outlast a workflow's start run. */
  delays?: Partial<SimulatorDelays>;
}): Promise<WebhookDropFigures> {
  const stack = await startBenchStack({ timeScale: 3600, ...(opts.delays ? { delays: opts.delays } : {}) });
  try {
    // Two shares per campaign at most (none here), so per type about n events.
    for (const eventType of BULK_EVENT_TYPES)
      await stack.control.addFault({
        kind: 'webhook-drop',
        eventType,
        count: Math.ceil(opts.share * opts.n),
      });
    if (opts.idleWindowFirst) await stack.setupWritesLeftWindow();
    const run = await startBulk(stack.client, { n: opts.n, prefix: prefixOf('drop'), ...opts.bulk });
    const figures = await finish(stack, run, opts.timeoutMs);
    const log = await stack.control.deliveries();
    const firstAttempts = log.filter((d) => d.attempt === 1 || d.outcome === 'DROPPED');
    const droppedEntries = log.filter((d) => d.outcome === 'DROPPED');
    const affected = new Set<string>();
    for (const d of droppedEntries) {
      const e = d.event as { brandReferenceId?: string; campaignReferenceId?: string };
      if (e.campaignReferenceId) affected.add(e.campaignReferenceId);
      else if (e.brandReferenceId) affected.add(e.brandReferenceId);
    }
    const e2eOf = (pick: (ref: string) => boolean) =>
      run.timings.filter((t) => t.doneAt && pick(t.reference)).map((t) => t.doneAt! - t.startedAt);
    const hit = e2eOf((r) => affected.has(r));
    const clean = e2eOf((r) => !affected.has(r));
    const e2eByCause = (cause: string) =>
      run.timings.filter((t) => t.doneAt && t.doneCause === cause).map((t) => t.doneAt! - t.startedAt);
    const byPoll = e2eByCause('poll');
    const byHook = e2eByCause('webhook');
    return {
      ...figures,
      sent: firstAttempts.length,
      dropped: droppedEntries.length,
      droppedShare: round(droppedEntries.length / Math.max(1, firstAttempts.length), 3),
      affectedE2eMs: { p50: percentile(hit, 50), p99: percentile(hit, 99), count: hit.length },
      unaffectedE2eMs: { p50: percentile(clean, 50), p99: percentile(clean, 99), count: clean.length },
      completedByPoll: { count: byPoll.length, p50: percentile(byPoll, 50), p99: percentile(byPoll, 99) },
      completedByWebhook: { count: byHook.length, p50: percentile(byHook, 50), p99: percentile(byHook, 99) },
      addedDelayP50Ms: percentile(byPoll, 50) - percentile(byHook, 50),
      addedDelayP99Ms: percentile(byPoll, 99) - percentile(byHook, 99),
    };
  } finally {
    await stack.stop();
  }
}

// (d) ---------------------------------------------------------------------------------------------

export interface DuplicateFigures extends BulkDrillFigures {
  delivered: number;
  resent: number;
  resendStatuses: Record<string, number>;
  ingressDuplicates: number;
  /**
   * Copies the ingress edge did not answer from its duplicate cache (resent minus edge duplicates): at
   * least this many copies were handed to the workflows, whose own dedupe had to ignore them.
   */
  copiesPastEdge: number;
  /** Copies the campaign workflows recognised by delivery id and ignored (their status's deliveries.duplicates). */
  campaignDuplicatesIgnored: number;
  /** Workflows whose audit shows a phase entered twice (expected 0). */
  repeatedTransitions: string[];
}

/**
 * Every webhook the simulator delivers is delivered twice more, signed, through the ingress, within
 * about 300 ms (so each event arrives three times). The ingress's edge dedupe is reduced to one
 * remembered id, so the copies reach the workflows and the workflows' own dedupe is what is tested.
 */
export async function duplicateDrill(opts: {
  n: number;
  timeoutMs: number;
  /** Start the orders one rate window after the stack's setup writes (a 429 is then the budget's alone). */
  idleWindowFirst?: boolean;
}): Promise<DuplicateFigures> {
  const stack = await startBenchStack({ timeScale: 3600, ingressRecentDeliveries: 1 });
  const seen = new Set<string>();
  const resendStatuses: Record<string, number> = {};
  let resent = 0;
  let stopResender = false;
  const resender = (async () => {
    while (!stopResender) {
      const log = await stack.control.deliveries().catch(() => []);
      for (const d of log) {
        if (d.outcome !== 'DELIVERED' || d.duplicate || seen.has(d.deliveryId)) continue;
        seen.add(d.deliveryId);
        for (let copy = 0; copy < 2; copy++) {
          const status = await postSignedEvent(
            stack.ingress.endpoint,
            stack.webhookUrl,
            stack.webhookSecret,
            d.event,
          )
            .then(String)
            .catch((e: unknown) => (e instanceof Error ? e.message : 'error'));
          resendStatuses[status] = (resendStatuses[status] ?? 0) + 1;
          resent++;
        }
      }
      await sleep(300);
    }
  })();
  try {
    if (opts.idleWindowFirst) await stack.setupWritesLeftWindow();
    const run = await startBulk(stack.client, { n: opts.n, prefix: prefixOf('dup') });
    const figures = await finish(stack, run, opts.timeoutMs);
    await sleep(1_000);
    stopResender = true;
    await resender;
    const repeatedTransitions: string[] = [];
    let campaignDuplicatesIgnored = 0;
    for (const t of run.timings) {
      let status: Awaited<ReturnType<typeof getBrandStatus | typeof getCampaignStatus>>;
      if (t.kind === 'brand') status = await getBrandStatus(stack.client, t.reference);
      else {
        const campaign = await getCampaignStatus(stack.client, t.reference);
        campaignDuplicatesIgnored += campaign.deliveries.duplicates;
        status = campaign;
      }
      const entered = status.audit.entries.filter((e) => e.event === 'phase').map((e) => e.to);
      if (new Set(entered).size !== entered.length)
        repeatedTransitions.push(`${t.reference}: ${entered.join(' → ')}`);
    }
    const ingressDuplicates = stack.ingress.metrics.snapshot().duplicates;
    return {
      ...figures,
      delivered: seen.size,
      resent,
      resendStatuses,
      ingressDuplicates,
      copiesPastEdge: resent - ingressDuplicates,
      campaignDuplicatesIgnored,
      repeatedTransitions,
    };
  } finally {
    stopResender = true;
    await resender.catch(() => undefined);
    await stack.stop();
  }
}

// (e) ---------------------------------------------------------------------------------------------

export interface CommitFaultFigures extends BulkDrillFigures {
  kind: 'error-after-commit' | 'timeout-after-commit';
  /** Billable calls answered with the fault (5xx, or the connection dropped). */
  faultedCalls: number;
}

/**
 * Every billable call (POST /brand/nonBlocking, POST /campaignBuilder) commits at the registry and
 * then fails: answered 500 (error-after-commit), or never answered and the connection dropped
 * (timeout-after-commit). Retries fail the same way: only a lookup by referenceId can succeed.
 */
export async function commitFaultDrill(opts: {
  /** Start the orders one rate window after the stack's setup writes (a 429 is then the budget's alone). */
  idleWindowFirst?: boolean;
  n: number;
  kind: 'error-after-commit' | 'timeout-after-commit';
  timeoutMs: number;
}): Promise<CommitFaultFigures> {
  const stack = await startBenchStack({ timeScale: 3600 });
  try {
    for (const pathPattern of ['^/v2/brand/nonBlocking$', '^/v2/campaignBuilder$'])
      await stack.control.addFault(
        opts.kind === 'error-after-commit'
          ? { kind: opts.kind, method: 'POST', pathPattern, count: 100 * opts.n, status: 500 }
          : { kind: opts.kind, method: 'POST', pathPattern, count: 100 * opts.n, delayMs: 1_000 },
      );
    if (opts.idleWindowFirst) await stack.setupWritesLeftWindow();
    const run = await startBulk(stack.client, { n: opts.n, prefix: prefixOf(opts.kind.slice(0, 5)) });
    const figures = await finish(stack, run, opts.timeoutMs);
    const faultedCalls = stack.proxy.calls.filter(
      (c) =>
        c.method === 'POST' &&
        /^\/v2\/(brand\/nonBlocking|campaignBuilder)$/.test(c.path) &&
        (c.status === 0 || c.status >= 500),
    ).length;
    // The faults answer every create, so "accepted creates" are counted as creates attempted.
    const attempted = (p: RegExp) =>
      stack.proxy.calls.filter((c) => c.method === 'POST' && p.test(c.path)).length;
    return {
      ...figures,
      brandCreates: attempted(/^\/v2\/brand\/nonBlocking$/),
      campaignCreates: attempted(/^\/v2\/campaignBuilder$/),
      kind: opts.kind,
      faultedCalls,
    };
  } finally {
    await stack.stop();
  }
}
