/**
 * Permanent hand-off errors (issue 35, item 7): a delivery Temporal refuses for what it is (an
 * INVALID_ARGUMENT such as an over-long workflow id, an OUT_OF_RANGE) is acknowledged 2xx, counted and
 * logged as a dead letter, so the registry stops retrying it and the account's queue moves on; a
 * transient error (Temporal unavailable, a deadline, a namespace not found, a search attribute not
 * registered) keeps the failure answer and the registry retries.
 */
import { Client, ServiceError, WorkflowNotFoundError } from '@temporalio/client';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { RegistryEventDelivery } from '../../src/contracts/signals.js';
import { buildIngressApp, type HandOff } from '../../src/ingress/app.js';
import { type IngressConfig, parseIngressConfig } from '../../src/ingress/config.js';
import { permanentHandoffCode } from '../../src/ingress/handoff-errors.js';
import { IngressMetrics } from '../../src/ingress/metrics.js';
import { signEvent } from '../../src/ingress/signature.js';

const WEBHOOK_URL = 'https://csp.example/webhooks/registry';
const SECRET = 'permanent-handoff-secret-0123456789abc';

/** A gRPC status as the SDK's connections raise it (code, details, metadata). */
const grpcError = (code: number, details: string) =>
  Object.assign(new Error(`${code} ${details}`), { code, details, metadata: {} });
/** What WorkflowClient.signal / signalWithStart throw for a status other than NOT_FOUND. */
const sdkError = (code: number, details: string) =>
  new ServiceError('Failed to signal Workflow', { cause: grpcError(code, details) });

function ingress(handOff: HandOff, overrides: Partial<IngressConfig> = {}) {
  const metrics = new IngressMetrics();
  const lines: Record<string, unknown>[] = [];
  const logger = pino(
    { level: 'info' },
    { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) },
  );
  const config: IngressConfig = {
    ...parseIngressConfig({
      TCR_WEBHOOK_URL: WEBHOOK_URL,
      TCR_WEBHOOK_SECRETS: SECRET,
      TCR_INGRESS_ACCOUNTS: 'acme',
      TCR_INGRESS_INTERNAL_LISTEN: 'off',
      TCR_INGRESS_HANDOFF_FAILURE: '503',
    }),
    ...overrides,
  };
  const { app } = buildIngressApp({ config, client: new Client(), logger, metrics, handOff });
  const post = async (event: Record<string, unknown>) => {
    const response = await app.inject({
      method: 'POST',
      url: config.path,
      headers: {
        'content-type': 'application/json',
        'x-registry-signature-256': signEvent(SECRET, WEBHOOK_URL, event),
      },
      payload: JSON.stringify(event),
    });
    return { status: response.statusCode, json: response.json() as Record<string, unknown> };
  };
  return { metrics, post, lines, app };
}

const longId = 'C'.repeat(2_000);
const badEvent = { eventType: 'CAMPAIGN_ADD', campaignId: longId, brandName: 'Jane Doe Bakery' };
const nextEvent = { eventType: 'CAMPAIGN_ADD', campaignId: 'CNEXT01' };

describe('a permanent hand-off error', () => {
  it('is answered 2xx, counted and logged without the event, and the next event is delivered', async () => {
    const handed: RegistryEventDelivery[] = [];
    const { post, metrics, lines } = ingress(async (delivery) => {
      if (delivery.event.campaignId === longId)
        throw sdkError(3, 'WorkflowId length exceeds limit. Length: 2013, limit 1000');
      handed.push(delivery);
      return { action: 'signalled', kind: 'campaign', via: 'registry_id', workflowId: 'campaign/acme/x' };
    });
    const first = await post(badEvent);
    expect(first.status).toBe(200);
    expect(first.json).toMatchObject({ outcome: 'dead_letter' });
    expect(metrics.snapshot().deadLetters).toEqual({ INVALID_ARGUMENT: 1 });
    expect(metrics.snapshot().handoffFailures).toBe(0);
    expect(metrics.render()).toContain('tcr_ingress_handoff_dead_letters_total{code="INVALID_ARGUMENT"} 1');

    const record = lines.find((line) => line.outcome === 'dead_letter');
    expect(record).toMatchObject({ level: 50, deliveryId: first.json.deliveryId, code: 'INVALID_ARGUMENT' });
    // The record names the event by type and ids (ids cut short), never by its free-text fields.
    expect(JSON.stringify(lines)).not.toContain('Jane Doe');
    expect(String(record?.campaignId).length).toBeLessThanOrEqual(101);

    // A retry of the same delivery is a duplicate, not a second dead letter.
    expect((await post(badEvent)).json).toMatchObject({ outcome: 'duplicate' });
    expect(metrics.snapshot().deadLetters).toEqual({ INVALID_ARGUMENT: 1 });

    const next = await post(nextEvent);
    expect(next).toMatchObject({ status: 200, json: { outcome: 'signalled' } });
    expect(handed.map((d) => d.event.campaignId)).toEqual(['CNEXT01']);
  });

  it('keeps the failure answer for transient errors, so the registry retries', async () => {
    for (const error of [
      sdkError(14, 'connection refused'), // UNAVAILABLE
      sdkError(4, 'deadline exceeded'), // DEADLINE_EXCEEDED
      sdkError(7, 'Request unauthorized.'), // PERMISSION_DENIED: a configuration problem, fixed and retried
      sdkError(8, 'namespace rate limit exceeded'), // RESOURCE_EXHAUSTED
      sdkError(5, 'Namespace default is not found.'), // NOT_FOUND
      sdkError(3, 'search attribute TcrPhase is not defined'), // the setup job did not run
      new Error('not a gRPC error'),
    ]) {
      const { post, metrics } = ingress(async () => {
        throw error;
      });
      const answer = await post(nextEvent);
      expect(answer.status, String(error.cause ?? error)).toBe(503);
      expect(metrics.snapshot().handoffFailures).toBe(1);
      expect(metrics.snapshot().deadLetters).toEqual({});
    }
  });
});

describe('permanentHandoffCode', () => {
  it('reads the status through the SDK wrappers and the native connection', () => {
    expect(permanentHandoffCode(sdkError(3, 'x'))).toBe('INVALID_ARGUMENT');
    expect(permanentHandoffCode(grpcError(11, 'x'))).toBe('OUT_OF_RANGE');
    expect(permanentHandoffCode(sdkError(14, 'x'))).toBeUndefined();
    expect(permanentHandoffCode(new WorkflowNotFoundError('gone', 'w', undefined))).toBeUndefined();
    expect(permanentHandoffCode(undefined)).toBeUndefined();
    // A cycle of causes ends.
    const a = new Error('a') as Error & { cause?: unknown };
    a.cause = a;
    expect(permanentHandoffCode(a)).toBeUndefined();
  });
});
