import { timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { SimContext, SimulatorAccount } from './context.js';
import { type ControlGuard, guardControlRequest } from './control.js';
import { ApiError, ErrorCode } from './errors.js';
import { errorReply, match, type Reply, type Route, readBody, send, sleep } from './http.js';
import type { RateLimiter } from './rate-limit.js';

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export function authenticate(accounts: SimulatorAccount[], header: string | undefined): SimulatorAccount {
  const unauthorized = new ApiError(
    401,
    [{ code: ErrorCode.UNAUTHORIZED, description: 'missing or wrong credentials', fields: [] }],
    { 'WWW-Authenticate': 'Basic realm="registry"' },
  );
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? '');
  if (!match) throw unauthorized;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) throw unauthorized;
  const key = decoded.slice(0, colon);
  const secret = decoded.slice(colon + 1);
  const account = accounts.find((a) => safeEqual(a.apiKey, key) && safeEqual(a.apiSecret, secret));
  if (!account) throw unauthorized;
  return account;
}

const internalError = (status: number): Reply => ({
  status,
  body: [{ code: ErrorCode.INTERNAL, description: 'internal system error (injected fault)', fields: [] }],
});

export function createHttpServer(
  ctx: SimContext,
  registry: Route<SimulatorAccount>[],
  control: Route<null>[],
  limiter: () => RateLimiter,
  guard: ControlGuard,
): Server {
  async function handleRegistry(
    req: IncomingMessage,
    res: ServerResponse,
    method: string,
    url: URL,
  ): Promise<void> {
    const path = url.pathname;
    const account = authenticate(ctx.accounts, req.headers.authorization);
    const { faults } = ctx;
    const burst = faults.takeHttp('rate-limit', method, path);
    if (burst) {
      throw new ApiError(
        429,
        [{ code: ErrorCode.RATE_LIMITED, description: 'too many requests (injected)', fields: [] }],
        {
          'Retry-After': String(burst.retryAfterSeconds),
        },
      );
    }
    // Counted on arrival (spec, "Limits"), before any latency fault holds the request: a slow
    // registry has still received it.
    const wait = limiter().check(account.cspId, method);
    if (wait > 0) {
      throw new ApiError(
        429,
        [{ code: ErrorCode.RATE_LIMITED, description: 'too many requests: rate limit exceeded', fields: [] }],
        {
          'Retry-After': String(wait),
        },
      );
    }
    const latency = faults.takeHttp('latency', method, path);
    if (latency) await sleep(latency.latencyMs);
    const body = method === 'GET' || method === 'DELETE' ? undefined : await readBody(req);
    const before = faults.takeHttp('error-before-commit', method, path);
    if (before) {
      send(res, internalError(before.status));
      return;
    }
    const found = match(registry, method, path);
    let reply: Reply;
    try {
      reply = await found.route.handler(
        { method, path, query: url.searchParams, params: found.params, body },
        account,
      );
    } catch (err) {
      reply = errorReply(err);
    }
    const after = faults.takeHttp('error-after-commit', method, path);
    if (after) reply = internalError(after.status);
    const timeout = faults.takeHttp('timeout-after-commit', method, path);
    if (timeout) {
      ctx.store.flush();
      setTimeout(() => req.socket.destroy(), timeout.delayMs).unref();
      return;
    }
    send(res, reply);
  }

  async function handleControl(
    req: IncomingMessage,
    res: ServerResponse,
    method: string,
    url: URL,
  ): Promise<void> {
    guardControlRequest(req, guard);
    const body = method === 'GET' || method === 'DELETE' ? undefined : await readBody(req);
    const found = match(control, method, url.pathname);
    send(
      res,
      await found.route.handler(
        { method, path: url.pathname, query: url.searchParams, params: found.params, body },
        null,
      ),
    );
  }

  return createServer((req, res) => {
    const method = (req.method ?? 'GET').toUpperCase();
    const url = new URL(req.url ?? '/', 'http://localhost');
    const handler = url.pathname.startsWith('/control/') ? handleControl : handleRegistry;
    handler(req, res, method, url).catch((err: unknown) => send(res, errorReply(err)));
  });
}
