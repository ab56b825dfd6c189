import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { afterAll, describe, expect, it } from 'vitest';
import { buildCodecServer, EncryptionCodec, Keyring, parseCodecServerConfig } from '../../src/codec/index.js';

const keyring = Keyring.generate('k1');
const token = 'codec-token-0123456789abcdef';
const uiOrigin = 'http://127.0.0.1:8233';
const app = buildCodecServer({ keyring, tokens: [token], allowedOrigins: [uiOrigin], bodyLimit: 64 * 1024 });
afterAll(() => app.close());

const json = (p: Payload) => ({
  metadata: Object.fromEntries(
    Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v!).toString('base64')]),
  ),
  data: Buffer.from(p.data ?? []).toString('base64'),
});
const fromJson = (p: { metadata: Record<string, string>; data: string }): Payload => ({
  metadata: Object.fromEntries(Object.entries(p.metadata).map(([k, v]) => [k, Buffer.from(v, 'base64')])),
  data: Buffer.from(p.data, 'base64'),
});

const value = { ein: '987654321', phone: '+14155550100', firstName: 'Hank' };

describe('the codec server', () => {
  it('decodes what the product encrypted, for a bearer token or the token in the path', async () => {
    const [encrypted] = await new EncryptionCodec(keyring).encode([defaultPayloadConverter.toPayload(value)]);
    for (const [url, headers] of [
      ['/decode', { authorization: `Bearer ${token}` }],
      [`/t/${token}/decode`, {}],
    ] as const) {
      const res = await app.inject({
        method: 'POST',
        url,
        headers: { ...headers, 'x-namespace': 'default' },
        payload: { payloads: [json(encrypted!)] },
      });
      expect(res.statusCode).toBe(200);
      const [decoded] = res.json().payloads;
      expect(defaultPayloadConverter.fromPayload(fromJson(decoded))).toEqual(value);
    }
  });

  it('encodes so the product decodes it', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/encode',
      headers: { authorization: `Bearer ${token}` },
      payload: { payloads: [json(defaultPayloadConverter.toPayload(value))] },
    });
    expect(res.statusCode).toBe(200);
    expect(res.body).not.toContain(Buffer.from(JSON.stringify(value)).toString('base64').slice(0, 12));
    const [decoded] = await new EncryptionCodec(keyring).decode([fromJson(res.json().payloads[0])]);
    expect(defaultPayloadConverter.fromPayload(decoded!)).toEqual(value);
  });

  it('refuses a request without the token, or with a wrong one (401), before reading its body', async () => {
    for (const [url, headers] of [
      ['/decode', {}],
      ['/decode', { authorization: 'Bearer wrong-token-0123456789' }],
      ['/decode', { authorization: token }],
      ['/t/wrong-token-0123456789/decode', {}],
      ['/encode', {}],
    ] as const) {
      const res = await app.inject({ method: 'POST', url, headers, payload: { payloads: [] } });
      expect(res.statusCode, url).toBe(401);
      expect(res.body).not.toContain(token);
    }
    // An oversized body without a token is refused for the token, not read.
    const big = await app.inject({
      method: 'POST',
      url: '/decode',
      payload: { payloads: [], pad: 'x'.repeat(100_000) },
    });
    expect(big.statusCode).toBe(401);
  });

  it('refuses bodies over its limit (413) and malformed requests (400, naming the field)', async () => {
    const big = await app.inject({
      method: 'POST',
      url: '/decode',
      headers: { authorization: `Bearer ${token}` },
      payload: { payloads: [{ data: 'A'.repeat(100_000) }] },
    });
    expect(big.statusCode).toBe(413);
    const bad = await app.inject({
      method: 'POST',
      url: '/decode',
      headers: { authorization: `Bearer ${token}` },
      payload: { payloads: [{ data: '***' }] },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toMatch(/payloads\.0\.data: expected base64/);
  });

  it('answers an empty payload list in the form it came in: {}, {"payloads": []}, null', async () => {
    // proto3 JSON leaves an empty repeated field out: the temporal CLI's `workflow query` and
    // `workflow metadata` send {} (issue 34).
    for (const url of ['/decode', '/encode', `/t/${token}/decode`]) {
      for (const [body, answer] of [
        [{}, {}],
        [{ payloads: [] }, { payloads: [] }],
        [{ payloads: null }, {}],
      ] as const) {
        const res = await app.inject({
          method: 'POST',
          url,
          headers: url.startsWith('/t/') ? {} : { authorization: `Bearer ${token}` },
          payload: body,
        });
        expect(res.statusCode, `${url} ${JSON.stringify(body)}: ${res.body}`).toBe(200);
        expect(res.json()).toEqual(answer);
      }
    }
    const notAnObject = await app.inject({
      method: 'POST',
      url: '/decode',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      payload: '[]',
    });
    expect(notAnObject.statusCode).toBe(400);
  });

  it('answers a payload of an unknown key with 422 naming the key id', async () => {
    const [foreign] = await new EncryptionCodec(Keyring.generate('k-other')).encode([
      defaultPayloadConverter.toPayload(value),
    ]);
    const res = await app.inject({
      method: 'POST',
      url: '/decode',
      headers: { authorization: `Bearer ${token}` },
      payload: { payloads: [json(foreign!)] },
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().error).toMatch(/key 'k-other'/);
  });

  it("answers CORS preflights for the Web UI's origin only", async () => {
    const preflight = await app.inject({
      method: 'OPTIONS',
      url: `/t/${token}/decode`,
      headers: {
        origin: uiOrigin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type,x-namespace',
      },
    });
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe(uiOrigin);
    expect(String(preflight.headers['access-control-allow-headers'])).toContain('x-namespace');
    const other = await app.inject({
      method: 'OPTIONS',
      url: '/decode',
      headers: { origin: 'http://evil.example', 'access-control-request-method': 'POST' },
    });
    expect(other.statusCode).toBe(403);
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
    const post = await app.inject({
      method: 'POST',
      url: '/decode',
      headers: { origin: uiOrigin, authorization: `Bearer ${token}` },
      payload: { payloads: [] },
    });
    expect(post.statusCode).toBe(200);
    expect(post.headers['access-control-allow-origin']).toBe(uiOrigin);
  });

  it('serves a health check without authentication, and nothing else without it', async () => {
    const res = await app.inject({ method: 'GET', url: '/healthz' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ok' });
    const unknown = await app.inject({ method: 'GET', url: `/t/${token}/nothing` });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.body).not.toContain(token);
  });
});

describe('the codec server configuration', () => {
  const keys = JSON.stringify(keyring.toFile());
  it('reads keys, tokens, origins and limits from the environment', () => {
    const config = parseCodecServerConfig({
      TCR_PAYLOAD_KEYS: keys,
      TCR_CODEC_SERVER_TOKENS: `${token}, another-token-0123456789`,
      TCR_CODEC_SERVER_ALLOWED_ORIGINS: 'http://127.0.0.1:8233,https://temporal-ui.example.com',
      TCR_CODEC_SERVER_PORT: '9000',
    });
    expect(config.tokens).toEqual([token, 'another-token-0123456789']);
    expect(config.allowedOrigins).toEqual(['http://127.0.0.1:8233', 'https://temporal-ui.example.com']);
    expect(config.port).toBe(9000);
    expect(config.host).toBe('127.0.0.1');
    expect(config.keyring.currentId).toBe('k1');
  });

  it('refuses to start without keys or a token, or with a weak token, naming the variable', () => {
    expect(() => parseCodecServerConfig({ TCR_CODEC_SERVER_TOKENS: token })).toThrow(
      /TCR_PAYLOAD_KEYS_FILE or TCR_PAYLOAD_KEYS: required/,
    );
    expect(() => parseCodecServerConfig({ TCR_PAYLOAD_KEYS: keys })).toThrow(/TCR_CODEC_SERVER_TOKENS/);
    expect(() =>
      parseCodecServerConfig({ TCR_PAYLOAD_KEYS: keys, TCR_CODEC_SERVER_TOKENS: 'short' }),
    ).toThrow(/at least 16 characters/);
    expect(() =>
      parseCodecServerConfig({
        TCR_PAYLOAD_KEYS: keys,
        TCR_CODEC_SERVER_TOKENS: token,
        TCR_CODEC_SERVER_PORT: 'x',
      }),
    ).toThrow(/TCR_CODEC_SERVER_PORT/);
    expect(() =>
      parseCodecServerConfig({
        TCR_PAYLOAD_KEYS: keys,
        TCR_CODEC_SERVER_TOKENS: token,
        TCR_CODEC_SERVER_ALLOWED_ORIGINS: 'not an origin',
      }),
    ).toThrow(/TCR_CODEC_SERVER_ALLOWED_ORIGINS/);
  });
});
