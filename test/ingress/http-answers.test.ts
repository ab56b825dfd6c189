import { createHmac } from 'node:crypto';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type IngressConfig, parseIngressConfig } from '../../src/ingress/config.js';
import { type RunningIngress, startIngress } from '../../src/ingress/server.js';
import { canonicalJson, signEvent } from '../../src/ingress/signature.js';
import { createIngressClient } from '../../src/ingress/temporal.js';

// Answers of the HTTP layer. The Temporal client points at a closed port: events with nothing to
// route by never touch it, and events that do must fail their hand-off.
const WEBHOOK_URL = 'https://csp.example/webhooks/registry';
const SECRET = 'current-secret-0123456789abcdefghijkl';
const OLD_SECRET = 'old-secret-0123456789abcdefghijklmnop';

function configWith(overrides: Partial<IngressConfig> = {}): IngressConfig {
  return {
    ...parseIngressConfig({
      TCR_WEBHOOK_URL: WEBHOOK_URL,
      TCR_WEBHOOK_SECRETS: `${OLD_SECRET},${SECRET}`,
      TCR_INGRESS_ACCOUNTS: 'acme',
      TCR_INGRESS_PORT: '0',
      TCR_INGRESS_INTERNAL_LISTEN: '127.0.0.1:0',
      TCR_INGRESS_BODY_LIMIT: '4096',
      TCR_INGRESS_HANDOFF_TIMEOUT_MS: '700',
    }),
    ...overrides,
  };
}

/** The ingress's own client, pointed where nothing listens: every hand-off fails, nothing else needs Temporal. */
const unreachableClient = () =>
  createIngressClient({ temporalAddress: '127.0.0.1:1', temporalNamespace: 'default' });

interface Post {
  body?: string;
  contentType?: string | null;
  signature?: string | null;
  headers?: Record<string, string>;
}

async function post(
  ingress: RunningIngress,
  p: Post,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const body = p.body ?? '{}';
  const headers: Record<string, string> = { ...(p.headers ?? {}) };
  if (p.contentType !== null) headers['content-type'] = p.contentType ?? 'application/json';
  if (p.signature !== null) {
    headers['x-registry-signature-256'] = p.signature ?? signEvent(SECRET, WEBHOOK_URL, JSON.parse(body));
  }
  const response = await fetch(ingress.endpoint, { method: 'POST', headers, body });
  const text = await response.text();
  return { status: response.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

describe('ingress answers', () => {
  let ingress: RunningIngress;
  beforeAll(async () => {
    ingress = await startIngress({
      config: configWith(),
      client: unreachableClient(),
      logger: pino({ level: 'silent' }),
    });
  });
  afterAll(async () => {
    await ingress?.close();
  });

  const noIds = (extra: Record<string, unknown> = {}) =>
    JSON.stringify({ eventType: 'SOMETHING_NEW', cspId: 'CSPLOCAL', description: 'no ids', ...extra });

  it('200 "ignored" for a signed, valid event with nothing to route by (unknown type)', async () => {
    const answer = await post(ingress, { body: noIds({ n: 1 }) });
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({ outcome: 'ignored' });
    expect(answer.json.deliveryId).toMatch(/^[0-9a-f]{64}$/);
  });

  it('200 "duplicate" for the same event again, even re-serialized differently', async () => {
    const first = await post(ingress, { body: '{"eventType":"DUP_TEST","cspId":"C1"}' });
    const again = await post(ingress, { body: '{ "cspId" : "C1", "eventType" : "DUP_TEST" }' });
    expect(first.json.outcome).toBe('ignored');
    expect(again.json).toMatchObject({ outcome: 'duplicate', deliveryId: first.json.deliveryId });
  });

  it('accepts application/json with any parameters, including malformed ones', async () => {
    for (const contentType of [
      'application/json; utf-8',
      'Application/JSON; charset=UTF-8',
      'application/json;',
      'application/json; charset="utf-8"; foo',
    ]) {
      const answer = await post(ingress, { body: noIds({ contentType }), contentType });
      expect(answer.status, contentType).toBe(200);
    }
  });

  it('accepts a hex digest and a digest made with the older secret during rotation', async () => {
    const body = noIds({ n: 'hex' });
    expect(
      (await post(ingress, { body, signature: signEvent(SECRET, WEBHOOK_URL, JSON.parse(body), 'hex') }))
        .status,
    ).toBe(200);
    const body2 = noIds({ n: 'old' });
    expect(
      (
        await post(ingress, {
          body: body2,
          signature: signEvent(OLD_SECRET, WEBHOOK_URL, JSON.parse(body2)),
        })
      ).status,
    ).toBe(200);
  });

  it('200 "invalid" for a signed body that is not an event (no eventType): acknowledged, recorded', async () => {
    const before = ingress.metrics.snapshot().rejected.invalid_event ?? 0;
    const answer = await post(ingress, { body: '{"brandId":"B1"}' });
    expect(answer.status).toBe(200);
    expect(answer.json.outcome).toBe('invalid');
    expect(ingress.metrics.snapshot().rejected.invalid_event).toBe(before + 1);
  });

  it('401 when the signature header is missing, even when only the SHA-1 header is sent', async () => {
    const body = noIds({ n: 'sha1' });
    const sha1 = createHmac('sha1', SECRET)
      .update(WEBHOOK_URL + canonicalJson(JSON.parse(body)))
      .digest('base64');
    const answer = await post(ingress, { body, signature: null, headers: { 'x-registry-signature': sha1 } });
    expect(answer.status).toBe(401);
    expect(answer.json.error).toBe('signature_missing');
  });

  it('401 for a wrong secret, a signature over another URL, and a tampered body', async () => {
    const body = noIds({ n: 'bad' });
    const parsed = JSON.parse(body);
    expect((await post(ingress, { body, signature: signEvent('unknown', WEBHOOK_URL, parsed) })).status).toBe(
      401,
    );
    const hostUrl = ingress.endpoint; // what a receiver rebuilding the URL from Host would use
    expect((await post(ingress, { body, signature: signEvent(SECRET, hostUrl, parsed) })).status).toBe(401);
    const tampered = body.replace('bad', 'evil');
    const answer = await post(ingress, { body: tampered, signature: signEvent(SECRET, WEBHOOK_URL, parsed) });
    expect(answer).toMatchObject({ status: 401, json: { error: 'signature_invalid' } });
  });

  it('400 for a body that is not JSON, 401 first when the header is missing or not a digest', async () => {
    const digest = 'A'.repeat(43); // shaped like a base64 SHA-256 digest
    const notJson = await post(ingress, { body: '{"eventType":', signature: digest });
    expect(notJson).toMatchObject({ status: 400, json: { error: 'not_json' } });
    expect((await post(ingress, { body: '{"eventType":', signature: null })).status).toBe(401);
    expect((await post(ingress, { body: '', signature: digest })).status).toBe(400);
  });

  it('401 "signature_malformed" before the body is parsed when the header is not a 32-byte digest', async () => {
    const parsedBefore = ingress.metrics.snapshot().rejected.not_json ?? 0;
    for (const signature of ['AAAA', 'sha256=abc', 'f'.repeat(63), 'A'.repeat(44), '*'.repeat(43)]) {
      const answer = await post(ingress, { body: '{"eventType":', signature });
      expect(answer, signature).toMatchObject({ status: 401, json: { error: 'signature_malformed' } });
    }
    // The not-JSON body was never looked at.
    expect(ingress.metrics.snapshot().rejected.not_json ?? 0).toBe(parsedBefore);
  });

  it('413 above the body limit', async () => {
    const body = noIds({ padding: 'x'.repeat(5000) });
    const answer = await post(ingress, { body });
    expect(answer.status).toBe(413);
    expect(ingress.metrics.snapshot().rejected.body_too_large).toBeGreaterThanOrEqual(1);
  });

  it('415 for another content type or none', async () => {
    expect((await post(ingress, { body: noIds(), contentType: 'text/plain' })).status).toBe(415);
    expect((await post(ingress, { body: noIds(), contentType: 'application/jsonx' })).status).toBe(415);
    expect((await post(ingress, { body: noIds(), contentType: null })).status).toBe(415);
  });

  it('closes the connection unanswered when the hand-off fails (a network error: retried without expiry)', async () => {
    const failuresBefore = ingress.metrics.snapshot().handoffFailures;
    await expect(
      post(ingress, { body: JSON.stringify({ eventType: 'CAMPAIGN_ADD', campaignReferenceId: 'c-1' }) }),
    ).rejects.toThrow(/fetch failed/);
    expect(ingress.metrics.snapshot().handoffFailures).toBe(failuresBefore + 1);
  });

  it('answers 503 instead with TCR_INGRESS_HANDOFF_FAILURE=503', async () => {
    const local = await startIngress({
      config: configWith({ handoffFailure: '503' }),
      client: unreachableClient(),
      logger: pino({ level: 'silent' }),
    });
    try {
      const answer = await post(local, {
        body: JSON.stringify({ eventType: 'CAMPAIGN_ADD', campaignReferenceId: 'c-1' }),
      });
      expect(answer).toMatchObject({ status: 503, json: { error: 'hand-off failed' } });
    } finally {
      await local.close();
    }
  });

  it('serves /healthz, /readyz and /metrics on the internal listener only', async () => {
    for (const path of ['/healthz', '/readyz', '/metrics']) {
      expect((await fetch(`${ingress.url}${path}`)).status, path).toBe(404);
    }
    expect(ingress.internalUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(ingress.internalUrl).not.toBe(ingress.url);
    expect((await fetch(`${ingress.internalUrl}/healthz`)).status).toBe(200);
    expect((await fetch(`${ingress.internalUrl}/readyz`)).status).toBe(503);
    const metrics = await fetch(`${ingress.internalUrl}/metrics`);
    expect(metrics.headers.get('content-type')).toContain('text/plain');
    const text = await metrics.text();
    expect(text).toMatch(/^tcr_ingress_events_received_total \d+$/m);
    expect(text).toMatch(/^tcr_ingress_events_rejected_total\{reason="signature_invalid"\} [1-9]\d*$/m);
    expect(text).toMatch(/^tcr_ingress_handoff_seconds_bucket\{le="\+Inf"\} \d+$/m);
    expect(text).not.toContain(SECRET);
    expect(text).toMatch(/^tcr_ingress_allow_list_enabled 0$/m);
    expect(text).toMatch(/^tcr_ingress_connections_open \d+$/m);
  });

  it('serves them on the webhook listener with TCR_INGRESS_INTERNAL_LISTEN=public, and nowhere with off', async () => {
    const pub = await startIngress({
      config: configWith({ internal: { mode: 'public' } }),
      client: unreachableClient(),
      logger: pino({ level: 'silent' }),
    });
    const off = await startIngress({
      config: configWith({ internal: { mode: 'off' } }),
      client: unreachableClient(),
      logger: pino({ level: 'silent' }),
    });
    try {
      expect(pub.internalUrl).toBe(pub.url);
      expect((await fetch(`${pub.url}/healthz`)).status).toBe(200);
      expect((await fetch(`${pub.url}/metrics`)).status).toBe(200);
      expect(off.internalUrl).toBeUndefined();
      expect((await fetch(`${off.url}/healthz`)).status).toBe(404);
    } finally {
      await Promise.all([pub.close(), off.close()]);
    }
  });

  it('never logs a secret or the body of a rejected request', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'debug' }, { write: (line: string) => lines.push(line) });
    const local = await startIngress({ config: configWith(), client: unreachableClient(), logger });
    try {
      await post(local, {
        body: noIds({ personal: 'Jane Doe' }),
        signature: signEvent('wrong', WEBHOOK_URL, {}),
      });
      await post(local, { body: noIds({ personal: 'Jane Doe' }) });
    } finally {
      await local.close();
    }
    const all = lines.join('\n');
    expect(all).toContain('signature_invalid');
    expect(all).not.toContain(SECRET);
    expect(all).not.toContain(OLD_SECRET);
    expect(all).not.toContain('Jane Doe');
  });
});

describe('source allow-list', () => {
  it('a bad signature from an allow-listed address is counted and logged as a misconfiguration', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(line) });
    const allowed = await startIngress({
      config: configWith({ allow: ['127.0.0.0/8'] }),
      client: unreachableClient(),
      logger,
    });
    try {
      const body = JSON.stringify({ eventType: 'X_MISCONFIGURED' });
      const wrongUrl = 'https://csp.example/webhooks/registr'; // one character off what is configured
      for (let i = 0; i < 3; i++) {
        const answer = await post(allowed, {
          body,
          signature: signEvent(SECRET, wrongUrl, JSON.parse(body)),
        });
        expect(answer.status).toBe(401);
      }
      expect(allowed.metrics.snapshot().signatureFailuresFromAllowed).toBe(3);
      expect(allowed.metrics.snapshot().allowListOn).toBe(true);
      const metrics = await (await fetch(`${allowed.internalUrl}/metrics`)).text();
      expect(metrics).toMatch(/^tcr_ingress_signature_failures_from_allowed_total 3$/m);
      expect(metrics).toMatch(/^tcr_ingress_allow_list_enabled 1$/m);
    } finally {
      await allowed.close();
    }
    // Logged loudly, once a minute at most, at error level.
    const warnings = lines.filter((l) => l.includes('MISCONFIGURATION'));
    expect(warnings).toHaveLength(1);
    expect(JSON.parse(warnings[0]!).level).toBe(50);
  });

  it('403 for a source outside the allow-list; forwarded addresses only through a trusted proxy', async () => {
    const logger = pino({ level: 'silent' });
    const body = JSON.stringify({ eventType: 'X_ALLOW' });
    const closedList = await startIngress({
      config: configWith({ allow: ['198.51.100.0/24'] }),
      client: unreachableClient(),
      logger,
    });
    try {
      // The test connects from 127.0.0.1, which is not allowed: closed on accept, before its headers
      // are read, so a forged X-Forwarded-For is never looked at (test/ingress/listener.test.ts).
      await expect(
        post(closedList, { body, headers: { 'x-forwarded-for': '198.51.100.1' } }),
      ).rejects.toThrow();
      expect(closedList.metrics.snapshot().connectionsDropped.forbidden_source).toBe(1);
    } finally {
      await closedList.close();
    }
    const behindProxy = await startIngress({
      config: configWith({ allow: ['198.51.100.0/24'], trustedProxies: ['127.0.0.1'] }),
      client: unreachableClient(),
      logger,
    });
    try {
      expect((await post(behindProxy, { body, headers: { 'x-forwarded-for': '198.51.100.1' } })).status).toBe(
        200,
      );
      expect((await post(behindProxy, { body, headers: { 'x-forwarded-for': '192.0.2.1' } })).status).toBe(
        403,
      );
      expect((await post(behindProxy, { body })).status).toBe(403);
    } finally {
      await behindProxy.close();
    }
  });
});
