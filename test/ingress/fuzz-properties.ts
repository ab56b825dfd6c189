/**
 * Property (fuzz) checks of the ingress's request handling, shared by the bounded run in `npm test`
 * (test/ingress/fuzz.test.ts) and the long run under bench/ (bench/ingress/fuzz.bench-run.ts).
 *
 * Requests are written as raw bytes on a socket, so header values and bodies can be anything the
 * network can carry (Node's HTTP client would refuse some of them). The Temporal client points at a
 * closed port: a fuzzed event never carries an id to route by, so none needs a hand-off.
 */
import net from 'node:net';
import fc from 'fast-check';
import { pino } from 'pino';
import { parseIngressConfig } from '../../src/ingress/config.js';
import { type RunningIngress, startIngress } from '../../src/ingress/server.js';
import { signEvent } from '../../src/ingress/signature.js';
import { createIngressClient } from '../../src/ingress/temporal.js';

export const WEBHOOK_URL = 'https://csp.example/webhooks/registry';
export const SECRET = 'fuzz-secret-0123456789abcdefghijklmno';
const BODY_LIMIT = 4096;

/** An ingress for fuzzing: a 4 KiB body limit (so limits are hit often), or the default 64 KiB. */
export async function startFuzzIngress(bodyLimit: number | 'default' = BODY_LIMIT): Promise<RunningIngress> {
  return startIngress({
    config: parseIngressConfig({
      TCR_WEBHOOK_URL: WEBHOOK_URL,
      TCR_WEBHOOK_SECRETS: SECRET,
      TCR_INGRESS_ACCOUNTS: 'acme',
      TCR_INGRESS_PORT: '0',
      TCR_INGRESS_INTERNAL_LISTEN: 'off',
      ...(bodyLimit === 'default' ? {} : { TCR_INGRESS_BODY_LIMIT: String(bodyLimit) }),
      TCR_INGRESS_HANDOFF_TIMEOUT_MS: '700',
      // Every fuzzed request comes from 127.0.0.1: the per-source limit would answer 429 long before
      // the properties are checked (tested by itself in test/ingress/listener.test.ts).
      TCR_INGRESS_RATE_LIMIT: '1000000',
      TCR_INGRESS_RATE_BURST: '1000000',
    }),
    client: createIngressClient({ temporalAddress: '127.0.0.1:1', temporalNamespace: 'default' }),
    logger: pino({ level: 'silent' }),
  });
}

export interface RawAnswer {
  /** HTTP status, or 0 when the connection closed without an answer. */
  status: number;
  body: string;
}

/** Writes one request as raw bytes (Connection: close) and reads the whole answer. */
export function rawPost(
  ingress: RunningIngress,
  headers: [string, string][],
  body: Buffer,
  path = '/webhooks/registry',
): Promise<RawAnswer> {
  const { hostname, port } = new URL(ingress.url);
  const head = [
    `POST ${path} HTTP/1.1`,
    `Host: ${hostname}:${port}`,
    'Connection: close',
    `Content-Length: ${body.length}`,
    ...headers.map(([name, value]) => `${name}: ${value}`),
    '',
    '',
  ].join('\r\n');
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = net.connect({ host: hostname, port: Number(port) }, () => {
      socket.write(Buffer.concat([Buffer.from(head, 'latin1'), body]));
    });
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => {});
    socket.on('close', () => {
      let text = Buffer.concat(chunks).toString('utf8');
      // Skip interim answers (100 Continue to an Expect header): the final one counts.
      while (/^HTTP\/1\.1 1\d\d /.test(text)) text = text.slice(text.indexOf('\r\n\r\n') + 4);
      const status = /^HTTP\/1\.1 (\d{3})/.exec(text)?.[1];
      resolve({ status: status ? Number(status) : 0, body: text.slice(text.indexOf('\r\n\r\n') + 4) });
    });
    socket.setTimeout(30_000, () => reject(new Error('no answer within 30 s')));
  });
}

/** Header values: anything but CR and LF (which would start another header or the body). */
const headerValue = fc.string({ unit: 'binary', maxLength: 80 }).map((s) => s.replace(/[\r\n]/g, ''));

const contentType = fc.oneof(
  fc.constant('application/json'),
  fc.constantFrom(
    'application/json; charset=utf-8',
    'APPLICATION/JSON',
    'application/json;;;=',
    'text/plain',
  ),
  fc.constantFrom(
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    'application/jsonx',
  ),
  headerValue.map((p) => `application/json; ${p}`),
  headerValue,
);

/** Signature headers: absent, random text, digests of the wrong size, and real digests of other data. */
const signature = (body: Buffer) =>
  fc.oneof(
    fc.constant(undefined),
    headerValue,
    fc.uint8Array({ minLength: 0, maxLength: 64 }).map((b) => Buffer.from(b).toString('base64')),
    fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => Buffer.from(b).toString('hex')),
    fc.jsonValue().map((v) => signEvent(SECRET, WEBHOOK_URL, v)),
    fc.constant(
      body
        .toString('latin1')
        .slice(0, 80)
        .replace(/[\r\n]/g, ''),
    ),
  );

const body = fc.oneof(
  fc.uint8Array({ maxLength: 512 }).map((b) => Buffer.from(b)),
  fc.jsonValue().map((v) => Buffer.from(JSON.stringify(v) ?? 'null')),
  fc.string({ unit: 'binary', maxLength: 256 }).map((s) => Buffer.from(s)),
  fc.constant(Buffer.alloc(BODY_LIMIT + 1, 0x20)),
  fc.nat({ max: 2000 }).map((n) => Buffer.from(`${'['.repeat(n)}${']'.repeat(n)}`)),
);

/** Extra headers with arbitrary names and values (valid tokens or not). */
const extraHeaders = fc.array(
  fc.tuple(
    fc.oneof(
      fc.constantFrom('x-registry-signature', 'x-forwarded-for', 'transfer-encoding', 'expect', 'x-a'),
      fc.stringMatching(/^[A-Za-z0-9-]{1,20}$/),
    ),
    headerValue,
  ),
  { maxLength: 4 },
);

/**
 * Arbitrary request → an answer always comes (the connection is never dropped unanswered), it is
 * one of 200 400 401 413 415 (never a 5xx), and 200 only for a body the secret signed.
 */
export function requestsProperty(ingress: RunningIngress) {
  return fc.asyncProperty(
    body.chain((b) => fc.tuple(fc.constant(b), contentType, signature(b), extraHeaders)),
    async ([payload, type, sig, extra]) => {
      const headers: [string, string][] = [['Content-Type', type]];
      if (sig !== undefined) headers.push(['X-Registry-Signature-256', sig]);
      // A Transfer-Encoding next to Content-Length is a smuggling attempt: Node refuses it (400).
      headers.push(...extra);
      const answer = await rawPost(ingress, headers, payload);
      // Node answers an Expect it does not know with 417, before the ingress sees the request.
      const expectsOther = extra.some(
        ([n, v]) => n.toLowerCase() === 'expect' && v.trim().toLowerCase() !== '100-continue',
      );
      if (![200, 400, 401, 413, 415, ...(expectsOther ? [417] : [])].includes(answer.status))
        throw new Error(`answered ${answer.status}: ${answer.body.slice(0, 200)}`);
      if (answer.status === 200) {
        let parsed: unknown;
        try {
          parsed = JSON.parse(payload.toString('utf8'));
        } catch {
          throw new Error('200 for a body that is not JSON');
        }
        if (sig !== signEvent(SECRET, WEBHOOK_URL, parsed))
          throw new Error(`200 for an unsigned body (${sig})`);
      }
    },
  );
}

/** Event keys that route nothing (no brand, campaign or vetting id). */
const key = fc.string({ minLength: 1, maxLength: 12 }).map((k) => `x${k}`);
const event = fc
  .tuple(fc.dictionary(key, fc.jsonValue({ maxDepth: 3 }), { maxKeys: 8 }), fc.string({ maxLength: 30 }))
  .map(([fields, eventType]) => ({ ...fields, eventType }));

/** Re-serializes with keys shuffled at every depth and random whitespace: the same canonical event. */
function reserialize(value: unknown, seed: number, space: number): string {
  let s = seed;
  const shuffle = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(shuffle);
    if (value === null || typeof value !== 'object') return value;
    const entries = Object.entries(value);
    for (let i = entries.length - 1; i > 0; i--) {
      s = (s * 1103515245 + 12345) & 0x7fffffff;
      const j = s % (i + 1);
      [entries[i], entries[j]] = [entries[j]!, entries[i]!];
    }
    const out: Record<string, unknown> = {};
    for (const [k, v] of entries) Object.defineProperty(out, k, { value: shuffle(v), enumerable: true });
    return out;
  };
  return JSON.stringify(shuffle(value), null, space);
}

/**
 * A signed event, however its keys are ordered and spaced, is acknowledged 200 (ignored: nothing to
 * route by, or duplicate when generated twice); the same body with its signature over another
 * event is refused 401.
 */
export function signedEventsProperty(ingress: RunningIngress) {
  return fc.asyncProperty(event, fc.nat(), fc.integer({ min: 0, max: 4 }), async (e, seed, space) => {
    const bodyText = reserialize(e, seed, space);
    const sig = signEvent(SECRET, WEBHOOK_URL, e);
    const headers: [string, string][] = [['Content-Type', 'application/json']];
    const ok = await rawPost(ingress, [...headers, ['X-Registry-Signature-256', sig]], Buffer.from(bodyText));
    if (ok.status !== 200) throw new Error(`signed event answered ${ok.status}: ${ok.body}`);
    const outcome = (JSON.parse(ok.body) as { outcome?: string }).outcome;
    if (outcome !== 'ignored' && outcome !== 'duplicate' && outcome !== 'invalid')
      throw new Error(`signed event without ids: outcome ${outcome}`);
    const other = signEvent(SECRET, WEBHOOK_URL, { ...e, eventType: `${e.eventType}!` });
    const bad = await rawPost(
      ingress,
      [...headers, ['X-Registry-Signature-256', other]],
      Buffer.from(bodyText),
    );
    if (bad.status !== 401) throw new Error(`event signed for another body answered ${bad.status}`);
  });
}
