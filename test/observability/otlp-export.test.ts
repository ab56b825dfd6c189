/**
 * Traces leave the process as configured: `startTracing` with an OTLP endpoint (what the worker and
 * the ingress do when OTEL_EXPORTER_OTLP_ENDPOINT is set) posts its spans to the collector's
 * /v1/traces, with the service name, when it is flushed or shut down. A collector stand-in on loopback.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { trace } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { loadTracingConfig } from '../../src/config/tracing-config.js';
import { startTracing } from '../../src/observability/tracing.js';

interface Received {
  method: string;
  path: string;
  contentType: string;
  body: string;
}

describe('OTLP export', () => {
  it('posts spans to the configured collector, with the service name', async () => {
    const received: Received[] = [];
    const collector = createServer((req: IncomingMessage, res) => {
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
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = collector.address() as AddressInfo;
      const problems: string[] = [];
      const config = loadTracingConfig(
        { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`, OTEL_SERVICE_NAME: 'tcr-worker-test' },
        problems,
        'tcr-worker',
      );
      expect(problems).toEqual([]);
      const tracing = startTracing({ config: config! });
      const span = trace.getTracer('tcr-test').startSpan('registry GET /brand/{id}');
      span.setAttribute('tcr.account', 'acme');
      span.end();
      await tracing.shutdown();

      expect(received.length).toBeGreaterThan(0);
      const post = received.find((r) => r.path === '/v1/traces')!;
      expect(post.method).toBe('POST');
      expect(post.contentType).toMatch(/application\/(json|x-protobuf)/);
      expect(post.body).toContain('registry GET /brand/{id}');
      expect(post.body).toContain('tcr-worker-test');
      expect(post.body).toContain('acme');
    } finally {
      collector.close();
    }
  });
});
