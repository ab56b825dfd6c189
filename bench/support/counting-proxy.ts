/**
 * A counting reverse proxy between the workers and the simulator. The simulator keeps no log of the
 * API calls it answered (it logs webhooks and fees only), and the product must not change for a
 * benchmark, so every registry call is counted here, on the wire, for every worker process at once:
 * method, path, status (0 = the connection died, e.g. timeout-after-commit), start and end time.
 * A dropped upstream connection is passed on as a dropped downstream connection, so the client sees
 * exactly what it would see talking to the simulator directly. A caller that goes away (killed,
 * timed out) after its request was sent does not cancel the upstream call: like a real server, the
 * registry finishes (and commits) what it received; the call is recorded with `callerGone`.
 */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ProxiedCall {
  /** Order in which the proxy received the call (0, 1, ...). */
  seq: number;
  method: string;
  /** Path without the query string, e.g. /v2/brand/B000001. */
  path: string;
  query: string;
  status: number;
  startMs: number;
  endMs: number;
  /** The caller's connection closed before the answer reached it (the caller never learnt the status). */
  callerGone: boolean;
}

export interface CountingProxy {
  /** Base URL to hand to the workers instead of the simulator's (no /v2). */
  url: string;
  calls: ProxiedCall[];
  /** Calls received and not yet answered or dropped (status and end time not known yet). */
  inFlight(): Omit<ProxiedCall, 'status' | 'endMs' | 'callerGone'>[];
  close(): Promise<void>;
}

export function isWrite(call: Pick<ProxiedCall, 'method'>): boolean {
  return call.method !== 'GET' && call.method !== 'HEAD';
}

/** A page of the registry's brand or campaign list (the sweep's and the import's reads). */
export function isListRead(call: Pick<ProxiedCall, 'method' | 'path' | 'query'>): boolean {
  return (
    call.method === 'GET' &&
    (call.path === '/v2/brand' || call.path === '/v2/campaign') &&
    call.query.includes('page=')
  );
}

export async function startCountingProxy(targetUrl: string): Promise<CountingProxy> {
  const target = new URL(targetUrl);
  const calls: ProxiedCall[] = [];
  const open = new Map<number, Omit<ProxiedCall, 'status' | 'endMs' | 'callerGone'>>();
  let nextSeq = 0;
  const server: Server = createServer((req, res) => {
    const startMs = Date.now();
    const seq = nextSeq++;
    const [path = '', query = ''] = (req.url ?? '').split('?');
    const method = req.method ?? 'GET';
    open.set(seq, { seq, method, path, query, startMs });
    let callerGone = false;
    res.on('close', () => {
      if (!res.writableFinished) callerGone = true;
    });
    const record = (status: number) => {
      if (!open.delete(seq)) return;
      calls.push({ seq, method, path, query, status, startMs, endMs: Date.now(), callerGone });
    };
    const upstream = request(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: target.host },
      },
      (answer) => {
        record(answer.statusCode ?? 0);
        if (callerGone) {
          answer.resume();
          return;
        }
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
        answer.on('error', () => res.destroy());
      },
    );
    upstream.on('error', () => {
      record(0);
      res.destroy();
    });
    // A caller gone before its whole request arrived cancels the upstream call (no complete request).
    req.on('aborted', () => upstream.destroy());
    req.pipe(upstream);
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    inFlight: () => [...open.values()],
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
