/** A stand-in for an OpenTelemetry collector on loopback: it keeps every request it is sent and answers 200. */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface CollectorRequest {
  method: string;
  path: string;
  contentType: string;
  /** The body as text: OTLP's JSON, or its protobuf, whose strings are readable as they are. */
  body: string;
}

export interface Collector {
  /** Base URL, for OTEL_EXPORTER_OTLP_ENDPOINT. */
  url: string;
  received: CollectorRequest[];
  /** Every body posted to /v1/traces so far, joined. */
  traces(): string;
  close(): Promise<void>;
}

export async function startCollector(): Promise<Collector> {
  const received: CollectorRequest[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({
        method: req.method ?? '',
        path: req.url ?? '',
        contentType: String(req.headers['content-type']),
        body: Buffer.concat(chunks).toString('utf8'),
      });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    traces: () =>
      received
        .filter((r) => r.path === '/v1/traces')
        .map((r) => r.body)
        .join('\n'),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
