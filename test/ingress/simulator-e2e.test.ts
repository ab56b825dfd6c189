import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brandWorkflowId } from '../../src/contracts/ids.js';
import { parseIngressConfig } from '../../src/ingress/config.js';
import { type RunningIngress, startIngress } from '../../src/ingress/server.js';
import { createIngressClient } from '../../src/ingress/temporal.js';
import type { SimulatorControl } from '../../src/simulator/control-client.js';
import type { RunningSimulator } from '../../src/simulator/index.js';
import { recordedQuery, recordingOwner } from '../fixtures/ingress-workflows.js';
import { type RecordingOwners, startRecordingOwners } from '../fixtures/recording-owners.js';
import { type SimulatorHarness, startTestSimulator } from '../fixtures/workflow-simulator.js';
import { privateBrandFields } from '../support/brand-fixtures.js';
import { SwitchableProxy } from '../support/switchable-proxy.js';

// The simulator's real webhooks, end to end: subscription, signing (hex here), FIFO delivery and
// the retry schedule under time scaling, into a workflow through the ingress.
const SECRET = 'e2e-webhook-secret';

const brand = (referenceId: string) => privateBrandFields({ referenceId });

describe('simulator webhooks through the ingress', () => {
  let env: TestWorkflowEnvironment;
  let sim: RunningSimulator;
  let control: SimulatorControl;
  let api: SimulatorHarness['api'];
  let ingress: RunningIngress;
  let front: SwitchableProxy;
  let ingressClient: Client;
  let taskQueue: string;
  let owners: RecordingOwners;

  beforeAll(async () => {
    owners = await startRecordingOwners('ingress-e2e');
    env = owners.env;
    taskQueue = owners.taskQueue;
    ingressClient = createIngressClient({ temporalAddress: env.address, temporalNamespace: 'default' });
    // The webhook URL's port is a proxy's, bound once; the ingress listens on port 0 behind it.
    front = new SwitchableProxy({ host: '127.0.0.1', port: 0 });
    const webhookUrl = `http://127.0.0.1:${await front.listen()}/webhooks/registry`;
    ingress = await startIngress({
      config: parseIngressConfig({
        TCR_WEBHOOK_URL: webhookUrl,
        TCR_WEBHOOK_SECRETS: SECRET,
        TCR_INGRESS_ACCOUNTS: 'acme',
        TCR_INGRESS_PORT: '0',
        TCR_INGRESS_INTERNAL_LISTEN: '127.0.0.1:0',
        TCR_PARKED_EVENTS_TASK_QUEUE: taskQueue,
      }),
      client: ingressClient,
      logger: pino({ level: 'silent' }),
    });
    front.forwardTo({ host: '127.0.0.1', port: Number(new URL(ingress.url).port) });
    await front.up();
    ({ sim, control, api } = await startTestSimulator({ rateLimits: false, timeScale: 3600 }));
    await control.setWebhookSecret({ secret: SECRET, digestEncoding: 'hex' });
    const subscribed = await api('PUT', '/webhook/subscription', {
      eventCategory: 'BRAND',
      webhookEndpoint: webhookUrl,
    });
    expect(subscribed.status).toBe(200);
  });
  afterAll(async () => {
    await sim?.close();
    await front?.close();
    await ingress?.close();
    await ingressClient?.connection.close();
    await owners?.close();
  });

  it('delivers a brand registration event to the brand workflow, after a rejected first attempt', async () => {
    const ref = `e2e-${randomUUID().slice(0, 8)}`;
    const owner = await env.client.workflow.start(recordingOwner, {
      taskQueue,
      workflowId: brandWorkflowId('acme', ref),
      args: [{ kind: 'brand', reference: ref }],
    });
    // The first delivery carries a bad signature: the ingress answers 401 and the simulator retries
    // on its schedule (61 simulated seconds, ~17 ms at 3600x).
    // (eventType is given: the simulator's fault matcher needs the property to be present.)
    await control.addFault({ kind: 'webhook-bad-signature', eventType: 'BRAND_ADD', count: 1 });
    const registered = await api('POST', '/brand/nonBlocking', brand(ref));
    expect(registered.status).toBe(200);
    const { brandId } = registered.body as { brandId: string };

    const delivered = await control.waitForDelivery(
      (d) => d.outcome === 'DELIVERED' && d.event.brandReferenceId === ref,
      { timeoutMs: 15_000 },
    );
    expect(delivered.status).toBe(200);
    const attempts = (await control.deliveries()).filter((d) => d.event.brandReferenceId === ref);
    expect(attempts[0]).toMatchObject({ outcome: 'RETRY', status: 401, badSignature: true });
    // The retry waited the schedule's first step in simulated time.
    expect(Date.parse(delivered.at) - Date.parse(attempts[0]!.at)).toBeGreaterThanOrEqual(61_000);
    // Digest in hex, and the SHA-1 header (still sent before 2027-03-07) did not matter.
    expect(delivered.signature256).toMatch(/^[0-9a-f]{64}$/);

    const recorded = await owner.query(recordedQuery);
    expect(recorded.signals.length).toBeGreaterThanOrEqual(1);
    expect(recorded.signals[0]!.event).toMatchObject({
      eventType: delivered.eventType,
      brandId,
      brandReferenceId: ref,
    });
    expect(ingress.metrics.snapshot().rejected.signature_invalid).toBeGreaterThanOrEqual(1);
  });
});
