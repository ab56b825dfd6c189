import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { parseIngressConfig } from '../../src/ingress/config.js';
import {
  canonicalJson,
  decodeDigest,
  deliveryIdOf,
  signatureMatches,
  signEvent,
} from '../../src/ingress/signature.js';
import { SourceAddressPolicy } from '../../src/ingress/source-addresses.js';
import { createIngressClient } from '../../src/ingress/temporal.js';
import { jcsVectors } from '../fixtures/ingress-jcs-vectors.js';
import { ingressConfigProblem } from './ingress-test-config.js';

describe('RFC 8785 canonicalization (json-canonicalize)', () => {
  it.each(jcsVectors.map((v) => [v.name, v] as const))('official vector %s', (_name, vector) => {
    expect(canonicalJson(JSON.parse(vector.input))).toBe(vector.output);
  });

  it('serializes large integers as IEEE doubles the way ECMAScript does', () => {
    expect(canonicalJson(JSON.parse('{"n":12345678901234567890}'))).toBe('{"n":12345678901234567000}');
    expect(canonicalJson(JSON.parse('[9007199254740993, 1e21, 1e-7, 100]'))).toBe(
      '[9007199254740992,1e+21,1e-7,100]',
    );
  });

  it('writes -0 as 0', () => {
    expect(canonicalJson(JSON.parse('{"z":-0,"y":-0.0}'))).toBe('{"y":0,"z":0}');
  });

  it('sorts unicode keys by UTF-16 code units, not code points or locale', () => {
    // U+1F602 is the surrogate pair D83D DE02, which sorts before U+FB33 by code unit though it is
    // after it by code point.
    const input = JSON.stringify({ '\ufb33': 1, '\ud83d\ude02': 2, '\u00e9': 3, e: 4, E: 5 });
    expect(canonicalJson(JSON.parse(input))).toBe('{"E":5,"e":4,"\u00e9":3,"\ud83d\ude02":2,"\ufb33":1}');
  });

  it('sorts nested objects at every depth and keeps array order', () => {
    const input = '{"b":{"d":[{"y":1,"x":2},3],"c":null},"a":"x"}';
    expect(canonicalJson(JSON.parse(input))).toBe('{"a":"x","b":{"c":null,"d":[{"x":2,"y":1},3]}}');
  });

  it('keeps unknown event properties, so a signature covers them', () => {
    const body = JSON.parse('{"eventType":"CAMPAIGN_ADD","futureField":{"b":1,"a":[true]}}');
    expect(canonicalJson(body)).toBe('{"eventType":"CAMPAIGN_ADD","futureField":{"a":[true],"b":1}}');
  });

  it('gives byte-different but equal bodies the same delivery id', () => {
    const a = canonicalJson(JSON.parse('{"eventType":"X", "brandId":"B1"}'));
    const b = canonicalJson(JSON.parse('{ "brandId" : "B1",\n"eventType":"X" }'));
    expect(deliveryIdOf(a)).toBe(deliveryIdOf(b));
    expect(deliveryIdOf(a)).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('signatures', () => {
  const url = 'https://csp.example/webhooks/registry';
  const body = {
    eventType: 'BRAND_IDENTITY_STATUS_UPDATE',
    brandId: 'B123ABC',
    brandIdentityStatus: 'VERIFIED',
  };
  const canonical = canonicalJson(body);
  const independent = (secret: string, enc: 'hex' | 'base64') =>
    createHmac('sha256', secret).update(`${url}${canonical}`).digest(enc);

  it('matches an HMAC computed independently over URL + canonical body', () => {
    expect(signEvent('s3cret', url, body)).toBe(independent('s3cret', 'base64'));
    expect(signEvent('s3cret', url, body, 'hex')).toBe(independent('s3cret', 'hex'));
  });

  it('accepts base64, unpadded and URL-safe base64, and hex of either case', () => {
    const b64 = independent('s3cret', 'base64');
    const hex = independent('s3cret', 'hex');
    for (const header of [
      b64,
      b64.replace(/=+$/, ''),
      b64.replace(/\+/g, '-').replace(/\//g, '_'),
      hex,
      hex.toUpperCase(),
    ]) {
      expect(signatureMatches(header, ['s3cret'], url, canonical), header).toBe(true);
    }
  });

  it('accepts any of several secrets (rotation) and refuses an unknown one', () => {
    const header = signEvent('new-secret', url, body);
    expect(signatureMatches(header, ['old-secret', 'new-secret'], url, canonical)).toBe(true);
    expect(signatureMatches(header, ['old-secret'], url, canonical)).toBe(false);
  });

  it('refuses a signature made for another URL or a tampered body', () => {
    expect(signatureMatches(signEvent('s', 'https://other.example/hook', body), ['s'], url, canonical)).toBe(
      false,
    );
    const tampered = canonicalJson({ ...body, brandIdentityStatus: 'UNVERIFIED' });
    expect(signatureMatches(signEvent('s', url, body), ['s'], url, tampered)).toBe(false);
  });

  it('refuses digests of the wrong length or shape, and the SHA-1 digest', () => {
    const sha1 = createHmac('sha1', 's').update(`${url}${canonical}`).digest('hex');
    expect(decodeDigest(sha1)).toBeUndefined();
    expect(decodeDigest('not a digest')).toBeUndefined();
    expect(decodeDigest('')).toBeUndefined();
    expect(signatureMatches(sha1, ['s'], url, canonical)).toBe(false);
  });
});

describe('parseIngressConfig', () => {
  const [a, b] = ['first-secret-0123456789abcdefghijklmn', 'second-secret-0123456789abcdefghijklm'];
  const minimal = {
    TCR_WEBHOOK_URL: 'https://csp.example/webhooks/registry',
    TCR_WEBHOOK_SECRETS: `${a}, ${b}`,
    TCR_INGRESS_ACCOUNTS: 'acme',
  };

  it('applies the defaults', () => {
    const config = parseIngressConfig(minimal);
    expect(config).toMatchObject({
      host: '127.0.0.1',
      port: 8470,
      path: '/webhooks/registry',
      webhookUrl: 'https://csp.example/webhooks/registry',
      secrets: [a, b],
      allow: [],
      trustedProxies: [],
      bodyLimit: 64 * 1024,
      temporalAddress: '127.0.0.1:7233',
      temporalNamespace: 'default',
      parkedRetentionMs: 30 * 24 * 3600_000,
    });
  });

  it('names the variable that is wrong and never echoes a secret', () => {
    const attempt = ingressConfigProblem;
    expect(attempt({ TCR_WEBHOOK_SECRETS: 'x' })).toContain('TCR_WEBHOOK_URL');
    expect(attempt({ ...minimal, TCR_WEBHOOK_SECRETS: ' , ' })).toContain('TCR_WEBHOOK_SECRETS');
    expect(attempt({ ...minimal, TCR_INGRESS_PORT: 'eighty' })).toContain('TCR_INGRESS_PORT');
    expect(attempt({ ...minimal, TCR_INGRESS_ALLOW: '10.0.0.0/33' })).toContain('TCR_INGRESS_ALLOW');
    expect(attempt({ ...minimal, TCR_INGRESS_BODY_LIMIT: '-1' })).toContain('TCR_INGRESS_BODY_LIMIT');
    const message = attempt({ ...minimal, TCR_WEBHOOK_SECRETS: 'topsecretvalue', TCR_INGRESS_PORT: 'x' });
    expect(message).not.toContain('topsecretvalue');
    const halfPair = attempt({
      ...minimal,
      TEMPORAL_TLS_CERT: '/certs/client.pem',
      TEMPORAL_API_KEY: 'k-secret',
    });
    expect(halfPair).toContain('TEMPORAL_TLS_KEY');
    expect(halfPair).not.toContain('k-secret');
  });

  it('reads the Temporal API key and TLS files as the worker does', () => {
    expect(parseIngressConfig(minimal).temporal).not.toHaveProperty('tls');
    const config = parseIngressConfig({ ...minimal, TEMPORAL_API_KEY: 'key', TEMPORAL_NAMESPACE: 'ns' });
    expect(config.temporal).toMatchObject({ apiKey: 'key', tls: true, namespace: 'ns' });
    expect(config.temporalNamespace).toBe('ns');
    // The files are read with the configuration: a missing one stops the start, naming the path.
    expect(() =>
      parseIngressConfig({
        ...minimal,
        TEMPORAL_TLS_CERT: '/certs/client.pem',
        TEMPORAL_TLS_KEY: '/certs/client.key',
      }),
    ).toThrow(/TEMPORAL_TLS_\* .*\/certs\/client\.(pem|key)/);
    expect(createIngressClient(config).options.namespace).toBe('ns');
  });
});

describe('source addresses', () => {
  it('allows everyone when no allow-list is set and ignores X-Forwarded-For by default', () => {
    const policy = new SourceAddressPolicy([], []);
    expect(policy.clientAddress('::ffff:203.0.113.9', '198.51.100.1')).toBe('203.0.113.9');
    expect(policy.allowed('203.0.113.9')).toBe(true);
  });

  it('checks CIDRs and single addresses, IPv4 and IPv6', () => {
    const policy = new SourceAddressPolicy(['198.51.100.0/24', '203.0.113.7', '2001:db8::/32'], []);
    expect(policy.allowed('198.51.100.200')).toBe(true);
    expect(policy.allowed('203.0.113.7')).toBe(true);
    expect(policy.allowed('203.0.113.8')).toBe(false);
    expect(policy.allowed('2001:db8::1')).toBe(true);
    expect(policy.allowed('2001:db9::1')).toBe(false);
  });

  it('believes X-Forwarded-For only from a trusted proxy, walking from the right', () => {
    const policy = new SourceAddressPolicy(['198.51.100.0/24'], ['10.0.0.0/8']);
    // From the proxy: the last untrusted hop is the client; a spoofed left-most entry is ignored.
    expect(policy.clientAddress('10.1.2.3', '1.2.3.4, 198.51.100.5, 10.9.9.9')).toBe('198.51.100.5');
    // Not from the proxy: the header is ignored.
    expect(policy.clientAddress('192.0.2.1', '198.51.100.5')).toBe('192.0.2.1');
  });
});
