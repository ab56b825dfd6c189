/**
 * Traces, as an operator follows a slow registration: one trace from the webhook the ingress verified,
 * through its signal and the workflow it woke, to the registry read that wake caused. The product's
 * own wiring throughout: `createWorkers` with tracing (the workflow bundle built with the tracing
 * interceptors, real registry activities against the simulator), the ingress app and its Temporal
 * client as `parseIngressConfig` and `createIngressClient` make them with an OTLP endpoint set, spans
 * kept by an in-memory exporter. Then: no span carries a body, a credential or personal data; and the
 * workflow's history, recorded with tracing on, replays without it (tracing can be turned off).
 *
 * On the dev server: the Java time-skipping server drops a signal's headers (its history shows the
 * signal with no header), so a webhook's trace context would never reach the workflow there.
 */
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrandStatus } from '../../src/contracts/brand.js';
import { buildIngressApp, type IngressApp } from '../../src/ingress/app.js';
import { type IngressConfig, parseIngressConfig } from '../../src/ingress/config.js';
import { IngressMetrics } from '../../src/ingress/metrics.js';
import { signEvent } from '../../src/ingress/signature.js';
import { createIngressClient } from '../../src/ingress/temporal.js';
import { startTracing, type Tracing } from '../../src/observability/tracing.js';
import { startBrandOrder } from '../../src/orders/brand-client.js';
import { DEFAULT_ACCOUNT } from '../../src/simulator/index.js';
import { startTestStack, type TestStack } from '../fixtures/test-stack.js';
import {
  brandRegistration,
  uniqueReference,
  waitForStatus,
  workflowsPath,
} from '../fixtures/workflow-harness.js';
import { workflowBundle } from '../support/temporal-env.js';

const WEBHOOK_URL = 'https://csp.example/webhooks/registry';
const SECRET = 'trace-test-secret-0123456789abcdefghij';
const ACCOUNT = 'acct-traced';

let stack: TestStack;
let tracing: Tracing;
let ingressClient: Client;
let ingress: IngressApp;
let ingressConfig: IngressConfig;
const exporter = new InMemorySpanExporter();

beforeAll(async () => {
  tracing = startTracing({ serviceName: 'tcr-test', spanProcessor: new SimpleSpanProcessor(exporter) });
  stack = await startTestStack({ account: ACCOUNT, simulator: { rateLimits: false }, tracing });
  ingressConfig = parseIngressConfig({
    TCR_WEBHOOK_URL: WEBHOOK_URL,
    TCR_WEBHOOK_SECRETS: SECRET,
    TCR_INGRESS_ACCOUNTS: ACCOUNT,
    TCR_INGRESS_INTERNAL_LISTEN: 'off',
    TEMPORAL_ADDRESS: stack.env.address,
    // Tracing on, as an operator turns it on (the spans go to this test's exporter, not to this URL).
    OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318',
  });
  ingressClient = createIngressClient(ingressConfig);
  ingress = buildIngressApp({
    config: ingressConfig,
    client: ingressClient,
    logger: pino({ level: 'silent' }),
    metrics: new IngressMetrics(),
  });
}, 120_000);

afterAll(async () => {
  await ingress?.app.close();
  await ingressClient?.connection.close();
  await stack?.close();
  await tracing?.shutdown();
});

/** Ready, and its loop waiting (the status says for what): the reads of its start are done. */
const idleWhenReady = (handle: WorkflowHandle) =>
  waitForStatus(handle, (s) => s.phase === 'ready' && s.waitingFor !== undefined, 30_000);

const byId = (spans: ReadableSpan[]) => new Map(spans.map((s) => [s.spanContext().spanId, s]));

/** The spans of `traceId`, once one named `name` and every span's parent have ended (spans export as they close). */
async function spansOf(traceId: string, name: RegExp): Promise<ReadableSpan[]> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    await tracing.flush();
    const spans = exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === traceId);
    // Complete: every span's parent has ended too. A workflow's spans are exported through a sink
    // after its activation, so an activity's span may be exported before the workflow span that
    // scheduled it.
    const ids = new Set(spans.map((s) => s.spanContext().spanId));
    const complete = spans.every((s) => !s.parentSpanId || ids.has(s.parentSpanId));
    if (complete && spans.some((s) => name.test(s.name))) return spans;
    if (Date.now() > deadline)
      throw new Error(
        `no complete trace ${traceId} with a span matching ${name}; it has: ${spans.map((s) => `${s.name}<${s.parentSpanId ?? ''}`).join(', ')}; all: ${exporter
          .getFinishedSpans()
          .map((s) => `${s.name}@${s.spanContext().traceId.slice(0, 6)}<${s.parentSpanId ?? ''}`)
          .join(', ')}`,
      );
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('traces', () => {
  it('one trace follows a webhook from the ingress to the registry read it causes; no span holds a body, a credential or personal data', async () => {
    const registration = brandRegistration({ companyName: 'Tracewell Widgets Inc', ein: '98-7654321' });
    const reference = uniqueReference('traced');
    const { handle } = await startBrandOrder(
      stack.client,
      { reference, account: ACCOUNT, brand: registration },
      { taskQueue: 'tcr-workflows' },
    );
    const ready: BrandStatus = await idleWhenReady(handle);

    const event = {
      eventType: 'BRAND_IDENTITY_STATUS_UPDATE',
      brandId: ready.brandId!,
      brandReferenceId: reference,
    };
    const answer = await ingress.app.inject({
      method: 'POST',
      url: ingressConfig.path,
      headers: {
        'content-type': 'application/json',
        'x-registry-signature-256': signEvent(SECRET, WEBHOOK_URL, event),
      },
      payload: JSON.stringify(event),
    });
    expect(answer.statusCode).toBe(200);
    expect(answer.json()).toMatchObject({
      outcome: 'signalled',
      workflowId: `brand/${ACCOUNT}/${reference}`,
    });

    await tracing.flush();
    const root = exporter
      .getFinishedSpans()
      .find(
        (s) => s.name === 'ingress webhook' && s.attributes['tcr.delivery.id'] === answer.json().deliveryId,
      );
    expect(root, 'the ingress span of this delivery').toBeDefined();
    const traceId = root!.spanContext().traceId;
    const spans = await spansOf(traceId, /^registry GET \/brand\/\{id\}$/);
    const parents = byId(spans);
    const parentOf = (s: ReadableSpan) => (s.parentSpanId ? parents.get(s.parentSpanId) : undefined);

    // The ingress span is the trace's root; its attributes say what came and what became of it.
    expect(root!.parentSpanId).toBeUndefined();
    expect(root!.attributes).toMatchObject({
      'tcr.event.type': 'BRAND_IDENTITY_STATUS_UPDATE',
      'tcr.ingress.outcome': 'signalled',
      'http.response.status_code': 200,
    });
    // ingress → signal → (the wake) → activity scheduled → activity run → registry call.
    const signal = spans.find((s) => s.name === 'SignalWorkflow:registryEvent');
    expect(parentOf(signal!)?.name).toBe('ingress webhook');
    const read = spans.find((s) => s.name === 'registry GET /brand/{id}')!;
    const run = parentOf(read)!;
    expect(run.name).toBe('RunActivity:getBrand');
    const scheduled = parentOf(run)!;
    expect(scheduled.name).toBe('StartActivity:getBrand');
    expect(parentOf(scheduled)?.name).toBe('SignalWorkflow:registryEvent');
    expect(read.attributes).toEqual({
      'tcr.account': ACCOUNT,
      'http.request.method': 'GET',
      'tcr.registry.endpoint': '/brand/{id}',
      'http.response.status_code': 200,
    });

    // Nothing secret or personal in any span this test saw, from the order to the webhook's read.
    const everything = JSON.stringify(
      exporter.getFinishedSpans().map((s) => ({ name: s.name, attributes: s.attributes, events: s.events })),
    );
    for (const secret of [
      DEFAULT_ACCOUNT.apiKey,
      DEFAULT_ACCOUNT.apiSecret,
      Buffer.from(`${DEFAULT_ACCOUNT.apiKey}:${DEFAULT_ACCOUNT.apiSecret}`).toString('base64'),
      SECRET,
      'Tracewell',
      '98-7654321',
      registration.email,
      registration.phone,
    ])
      expect(everything, 'no credential or personal data in a span').not.toContain(secret);
  });

  it('a history recorded with tracing on replays with tracing off', async () => {
    const reference = uniqueReference('traced-replay');
    const { handle } = await startBrandOrder(
      stack.client,
      { reference, account: ACCOUNT, brand: brandRegistration() },
      { taskQueue: 'tcr-workflows' },
    );
    await idleWhenReady(handle);
    const history = await handle.fetchHistory();
    await Worker.runReplayHistory(
      { workflowBundle: await workflowBundle(workflowsPath) },
      history,
      handle.workflowId,
    );
  });
});
