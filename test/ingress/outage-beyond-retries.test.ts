import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brandWorkflowId } from '../../src/contracts/ids.js';
import { type HandoffFailureAnswer, parseIngressConfig } from '../../src/ingress/config.js';
import { type RunningIngress, startIngress } from '../../src/ingress/server.js';
import { createIngressClient } from '../../src/ingress/temporal.js';
import { SimulatorControl } from '../../src/simulator/control-client.js';
import {
  DEFAULT_ACCOUNT,
  RETRY_SCHEDULE_SECONDS,
  type RunningSimulator,
  startSimulator,
} from '../../src/simulator/index.js';
import { recordedQuery, recordingOwner } from '../fixtures/ingress-workflows.js';
import { type RecordingOwners, startRecordingOwners } from '../fixtures/recording-owners.js';
import { privateBrandFields } from '../support/brand-fixtures.js';
import { SwitchableProxy } from '../support/switchable-proxy.js';

// A Temporal outage longer than the registry's whole 4xx/5xx retry schedule (13 retries, ~25 h),
// in simulator time (1 simulated hour = 0.1 s). With the default answer to a failed hand-off (the
// connection is closed: a network error, which the registry retries linearly without expiry) the
// event survives and reaches its workflow when Temporal is back. With 503 it is discarded: the
// reason the default is what it is (docs/ingress.md).
const SECRET = 'outage-beyond-retries-secret-0123456789';
const TIME_SCALE = 36_000;
const SCHEDULE_MS = RETRY_SCHEDULE_SECONDS.reduce((a, b) => a + b, 0) * 1000;

interface Lane {
  sim: RunningSimulator;
  control: SimulatorControl;
  ingress: RunningIngress;
  client: Client;
  /** The webhook URL's port: bound once, in front of the ingress's own port 0. */
  front: SwitchableProxy;
}

describe('Temporal down for longer than the retry schedule', () => {
  let env: TestWorkflowEnvironment;
  let proxy: SwitchableProxy;
  const lanes: Lane[] = [];
  let taskQueue: string;
  let owners: RecordingOwners;

  beforeAll(async () => {
    owners = await startRecordingOwners('ingress-long-outage');
    env = owners.env;
    taskQueue = owners.taskQueue;
    const [host, port] = env.address.split(':');
    proxy = new SwitchableProxy({ host: host!, port: Number(port) });
    await proxy.listen(); // down until up()
  });
  afterAll(async () => {
    for (const lane of lanes) {
      await lane.sim.close();
      await lane.front.close();
      await lane.ingress.close();
      await lane.client.connection.close();
    }
    await proxy?.close();
    await owners?.close();
  });

  /** A simulator whose brand events go to an ingress that reaches Temporal only through the proxy. */
  async function lane(handoffFailure: HandoffFailureAnswer): Promise<Lane> {
    const front = new SwitchableProxy({ host: '127.0.0.1', port: 0 });
    const webhookUrl = `http://127.0.0.1:${await front.listen()}/webhooks/registry`;
    const config = parseIngressConfig({
      TCR_WEBHOOK_URL: webhookUrl,
      TCR_WEBHOOK_SECRETS: SECRET,
      TCR_INGRESS_ACCOUNTS: 'acme',
      TCR_INGRESS_PORT: '0',
      TCR_INGRESS_INTERNAL_LISTEN: 'off',
      TCR_INGRESS_HANDOFF_TIMEOUT_MS: '300',
      TCR_INGRESS_HANDOFF_FAILURE: handoffFailure,
      TCR_PARKED_EVENTS_TASK_QUEUE: taskQueue,
    });
    const client = createIngressClient({
      temporalAddress: `127.0.0.1:${proxy.port}`,
      temporalNamespace: env.namespace ?? 'default',
    });
    const ingress = await startIngress({ config, client, logger: pino({ level: 'silent' }) });
    front.forwardTo({ host: '127.0.0.1', port: Number(new URL(ingress.url).port) });
    await front.up();
    const sim = await startSimulator({
      rateLimits: false,
      timeScale: TIME_SCALE,
      delays: { webhookNetworkRetrySeconds: 3600 },
    });
    const control = new SimulatorControl(sim.url);
    await control.setWebhookSecret({ secret: SECRET, digestEncoding: 'hex' });
    const subscribed = await fetch(`${sim.apiBaseUrl}/webhook/subscription`, {
      method: 'PUT',
      headers: {
        authorization: `Basic ${Buffer.from(`${DEFAULT_ACCOUNT.apiKey}:${DEFAULT_ACCOUNT.apiSecret}`).toString('base64')}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ eventCategory: 'BRAND', webhookEndpoint: webhookUrl }),
    });
    expect(subscribed.status).toBe(200);
    const made = { sim, control, ingress, client, front };
    lanes.push(made);
    return made;
  }

  async function registerBrand(l: Lane, ref: string): Promise<void> {
    const response = await fetch(`${l.sim.apiBaseUrl}/brand/nonBlocking`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${DEFAULT_ACCOUNT.apiKey}:${DEFAULT_ACCOUNT.apiSecret}`).toString('base64')}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify(privateBrandFields({ referenceId: ref })),
    });
    expect(response.status).toBe(200);
  }

  it('closing the connection keeps the event through a 30-hour outage; 503 loses it', async () => {
    const ref = `lo-${randomUUID().slice(0, 8)}`;
    const owner = await env.client.workflow.start(recordingOwner, {
      taskQueue,
      workflowId: brandWorkflowId('acme', ref),
      args: [{ kind: 'brand', reference: ref }],
    });
    const closing = await lane('close');
    const answering503 = await lane('503');
    await registerBrand(closing, ref);
    await registerBrand(answering503, ref);

    // 503: the schedule runs out and the event is gone for good.
    const discarded = await answering503.control.waitForDelivery(
      (d) => d.outcome === 'DISCARDED' && d.event.brandReferenceId === ref,
      { timeoutMs: 120_000 },
    );
    expect(discarded.status).toBe(503);

    // Closed connection: still retried, linearly, well past the end of the 4xx/5xx schedule.
    const ours = async () =>
      (await closing.control.deliveries()).filter((d) => d.event.brandReferenceId === ref);
    for (;;) {
      const attempts = await ours();
      const span = attempts.length > 1 ? Date.parse(attempts.at(-1)!.at) - Date.parse(attempts[0]!.at) : 0;
      if (span > SCHEDULE_MS + 4 * 3600_000) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const during = await ours();
    expect(during.every((d) => d.outcome === 'NETWORK_RETRY')).toBe(true);
    expect(during.length).toBeGreaterThan(RETRY_SCHEDULE_SECONDS.length);
    expect((await owner.query(recordedQuery)).signals).toHaveLength(0);

    // Temporal is back: the next linear retry hands the event on.
    await proxy.up();
    const delivered = await closing.control.waitForDelivery(
      (d) => d.outcome === 'DELIVERED' && d.event.brandReferenceId === ref,
      { timeoutMs: 60_000 },
    );
    expect(delivered.status).toBe(200);
    expect((await ours()).some((d) => d.outcome === 'DISCARDED')).toBe(false);
    const recorded = await owner.query(recordedQuery);
    expect(recorded.signals.map((s) => s.event.brandReferenceId)).toContain(ref);
    expect(closing.ingress.metrics.snapshot().handoffFailures).toBeGreaterThan(RETRY_SCHEDULE_SECONDS.length);
  }, 240_000);
});
