/**
 * A permanent hand-off error from a real Temporal (issue 35, item 7): an event whose registry id is
 * longer than the server's workflow id limit (1,000 characters) is parked under an id Temporal
 * refuses with INVALID_ARGUMENT. Through the ingress's own native client, it is answered 2xx
 * (dead_letter) and counted, and the account's next event is handed off.
 */
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningIngress, startIngress } from '../../src/ingress/server.js';
import { createIngressClient } from '../../src/ingress/temporal.js';
import { devServerEnv } from '../support/temporal-env.js';
import { failFastIngressConfig, postSignedEvent } from './ingress-test-config.js';

const WEBHOOK_URL = 'https://csp.example/webhooks/registry';
const SECRET = 'permanent-e2e-secret-0123456789abcdefgh';

describe('an event Temporal refuses for what it is', () => {
  let env: TestWorkflowEnvironment;
  let ingress: RunningIngress;
  beforeAll(async () => {
    env = await devServerEnv();
    const config = failFastIngressConfig(
      { url: WEBHOOK_URL, secret: SECRET },
      { TCR_INGRESS_HANDOFF_TIMEOUT_MS: '5000', TEMPORAL_ADDRESS: env.address },
    );
    ingress = await startIngress({
      config,
      client: createIngressClient(config),
      logger: pino({ level: 'silent' }),
    });
  }, 60_000);
  afterAll(async () => {
    await ingress?.close();
    await env?.teardown();
  });

  const post = async (event: Record<string, unknown>) => {
    const response = await postSignedEvent(ingress.endpoint, SECRET, WEBHOOK_URL, event);
    return { status: response.status, json: (await response.json()) as Record<string, unknown> };
  };

  it('is acknowledged as a dead letter, and the next event is parked', async () => {
    const bad = await post({ eventType: 'CAMPAIGN_ADD', campaignId: `C${'X'.repeat(1_200)}` });
    expect(bad).toMatchObject({ status: 200, json: { outcome: 'dead_letter' } });
    expect(ingress.metrics.snapshot().deadLetters).toEqual({ INVALID_ARGUMENT: 1 });
    const next = await post({ eventType: 'CAMPAIGN_ADD', campaignId: 'CNEXT02' });
    expect(next).toMatchObject({ status: 200, json: { outcome: 'parked' } });
    expect(ingress.metrics.snapshot().handoffFailures).toBe(0);
  }, 60_000);
});
