/**
 * The ingress app without a socket or Temporal: `buildIngressApp` with a fake hand-off, driven by
 * `app.inject()`. What reaches the hand-off, what is answered for its outcome, its failure and a
 * closing ingress. (test/ingress/http-answers.test.ts keeps the listening ingress and its client.)
 */
import { Client } from '@temporalio/client';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { RegistryEventDelivery } from '../../src/contracts/signals.js';
import { buildIngressApp, type HandOff, RECENT_DELIVERY_MS } from '../../src/ingress/app.js';
import { type IngressConfig, parseIngressConfig } from '../../src/ingress/config.js';
import { IngressMetrics } from '../../src/ingress/metrics.js';
import { signEvent } from '../../src/ingress/signature.js';

const WEBHOOK_URL = 'https://csp.example/webhooks/registry';
const SECRET = 'current-secret-0123456789abcdefghijkl';

function config(overrides: Partial<IngressConfig> = {}): IngressConfig {
  return {
    ...parseIngressConfig({
      TCR_WEBHOOK_URL: WEBHOOK_URL,
      TCR_WEBHOOK_SECRETS: SECRET,
      TCR_INGRESS_ACCOUNTS: 'acme',
      TCR_INGRESS_INTERNAL_LISTEN: 'off',
    }),
    ...overrides,
  };
}

/** An ingress app whose hand-off is `handOff`; its client is lazy and never connects. */
function ingress(handOff: HandOff, overrides: Partial<IngressConfig> = {}, now?: () => number) {
  const metrics = new IngressMetrics();
  const cfg = config(overrides);
  const built = buildIngressApp({
    config: cfg,
    client: new Client(),
    logger: pino({ level: 'silent' }),
    metrics,
    handOff,
    ...(now ? { now } : {}),
  });
  const post = async (event: Record<string, unknown>) => {
    const response = await built.app.inject({
      method: 'POST',
      url: cfg.path,
      headers: {
        'content-type': 'application/json',
        'x-registry-signature-256': signEvent(SECRET, WEBHOOK_URL, event),
      },
      payload: JSON.stringify(event),
    });
    return { status: response.statusCode, json: response.json() as Record<string, unknown> };
  };
  return { ...built, metrics, post };
}

const brandEvent = {
  eventType: 'BRAND_IDENTITY_STATUS_UPDATE',
  brandId: 'B123ABC',
  brandReferenceId: 'acme-1',
};

describe('the ingress app, injected', () => {
  it('hands the verified event to the hand-off once, and answers its outcome', async () => {
    const handed: RegistryEventDelivery[] = [];
    const { app, post, metrics } = ingress(async (delivery) => {
      handed.push(delivery);
      return { action: 'signalled', kind: 'brand', via: 'reference', workflowId: 'brand/acme-1' };
    });
    const first = await post(brandEvent);
    expect(first).toMatchObject({ status: 200, json: { outcome: 'signalled', workflowId: 'brand/acme-1' } });
    expect(handed).toHaveLength(1);
    expect(handed[0]?.event).toEqual(brandEvent);
    expect(handed[0]?.deliveryId).toBe(first.json.deliveryId);

    const again = await post(brandEvent);
    expect(again).toMatchObject({
      status: 200,
      json: { outcome: 'duplicate', deliveryId: first.json.deliveryId },
    });
    expect(handed).toHaveLength(1);
    expect(metrics.snapshot().duplicates).toBe(1);
    await app.close();
  });

  it('answers an exact duplicate itself only for a short while: a later identical body reaches the owner workflow, which decides', async () => {
    let clock = Date.UTC(2026, 10, 1);
    const handed: RegistryEventDelivery[] = [];
    const { app, post } = ingress(
      async (delivery) => {
        handed.push(delivery);
        return { action: 'signalled', kind: 'campaign', via: 'reference', workflowId: 'campaign/c-1' };
      },
      {},
      () => clock,
    );
    const nudge = {
      eventType: 'CAMPAIGN_NUDGE',
      campaignId: 'C1',
      campaignReferenceId: 'c-1',
      nudgeIntent: 'FIX',
    };
    expect((await post(nudge)).json.outcome).toBe('signalled');
    clock += 594_000; // the registry's fourth retry after a lost answer
    expect((await post(nudge)).json.outcome).toBe('duplicate');
    clock += RECENT_DELIVERY_MS;
    // The same body later: perhaps a second nudge. Handed on; the workflow's own dedupe decides.
    expect((await post(nudge)).json.outcome).toBe('signalled');
    expect(handed).toHaveLength(2);
    expect(handed[0]?.deliveryId).toBe(handed[1]?.deliveryId);
    await app.close();
  });

  it('answers 503 when the hand-off fails (TCR_INGRESS_HANDOFF_FAILURE=503), and a retry is handed off again', async () => {
    let calls = 0;
    const { app, post, metrics } = ingress(
      async () => {
        calls += 1;
        if (calls === 1) throw new Error('Temporal unavailable');
        return { action: 'parked', kind: 'brand', via: 'reference', workflowId: 'parked/brand-ref/acme-1' };
      },
      { handoffFailure: '503' },
    );
    expect(await post(brandEvent)).toMatchObject({ status: 503, json: { error: 'hand-off failed' } });
    expect(metrics.snapshot().handoffFailures).toBe(1);
    expect(await post(brandEvent)).toMatchObject({ status: 200, json: { outcome: 'parked' } });
    expect(calls).toBe(2);
    await app.close();
  });

  it('answers a closing ingress like a failed hand-off, without handing off', async () => {
    let calls = 0;
    const { app, post, beginClosing } = ingress(
      async () => {
        calls += 1;
        return { action: 'ignored' };
      },
      { handoffFailure: '503' },
    );
    beginClosing();
    expect(await post(brandEvent)).toMatchObject({ status: 503, json: { error: 'closing' } });
    expect(calls).toBe(0);
    await app.close();
  });
});
