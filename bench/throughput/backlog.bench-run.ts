/**
 * Interactive work under a backlog (issue 18's second target): with BENCH_BACKLOG (default 1,000)
 * brand orders queued on one account, how long an operator's write and a webhook's read wait for
 * their registry call.
 *
 * The stack: dev server, simulator at the spec's limits (20 GET/s, 20 writes / 10 s) at 3600×, the
 * counting proxy, in-process workers, the ingress. First PROBES brands are ordered and become ready;
 * then the backlog is started (each brand costs one write, so 1,000 take about 500 s at 2/s). While
 * more than a window of the backlog's writes is still queued, every PROBE_EVERY_MS one probe brand
 * gets an operator `correctBrand` (its registry call: `PUT /v2/brand/{id}`) and another gets a signed
 * BRAND_IDENTITY_STATUS_UPDATE through the ingress (its registry call: `GET /v2/brand/{id}`). Each
 * latency runs from the moment the update or webhook was sent to the moment its call reached the
 * proxy in front of the simulator. An operator probe's time is also split by its brand workflow's
 * history (`operatorParts`): to the update's acceptance, to its write activity's scheduling, in the
 * interactive writes queue, and inside the activity until the call (the write budget's reservation
 * and wait). The first operator write starts the budget's interactive headroom; its latency is also
 * given alone (`firstOperatorToRegistryCallMs`).
 *
 *   BENCH_BACKLOG=1000 npx vitest run --config bench/vitest.config.ts bench/throughput/backlog.bench-run.ts
 * Results: stdout and bench/throughput/results-backlog.<time>.json.
 */
import { cpus, loadavg } from 'node:os';
import { tsToMs } from '@temporalio/common/lib/time.js';
import type { temporal } from '@temporalio/proto';
import { expect, it } from 'vitest';
import {
  brandHandle,
  correctBrand,
  getBrandStatus,
  startBrandOrder,
  waitForBrandPhase,
} from '../../src/orders/brand-client.js';
import { startBenchStack } from '../support/bench-stack.js';
import { brandOrder } from '../support/orders.js';
import { writeResults } from '../support/results.js';
import { percentile, round, sleep } from '../support/stats.js';
import { postSignedEvent } from '../support/webhooks.js';

const BACKLOG = Number(process.env.BENCH_BACKLOG ?? 1000);
const PROBES = 10;
const PROBE_EVERY_MS = 5_000;
/** One registry write window and a margin: the probes' own writes leave it before the backlog starts. */
const WINDOW_MS = 10_500;
const BRAND_POST = '/v2/brand/nonBlocking';

interface Probe {
  kind: 'operator' | 'webhook';
  brandId: string;
  /** The probe brand's reference (its workflow). */
  reference: string;
  sentAt: number;
  /** When its registry call reached the proxy (undefined: not seen). */
  calledAt?: number;
}

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** When a history event happened (epoch ms). */
const eventMs = (e: HistoryEvent) => tsToMs(e.eventTime);

/**
 * Where an operator probe's time went, from its brand workflow's history: update sent → accepted by
 * the workflow, accepted → its `updateBrand` activity scheduled (the loop's step), scheduled → started
 * (the writes queue), started → the call at the registry (inside the activity: the write budget's
 * reservation and wait). Undefined when a mark is missing.
 */
function operatorSpans(events: HistoryEvent[], probe: Probe) {
  const accepted = events.find(
    (e) => e.workflowExecutionUpdateAcceptedEventAttributes && eventMs(e) >= probe.sentAt - 5,
  );
  if (!accepted || probe.calledAt === undefined) return undefined;
  const scheduled = events.find(
    (e) =>
      e.activityTaskScheduledEventAttributes?.activityType?.name === 'updateBrand' &&
      Number(e.eventId) > Number(accepted.eventId),
  );
  const started = scheduled
    ? events.find(
        (e) =>
          Number(e.activityTaskStartedEventAttributes?.scheduledEventId ?? -1) === Number(scheduled.eventId),
      )
    : undefined;
  if (!scheduled || !started) return undefined;
  return {
    toAccepted: eventMs(accepted) - probe.sentAt,
    toScheduled: eventMs(scheduled) - eventMs(accepted),
    queued: eventMs(started) - eventMs(scheduled),
    inActivity: probe.calledAt - eventMs(started),
  };
}

function summary(latencies: number[]) {
  return {
    count: latencies.length,
    p50Ms: round(percentile(latencies, 50)),
    p99Ms: round(percentile(latencies, 99)),
    maxMs: round(Math.max(0, ...latencies)),
  };
}

it(`operator writes and webhook reads behind ${BACKLOG} queued brand orders`, async () => {
  const loadAtStart = loadavg().map((l) => round(l));
  const stack = await startBenchStack({ timeScale: 3600 });
  try {
    await stack.setupWritesLeftWindow();
    const prefix = `bl${Date.now().toString(36)}`;

    // The probe brands: ready before the backlog starts.
    const probeRefs = Array.from({ length: PROBES }, (_, i) => `${prefix}-probe${i}`);
    await Promise.all(probeRefs.map((ref) => startBrandOrder(stack.client, brandOrder(ref))));
    const probeIds: string[] = [];
    for (const ref of probeRefs)
      probeIds.push((await waitForBrandPhase(stack.client, ref, 'ready', 120_000)).brandId!);
    await sleep(WINDOW_MS);

    // The backlog, started 25 at a time.
    const backlogRefs = Array.from({ length: BACKLOG }, (_, i) => `${prefix}-b${i}`);
    const startedAt = Date.now();
    for (let i = 0; i < backlogRefs.length; i += 25)
      await Promise.all(
        backlogRefs.slice(i, i + 25).map((ref) => startBrandOrder(stack.client, brandOrder(ref))),
      );
    const allStartedMs = Date.now() - startedAt;
    const accepted = () =>
      stack.proxy.calls.filter(
        (c) => c.method === 'POST' && c.path === BRAND_POST && c.status >= 200 && c.status < 300,
      ).length - PROBES;

    // Probes while more than a window of the backlog's writes is still queued.
    const probes: Probe[] = [];
    const pending: Promise<unknown>[] = [];
    for (let tick = 0; BACKLOG - accepted() > 20; tick++) {
      const operatorRef = probeRefs[tick % PROBES]!;
      const webhookIndex = (tick + PROBES / 2) % PROBES;
      const operator: Probe = {
        kind: 'operator',
        brandId: probeIds[tick % PROBES]!,
        reference: operatorRef,
        sentAt: Date.now(),
      };
      probes.push(operator);
      pending.push(
        correctBrand(stack.client, operatorRef, { patch: { email: `ops+${tick}@acme.example` } }).catch(
          (error) => console.log(`operator probe ${tick}: ${error}`),
        ),
      );
      const webhook: Probe = {
        kind: 'webhook',
        brandId: probeIds[webhookIndex]!,
        reference: probeRefs[webhookIndex]!,
        sentAt: Date.now(),
      };
      probes.push(webhook);
      const status = await postSignedEvent(stack.ingress.endpoint, stack.webhookUrl, stack.webhookSecret, {
        eventType: 'BRAND_IDENTITY_STATUS_UPDATE',
        cspId: 'CSPLOCAL',
        brandId: webhook.brandId,
        brandReferenceId: probeRefs[webhookIndex],
        brandIdentityStatus: 'VERIFIED',
        description: `bench probe ${tick}`,
      });
      if (status !== 200 && status !== 204) console.log(`webhook probe ${tick}: ingress answered ${status}`);
      process.stdout.write(
        `\r  backlog: ${accepted()}/${BACKLOG} registered, ${probes.length / 2} probe pairs   `,
      );
      await sleep(PROBE_EVERY_MS);
    }
    process.stdout.write('\n');
    await Promise.all(pending);

    // Each probe's registry call: the first of its kind on its brand after it was sent.
    for (const p of probes) {
      const call = stack.proxy.calls.find(
        (c) =>
          c.path === `/v2/brand/${p.brandId}` &&
          c.method === (p.kind === 'operator' ? 'PUT' : 'GET') &&
          c.startMs >= p.sentAt,
      );
      if (call) p.calledAt = call.startMs;
    }
    // The operator probes' time, part by part (p50 / p99 of each part over the probes).
    const histories = new Map<string, HistoryEvent[]>();
    for (const ref of probeRefs)
      histories.set(ref, (await brandHandle(stack.client, ref).fetchHistory()).events ?? []);
    const parts = probes
      .filter((p) => p.kind === 'operator')
      .map((p) => operatorSpans(histories.get(p.reference) ?? [], p))
      .filter((x) => x !== undefined);
    const part = (key: keyof NonNullable<ReturnType<typeof operatorSpans>>) =>
      summary(parts.map((x) => x[key]));
    const operatorParts = {
      toAccepted: part('toAccepted'),
      toScheduled: part('toScheduled'),
      queued: part('queued'),
      inActivity: part('inActivity'),
    };
    const latencies = (kind: Probe['kind']) =>
      probes.filter((p) => p.kind === kind && p.calledAt !== undefined).map((p) => p.calledAt! - p.sentAt);

    // The backlog finishes.
    const deadline = Date.now() + 300_000;
    while (accepted() < BACKLOG && Date.now() < deadline) await sleep(1_000);
    const writes = stack.proxy.calls.filter((c) => c.method !== 'GET' && c.startMs >= startedAt);
    const results = {
      when: new Date().toISOString(),
      machine: { cpus: cpus().length, model: cpus()[0]?.model, loadavgAtStart: loadAtStart },
      backlog: BACKLOG,
      probeEveryMs: PROBE_EVERY_MS,
      allStartedMs,
      backlogRegistered: accepted(),
      backlogSeconds: round((Date.now() - startedAt) / 1000, 1),
      operatorToRegistryCall: summary(latencies('operator')),
      // The first operator write starts the budget's interactive room (kept 5 minutes after each one):
      // it, and the next one while the window granted before it is still full, may wait for the
      // backlog's window; the later ones should not. Every probe's latency, in the order sent.
      firstOperatorToRegistryCallMs: latencies('operator')[0],
      operatorAfterFirstWindow: summary(
        probes
          .filter(
            (p) =>
              p.kind === 'operator' &&
              p.calledAt !== undefined &&
              p.sentAt >= (probes[0]?.sentAt ?? 0) + WINDOW_MS,
          )
          .map((p) => p.calledAt! - p.sentAt),
      ),
      operatorLatenciesMs: latencies('operator'),
      operatorNotSeen: probes.filter((p) => p.kind === 'operator' && p.calledAt === undefined).length,
      operatorParts,
      webhookToRegistryRead: summary(latencies('webhook')),
      webhookNotSeen: probes.filter((p) => p.kind === 'webhook' && p.calledAt === undefined).length,
      writes: writes.length,
      rateLimited: stack.proxy.calls.filter((c) => c.status === 429 && c.startMs >= startedAt).length,
      probeBrandsReady: (await Promise.all(probeRefs.map((ref) => getBrandStatus(stack.client, ref)))).filter(
        (s) => s.phase === 'ready',
      ).length,
    };
    console.log(JSON.stringify(results, null, 2));
    writeResults(new URL('./results-backlog.json', import.meta.url), results);
    expect(results.backlogRegistered).toBe(BACKLOG);
    expect(results.rateLimited).toBe(0);
  } finally {
    await stack.stop();
  }
});
