import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError, ErrorCode } from './errors.js';

export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface Request {
  method: string;
  path: string;
  query: URLSearchParams;
  params: string[];
  body: unknown;
}

export type Handler<A> = (req: Request, auth: A) => Reply | Promise<Reply>;

export interface Route<A> {
  method: string;
  pattern: RegExp;
  handler: Handler<A>;
}

/** `/brand/:id/revet` → anchored regex with one capture group per `:param`. */
export function route<A>(method: string, path: string, handler: Handler<A>): Route<A> {
  const source = path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:[A-Za-z]+/g, '([^/]+)');
  return { method, pattern: new RegExp(`^${source}$`), handler };
}

export function match<A>(
  routes: Route<A>[],
  method: string,
  path: string,
): { route: Route<A>; params: string[] } {
  let pathMatched = false;
  for (const r of routes) {
    const m = r.pattern.exec(path);
    if (!m) continue;
    pathMatched = true;
    if (r.method === method) return { route: r, params: m.slice(1).map((p) => decodeURIComponent(p)) };
  }
  throw new ApiError(pathMatched ? 405 : 404, [
    {
      code: ErrorCode.UNKNOWN_ROUTE,
      description: pathMatched
        ? `method ${method} not allowed on ${path}`
        : `no such endpoint: ${method} ${path}`,
      fields: [],
    },
  ]);
}

const MAX_BODY = 1_000_000;

export async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY)
      throw new ApiError(413, [
        { code: ErrorCode.VALIDATION, description: 'request body too large', fields: [] },
      ]);
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8').trim();
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiError(400, [
      { code: ErrorCode.MALFORMED_JSON, description: 'request body is not valid JSON', fields: [] },
    ]);
  }
}

export function send(res: ServerResponse, reply: Reply): void {
  if (res.destroyed || res.headersSent) return;
  const headers: Record<string, string> = { ...reply.headers };
  if (reply.status === 204 || reply.body === undefined) {
    res.writeHead(reply.status, headers);
    res.end();
    return;
  }
  const payload = JSON.stringify(reply.body);
  headers['content-type'] = 'application/json';
  headers['content-length'] = String(Buffer.byteLength(payload));
  res.writeHead(reply.status, headers);
  res.end(payload);
}

export function errorReply(err: unknown): Reply {
  if (err instanceof ApiError) return { status: err.status, body: err.items, headers: err.headers };
  console.error('simulator: internal error', err);
  return {
    status: 500,
    body: [{ code: ErrorCode.INTERNAL, description: 'internal system error', fields: [] }],
  };
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
