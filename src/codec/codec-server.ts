/**
 * The codec server: Temporal's remote codec protocol over HTTP, so the Web UI and the `temporal` CLI
 * show encrypted payloads decoded for the people allowed to see them.
 *
 *   POST /encode, POST /decode   {"payloads":[{"metadata":{"encoding":"<base64>",…},"data":"<base64>"}]}
 *                                → the same shape, each payload encoded / decoded; an empty list
 *                                (`{}`, `{"payloads":[]}` or `null`, as proto3 JSON may write it) is
 *                                answered in kind
 *   GET  /healthz                {"status":"ok"} (no authentication, says nothing else)
 *
 * Every codec call needs a token: `Authorization: Bearer <token>` (the `temporal` CLI's --codec-auth,
 * or what an authenticating proxy in front of the Web UI forwards), or the token as a path prefix,
 * `/t/<token>/decode`, for a Web UI that cannot send a header (the dev server's --ui-codec-endpoint
 * takes a URL only). Without it: 401. Bodies over the limit: 413. Browsers may call it only from the
 * allowed origins (CORS; the Web UI's own origin). Nothing is logged that holds a token, a key or a
 * payload: there is no request log, only the `onError` callback for unexpected errors.
 *
 * `buildCodecServer` builds the app without listening (tests use `inject`); `startCodecServer` listens.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Payload } from '@temporalio/common';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { z } from 'zod';
import { EncryptionCodec, PayloadDecryptionError } from './encryption-codec.js';
import type { Keyring } from './keyring.js';

export interface CodecServerOptions {
  keyring: Keyring;
  /** Accepted tokens (several during a rotation of the token). At least one. Never logged. */
  tokens: readonly string[];
  /** Origins a browser may call from, e.g. `http://127.0.0.1:8233` (the Web UI). Empty: none. */
  allowedOrigins: readonly string[];
  /** Largest accepted request body in bytes (413 above); default 4 MiB. */
  bodyLimit?: number;
  /** Unexpected errors (never called with a token, a key or a payload). */
  onError?: (message: string) => void;
}

export const DEFAULT_CODEC_BODY_LIMIT = 4 * 1024 * 1024;

const base64 = z.string().regex(/^[A-Za-z0-9+/_-]*={0,2}$/, 'expected base64');

/** A payload as the protocol carries it: protobuf JSON, bytes in base64. */
const JsonPayloadSchema = z.object({
  metadata: z.record(z.string(), base64).optional(),
  data: base64.optional(),
});

/**
 * `{"payloads": [...]}`. proto3 JSON writes an empty repeated field by leaving it out (`{}`, what the
 * `temporal` CLI sends for a query without arguments) or as `[]` or `null`: all three are an empty list.
 */
export const CodecRequestSchema = z.object({ payloads: z.array(JsonPayloadSchema).nullish() });

type JsonPayload = z.infer<typeof JsonPayloadSchema>;

function fromJson(payload: JsonPayload): Payload {
  return {
    metadata: Object.fromEntries(
      Object.entries(payload.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64')]),
    ),
    data: Buffer.from(payload.data ?? '', 'base64'),
  };
}

function toJson(payload: Payload): JsonPayload {
  return {
    metadata: Object.fromEntries(
      Object.entries(payload.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v ?? []).toString('base64')]),
    ),
    data: Buffer.from(payload.data ?? []).toString('base64'),
  };
}

const digest = (value: string) => createHash('sha256').update(value).digest();

/** Compares the presented token with every accepted one in constant time (by their digests). */
function tokenMatcher(tokens: readonly string[]): (presented: string | undefined) => boolean {
  if (tokens.length === 0 || tokens.some((t) => t.length === 0))
    throw new Error('the codec server needs at least one non-empty token');
  const accepted = tokens.map(digest);
  return (presented) => {
    if (presented === undefined || presented === '') return false;
    const candidate = digest(presented);
    let ok = false;
    for (const a of accepted) ok = timingSafeEqual(a, candidate) || ok;
    return ok;
  };
}

const CORS_ALLOW_HEADERS = 'content-type, authorization, x-namespace';

export function buildCodecServer(options: CodecServerOptions): FastifyInstance {
  const codec = new EncryptionCodec(options.keyring);
  const tokenOk = tokenMatcher(options.tokens);
  const origins = new Set(options.allowedOrigins);
  const app = Fastify({
    logger: false,
    bodyLimit: options.bodyLimit ?? DEFAULT_CODEC_BODY_LIMIT,
  });

  // CORS: the Web UI's origin only. Preflights carry no credentials, so they are answered before
  // authentication; a browser at any other origin gets no CORS headers and a 403.
  app.addHook('onRequest', async (request, reply) => {
    const origin = request.headers.origin;
    if (origin === undefined) return;
    if (!origins.has(origin)) {
      return reply.code(403).send({ error: 'origin not allowed' });
    }
    reply.header('access-control-allow-origin', origin);
    reply.header('vary', 'Origin');
    reply.header('access-control-allow-credentials', 'true');
    if (request.method === 'OPTIONS') {
      return reply
        .code(204)
        .header('access-control-allow-methods', 'POST, OPTIONS')
        .header('access-control-allow-headers', CORS_ALLOW_HEADERS)
        .header('access-control-max-age', '600')
        .send();
    }
  });

  app.get('/healthz', async () => ({ status: 'ok' }));

  const bearer = (request: FastifyRequest): string | undefined => {
    const header = request.headers.authorization;
    if (typeof header !== 'string') return undefined;
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    return match?.[1];
  };

  const handle =
    (operation: 'encode' | 'decode', tokenInPath: boolean) =>
    async (request: FastifyRequest, reply: FastifyReply) => {
      const presented = tokenInPath ? (request.params as { token?: string }).token : bearer(request);
      if (!tokenOk(presented))
        return reply.code(401).header('www-authenticate', 'Bearer').send({ error: 'unauthorized' });
      const parsed = CodecRequestSchema.safeParse(request.body);
      if (!parsed.success) {
        const issues = parsed.error.issues.map(
          (i) => `${i.path.map(String).join('.') || '(root)'}: ${i.message}`,
        );
        return reply.code(400).send({ error: `invalid request: ${issues.join('; ')}` });
      }
      try {
        // An empty list is answered in the form it came in: `{"payloads": []}` for `[]`, `{}` otherwise.
        const given = parsed.data.payloads;
        if (!given || given.length === 0) return reply.send(given ? { payloads: [] } : {});
        const payloads = given.map(fromJson);
        const result = operation === 'encode' ? await codec.encode(payloads) : await codec.decode(payloads);
        return reply.send({ payloads: result.map(toJson) });
      } catch (error) {
        if (error instanceof PayloadDecryptionError) return reply.code(422).send({ error: error.message });
        throw error;
      }
    };

  // Bodies are parsed only after authentication (onRequest runs first): an unauthenticated
  // request is refused before its body is read.
  app.addHook('preParsing', async (request, reply) => {
    if (request.method !== 'POST') return;
    const tokenInPath = request.url.startsWith('/t/');
    const presented = tokenInPath ? request.url.split('/')[2] : bearer(request);
    if (!tokenOk(presented))
      return reply.code(401).header('www-authenticate', 'Bearer').send({ error: 'unauthorized' });
  });

  for (const operation of ['encode', 'decode'] as const) {
    app.post(`/${operation}`, handle(operation, false));
    app.post(`/t/:token/${operation}`, handle(operation, true));
  }

  // The token may be part of the path: no answer repeats the path.
  app.setNotFoundHandler((_request, reply) => reply.code(404).send({ error: 'not found' }));
  app.setErrorHandler((error: { statusCode?: number; message?: string }, _request, reply) => {
    const status = error.statusCode ?? 500;
    if (status === 413) return reply.code(413).send({ error: 'request body too large' });
    if (status >= 400 && status < 500) return reply.code(status).send({ error: 'bad request' });
    options.onError?.(`codec server error: ${error.message ?? 'unknown'}`);
    return reply.code(500).send({ error: 'internal error' });
  });
  return app;
}

export interface RunningCodecServer {
  /** e.g. http://127.0.0.1:8234 */
  url: string;
  port: number;
  close(): Promise<void>;
}

export async function startCodecServer(
  options: CodecServerOptions & { host?: string; port?: number },
): Promise<RunningCodecServer> {
  const app = buildCodecServer(options);
  const host = options.host ?? '127.0.0.1';
  await app.listen({ host, port: options.port ?? 0 });
  const address = app.server.address() as AddressInfo;
  const urlHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  let closed: Promise<void> | undefined;
  return {
    url: `http://${urlHost}:${address.port}`,
    port: address.port,
    close() {
      closed ??= app.close().then(() => undefined);
      return closed;
    },
  };
}
