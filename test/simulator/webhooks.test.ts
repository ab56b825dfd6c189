import { createHmac } from 'node:crypto';
import { canonicalize } from 'json-canonicalize';
import { afterEach, describe, expect, test } from 'vitest';
import { RegistryEventSchema } from '../../src/registry/events.js';
import { RETRY_SCHEDULE_SECONDS } from '../../src/simulator/index.js';
import {
  type Api,
  campaignBody,
  privateBrand,
  type ReceivedWebhook,
  startApi,
  startReceiver,
  until,
} from './helpers.js';

/**
 * The registry API spec's retry table for 4xx/5xx answers (spec/registry-api.md, "Delivery"), copied
 * as literals: [retry count, seconds to next retry, total seconds elapsed].
 */
const SPEC_RETRY_TABLE: [number, number, number][] = [
  [1, 61, 61],
  [2, 76, 137],
  [3, 141, 278],
  [4, 361, 594],
  [5, 685, 1279],
  [6, 1356, 2635],
  [7, 2461, 5096],
  [8, 4156, 9252],
  [9, 6621, 15873],
  [10, 10060, 25933],
  [11, 14701, 40574],
  [12, 20796, 61370],
  [13, 28621, 89991],
];

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(options: Parameters<typeof startApi>[0] = {}) {
  const api = await startApi(options);
  cleanups.push(() => api.close());
  return api;
}
async function receiver(respond?: Parameters<typeof startReceiver>[0]) {
  const r = await startReceiver(respond);
  cleanups.push(() => r.close());
  return r;
}
async function subscribe(
  api: Api,
  url: string,
  categories = ['BRAND', 'VETTING', 'CAMPAIGN', 'CAMPAIGN_SHARING'],
) {
  for (const eventCategory of categories) {
    const res = await api.call('PUT', '/webhook/subscription', { eventCategory, webhookEndpoint: url });
    expect(res.status).toBe(200);
  }
}

/** Independent verification: HMAC over the URL the receiver was called on + our own canonicalization. */
function verify(
  hook: ReceivedWebhook,
  url: string,
  secret: string,
  algorithm: 'sha256' | 'sha1',
  encoding: 'base64' | 'hex',
) {
  const message = url + canonicalize(JSON.parse(hook.raw));
  const expected = createHmac(algorithm, secret).update(message, 'utf8').digest(encoding);
  const header = hook.headers[algorithm === 'sha256' ? 'x-registry-signature-256' : 'x-registry-signature'];
  return header === expected;
}

describe('subscriptions', () => {
  test('PUT returns the secret; GET lists; DELETE removes; bad input refused', async () => {
    const api = await setup();
    const put = await api.call('PUT', '/webhook/subscription', {
      eventCategory: 'BRAND',
      webhookEndpoint: 'http://127.0.0.1:9/x',
    });
    expect(put.body).toMatchObject({
      eventCategory: 'BRAND',
      webhookEndpoint: 'http://127.0.0.1:9/x',
      webhookSecret: expect.any(String),
    });
    const again = await api.call('PUT', '/webhook/subscription', {
      eventCategory: 'BRAND',
      webhookEndpoint: 'http://127.0.0.1:9/y',
    });
    expect(again.body.webhookSecret).toBe(put.body.webhookSecret);
    expect((await api.call('GET', '/webhook/subscription')).body).toEqual([
      { eventCategory: 'BRAND', webhookEndpoint: 'http://127.0.0.1:9/y' },
    ]);
    expect(
      (await api.call('PUT', '/webhook/subscription', { eventCategory: 'NOPE', webhookEndpoint: 'http://x' }))
        .body[0].fields,
    ).toEqual(['eventCategory']);
    expect(
      (
        await api.call('PUT', '/webhook/subscription', {
          eventCategory: 'BRAND',
          webhookEndpoint: 'not a url',
        })
      ).status,
    ).toBe(400);
    expect((await api.call('DELETE', '/webhook/subscription/BRAND')).status).toBe(200);
    expect((await api.call('GET', '/webhook/subscription')).body).toEqual([]);
    expect((await api.call('DELETE', '/webhook/subscription/BRAND')).status).toBe(404);
  });

  test('events of an unsubscribed category are not queued', async () => {
    const api = await setup();
    const r = await receiver();
    await subscribe(api, r.url, ['CAMPAIGN']);
    await api.call('POST', '/brand/nonBlocking', privateBrand());
    const log = await api.control.deliveries();
    expect(log.map((d) => d.outcome)).toEqual(['NO_SUBSCRIPTION', 'NO_SUBSCRIPTION']);
    expect(r.received).toHaveLength(0);
  });
});

describe('signatures and bodies', () => {
  test('base64 HMAC-SHA256 and SHA-1 over URL + canonical JSON before 2027-03-07; flat spec bodies', async () => {
    const api = await setup({ now: () => new Date('2027-03-06T23:00:00.000Z') });
    const r = await receiver();
    await api.control.setWebhookSecret({ secret: 's3cr3t' });
    await subscribe(api, r.url);
    await api.call('POST', '/brand/nonBlocking', privateBrand({ referenceId: 'ref-9', mock: true }));
    await until(() => r.received.length >= 2 || undefined);
    for (const hook of r.received) {
      expect(hook.headers['content-type']).toBe('application/json');
      expect(verify(hook, r.url, 's3cr3t', 'sha256', 'base64')).toBe(true);
      expect(verify(hook, r.url, 's3cr3t', 'sha1', 'base64')).toBe(true);
      expect(verify(hook, r.url, 'other', 'sha256', 'base64')).toBe(false);
      expect(RegistryEventSchema.parse(hook.body)).toBeTruthy();
      expect(hook.body).toMatchObject({
        cspId: 'CSPLOCAL',
        brandReferenceId: 'ref-9',
        mock: true,
        brandId: expect.any(String),
      });
      expect(Object.entries(hook.body).filter(([, v]) => typeof v === 'object')).toEqual([]);
    }
    expect(r.received.map((h) => h.body.eventType)).toEqual(['BRAND_ADD', 'BRAND_IDENTITY_STATUS_UPDATE']);
    expect(r.received[1]!.body.brandIdentityStatus).toBe('VERIFIED');
  });

  test('hex digests when selected; only the SHA-256 header from 2027-03-07; no mock flag on real brands', async () => {
    const api = await setup({ now: () => new Date('2027-03-07T00:00:00.000Z') });
    const r = await receiver();
    await subscribe(api, r.url, ['BRAND']);
    await api.control.setWebhookSecret({
      cspId: 'CSPLOCAL',
      eventCategory: 'BRAND',
      secret: 'hexy',
      digestEncoding: 'hex',
    });
    await api.call('POST', '/brand/nonBlocking', privateBrand());
    await until(() => r.received.length >= 2 || undefined);
    const hook = r.received[0]!;
    expect(verify(hook, r.url, 'hexy', 'sha256', 'hex')).toBe(true);
    expect(hook.headers['x-registry-signature-256']).toMatch(/^[0-9a-f]{64}$/);
    expect(hook.headers['x-registry-signature']).toBeUndefined();
    expect(hook.body).not.toHaveProperty('mock');
    expect(hook.body).not.toHaveProperty('brandReferenceId');
  });
});

describe('delivery', () => {
  test('FIFO: the next event waits until the current one is accepted', async () => {
    const api = await setup({ timeScale: 50_000 });
    let failures = 0;
    const r = await receiver((hook) => (hook.body.eventType === 'BRAND_ADD' && failures++ < 3 ? 503 : 200));
    await subscribe(api, r.url, ['BRAND']);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++)
      ids.push(
        (await api.call('POST', '/brand/nonBlocking', privateBrand({ referenceId: `f${i}` }))).body.brandId,
      );
    await until(
      () => r.received.filter((h) => h.body.eventType !== 'BRAND_CONTACT_VERIFIED').length >= 9 || undefined,
    );
    const seq = r.received.map((h) => `${h.body.eventType}:${h.body.brandId}`);
    expect(seq.slice(0, 4)).toEqual(Array(4).fill(`BRAND_ADD:${ids[0]}`));
    const firstDeliveries = seq.filter((s, i) => seq.indexOf(s) === i);
    expect(firstDeliveries).toEqual(
      ids.flatMap((id) => [`BRAND_ADD:${id}`, `BRAND_IDENTITY_STATUS_UPDATE:${id}`]),
    );
  });

  test('the retry schedule is the spec table (registry-api.md, Delivery)', () => {
    expect(RETRY_SCHEDULE_SECONDS).toEqual(SPEC_RETRY_TABLE.map(([, seconds]) => seconds));
  });

  test('4xx/5xx retried on the 13-step schedule, then discarded; later events follow', async () => {
    const scale = 50_000;
    const api = await setup({ timeScale: scale });
    const r = await receiver((hook, i) => (hook.body.eventType === 'BRAND_ADD' ? (i % 2 ? 404 : 500) : 302));
    await subscribe(api, r.url, ['BRAND']);
    const posted = performance.now();
    await api.call('POST', '/brand/nonBlocking', privateBrand());
    const done = await api.control.waitForDelivery((d) => d.eventType === 'BRAND_IDENTITY_STATUS_UPDATE', {
      timeoutMs: 30_000,
    });
    expect(done.outcome).toBe('DELIVERED'); // 3xx counts as accepted
    const attempts = await api.control.deliveries({ eventType: 'BRAND_ADD' });
    expect(attempts).toHaveLength(14);
    expect(attempts.map((a) => a.outcome)).toEqual([...Array(13).fill('RETRY'), 'DISCARDED']);
    expect(attempts.map((a) => a.retryCount)).toEqual([...Array.from({ length: 13 }, (_, i) => i + 1), 13]);
    const first = Date.parse(attempts[0]!.at);
    for (const [i, [count, seconds, total]] of SPEC_RETRY_TABLE.entries()) {
      const a = attempts[i]!;
      expect(a.retryCount).toBe(count);
      // Simulated clock: the next attempt is scheduled exactly the table's seconds later...
      expect(Date.parse(a.nextAttemptAt!) - Date.parse(a.at)).toBe(seconds * 1000);
      // ...and made no earlier, so retry `count` is at least the table's total after the first attempt.
      expect(Date.parse(attempts[i + 1]!.at) - Date.parse(a.at)).toBeGreaterThanOrEqual(seconds * 1000);
      expect(Date.parse(attempts[i + 1]!.at) - first).toBeGreaterThanOrEqual(total * 1000);
    }
    // Real time under scaling: the last attempt is made at least the table's total (scaled) after the
    // first, which is made after the brand was posted; timers never fire early. Measured from the post,
    // not between receipts (a receipt delayed by load shortens the gap after it). No upper bound: a
    // loaded machine may stretch any real-time wait.
    const adds = r.received.filter((h) => h.body.eventType === 'BRAND_ADD');
    expect(adds).toHaveLength(14);
    const totalSeconds = SPEC_RETRY_TABLE.at(-1)![2];
    expect(adds[13]!.at - posted).toBeGreaterThanOrEqual((totalSeconds * 1000) / scale - 1);
    const status = r.received.find((h) => h.body.eventType === 'BRAND_IDENTITY_STATUS_UPDATE')!;
    expect(status.at).toBeGreaterThan(adds[13]!.at);
  });

  test('network errors and timeouts retry linearly without expiry; a new endpoint is used on the next attempt', async () => {
    const api = await setup({ timeScale: 50_000, webhookTimeoutMs: 150 });
    const hanging = await receiver(() => 'reset');
    await subscribe(api, hanging.url, ['BRAND']);
    await api.call('POST', '/brand/nonBlocking', privateBrand());
    await until(async () => ((await api.control.deliveries()).length >= 16 ? true : undefined), 10_000);
    const log = await api.control.deliveries();
    expect(log.length).toBeGreaterThanOrEqual(16);
    expect(log.filter((d) => !(d.outcome === 'NETWORK_RETRY' && d.retryCount === 0))).toEqual([]);
    for (const d of log) expect(Date.parse(d.nextAttemptAt!) - Date.parse(d.at)).toBe(60_000);
    const good = await receiver();
    await subscribe(api, good.url, ['BRAND']);
    await until(() => good.received.length >= 2 || undefined);
    expect(good.received.map((h) => h.body.eventType)).toEqual(['BRAND_ADD', 'BRAND_IDENTITY_STATUS_UPDATE']);
  });

  test('a receiver that does not answer in time counts as a timeout (network retry)', async () => {
    const api = await setup({ webhookTimeoutMs: 100 });
    // A TCP server that accepts connections and never answers.
    const { createServer } = await import('node:net');
    const sockets = new Set<import('node:net').Socket>();
    let connections = 0;
    const silent = createServer((socket) => {
      connections++;
      sockets.add(socket);
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    cleanups.push(
      () =>
        new Promise<void>((resolve) => {
          for (const socket of sockets) socket.destroy();
          silent.close(() => resolve());
        }),
    );
    const port = (silent.address() as { port: number }).port;
    await subscribe(api, `http://127.0.0.1:${port}/hook`, ['BRAND']);
    await api.call('POST', '/brand/nonBlocking', privateBrand());
    const entry = await api.control.waitForDelivery((d) => d.outcome === 'NETWORK_RETRY', {
      timeoutMs: 15_000,
    });
    expect(entry.error).toMatch(/timeout|abort/i);
    expect(connections).toBeGreaterThanOrEqual(1);
    expect(await api.control.deliveries()).toHaveLength(1); // the next attempt is 60 s away
  });
});

describe('webhook faults', () => {
  test('drop, duplicate and bad signature', async () => {
    const api = await setup({ timeScale: 50_000 });
    await api.control.setWebhookSecret({ secret: 'k' });
    const r = await receiver((hook) => (verify(hook, r.url, 'k', 'sha256', 'base64') ? 200 : 401));
    await subscribe(api, r.url, ['BRAND']);
    await api.control.addFault({ kind: 'webhook-drop', eventType: 'BRAND_ADD' });
    await api.control.addFault({ kind: 'webhook-duplicate', eventType: 'BRAND_IDENTITY_STATUS_UPDATE' });
    await api.call('POST', '/brand/nonBlocking', privateBrand());
    await until(() => r.received.length >= 2 || undefined);
    expect(r.received.map((h) => h.body.eventType)).toEqual([
      'BRAND_IDENTITY_STATUS_UPDATE',
      'BRAND_IDENTITY_STATUS_UPDATE',
    ]);
    expect(r.received[0]!.raw).toBe(r.received[1]!.raw);
    expect((await api.control.deliveries({ eventType: 'BRAND_ADD' }))[0]!.outcome).toBe('DROPPED');

    await api.control.addFault({ kind: 'webhook-bad-signature', eventType: 'BRAND_ADD' });
    await api.call('POST', '/brand/nonBlocking', privateBrand());
    await until(() => r.received.length >= 5 || undefined);
    const adds = r.received.filter((h) => h.body.eventType === 'BRAND_ADD');
    expect(adds.map((h) => verify(h, r.url, 'k', 'sha256', 'base64'))).toEqual([false, true]);
    const log = await api.control.deliveries({ eventType: 'BRAND_ADD' });
    expect(log.slice(1).map((d) => [d.outcome, d.status, d.badSignature])).toEqual([
      ['RETRY', 401, true],
      ['DELIVERED', 200, false],
    ]);
  });
  test('a webhook fault without an event type applies to the next event of any type', async () => {
    const api = await setup({ timeScale: 50_000 });
    const r = await receiver();
    await subscribe(api, r.url, ['BRAND']);
    await api.control.addFault({ kind: 'webhook-drop' });
    await api.call('POST', '/brand/nonBlocking', privateBrand());
    await until(() => r.received.length >= 1 || undefined);
    const log = await api.control.deliveries();
    expect(log[0]!.outcome).toBe('DROPPED');
    expect(r.received.map((h) => h.body.eventType)).not.toContain(log[0]!.eventType);
  });
});

describe('event types across a lifecycle', () => {
  test('every documented event type is emitted with the right ids', async () => {
    const api = await setup();
    const r = await receiver();
    await subscribe(api, r.url);
    const brand = (
      await api.call(
        'POST',
        '/brand/nonBlocking',
        privateBrand({
          entityType: 'PUBLIC_PROFIT',
          stockSymbol: 'A',
          stockExchange: 'NYSE',
          businessContactEmail: 'NOVERIFY@a.example',
          referenceId: 'b-ref',
        }),
      )
    ).body;
    await api.control.verifyContact(brand.brandId);
    const vet = (
      await api.call('POST', `/brand/${brand.brandId}/externalVetting`, {
        evpId: 'AEGIS',
        vettingClass: 'STANDARD',
      })
    ).body;
    await api.control.decideVet(vet.vettingId, { outcome: 'UNSCORE' });
    await api.control.decideVet(vet.vettingId, { outcome: 'ACTIVE', score: 80 });
    const failing = (
      await api.call('POST', `/brand/${brand.brandId}/externalVetting`, {
        evpId: 'WMC',
        vettingClass: 'ENHANCED',
      })
    ).body;
    await api.control.decideVet(failing.vettingId, { outcome: 'FAILED' });
    await api.control.expireVet(vet.vettingId);
    const { campaignId } = (
      await api.call('POST', '/campaignBuilder', campaignBody(brand.brandId, { referenceId: 'c-ref' }))
    ).body;
    await api.call('PUT', `/campaign/${campaignId}`, { description: 'Updated description of the campaign.' });
    await api.call('PUT', `/campaign/${campaignId}/sharing/BANDWIDTH`);
    await api.control.declineShare(campaignId, 'Incomplete samples');
    await api.call('PUT', `/campaign/${campaignId}/sharing/SINCH`);
    await api.control.acceptShare(campaignId);
    await api.control.suspendCampaign(campaignId, 10017);
    await api.control.nudgeCampaign(campaignId, 'APPEAL_REJECTION', 'Please review');
    await api.control.expireCampaign(campaignId);
    const expected = [
      'BRAND_ADD',
      'BRAND_IDENTITY_STATUS_UPDATE',
      'BRAND_CONTACT_VERIFIED',
      'EVP_REPORT_UNSCORE',
      'EVP_REPORT_SCORE',
      'BRAND_IDENTITY_STATUS_UPDATE',
      'EVP_REPORT_FAILED',
      'EVP_REPORT_EXPIRED',
      'BRAND_IDENTITY_STATUS_UPDATE',
      'CAMPAIGN_ADD',
      'CAMPAIGN_UPDATE',
      'CAMPAIGN_SHARE_ADD',
      'CAMPAIGN_SHARE_DELETE',
      'CAMPAIGN_SHARE_ADD',
      'CAMPAIGN_SHARE_ACCEPT',
      'CAMPAIGN_DCA_COMPLETE',
      'MNO_CAMPAIGN_OPERATION_SUSPENDED',
      'CAMPAIGN_NUDGE',
      'CAMPAIGN_EXPIRED',
    ];
    await until(() => r.received.length >= expected.length || undefined);
    expect(r.received.map((h) => h.body.eventType)).toEqual(expected);
    const byType = (t: string) => r.received.find((h) => h.body.eventType === t)!.body;
    expect(byType('EVP_REPORT_SCORE')).toMatchObject({
      evpId: 'AEGIS',
      evpName: 'Aegis Mobile',
      vettingId: vet.vettingId,
      brandReferenceId: 'b-ref',
    });
    expect(byType('CAMPAIGN_ADD')).toMatchObject({
      campaignId,
      campaignReferenceId: 'c-ref',
      brandReferenceId: 'b-ref',
    });
    expect(byType('CAMPAIGN_SHARE_DELETE')).toMatchObject({
      cnpId: 'BANDWIDTH',
      description: 'Incomplete samples',
    });
    expect(byType('CAMPAIGN_DCA_COMPLETE')).toMatchObject({ dcaId: 'SINCH', dcaName: 'Sinch' });
    expect(byType('MNO_CAMPAIGN_OPERATION_SUSPENDED')).toMatchObject({ mnoId: 10017, mnoName: 'AT&T' });
    expect(byType('CAMPAIGN_NUDGE')).toMatchObject({ nudgeIntent: 'APPEAL_REJECTION' });
    for (const h of r.received) expect(RegistryEventSchema.safeParse(h.body).success).toBe(true);
  });
});
