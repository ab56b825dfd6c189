/**
 * Traces leave the process as configured: `startTracing` with an OTLP endpoint (what the worker and
 * the ingress do when OTEL_EXPORTER_OTLP_ENDPOINT is set) posts its spans to the collector's
 * /v1/traces, with the service name, when it is flushed or shut down. A collector stand-in on loopback.
 */
import { trace } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { loadTracingConfig } from '../../src/config/tracing-config.js';
import { startTracing } from '../../src/observability/tracing.js';
import { startCollector } from '../support/otlp-collector.js';

describe('OTLP export', () => {
  it('posts spans to the configured collector, with the service name', async () => {
    const collector = await startCollector();
    try {
      const problems: string[] = [];
      const config = loadTracingConfig(
        { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_SERVICE_NAME: 'tcr-worker-test' },
        problems,
        'tcr-worker',
      );
      expect(problems).toEqual([]);
      const tracing = startTracing({ config: config! });
      const span = trace.getTracer('tcr-test').startSpan('registry GET /brand/{id}');
      span.setAttribute('tcr.account', 'acme');
      span.end();
      await tracing.shutdown();

      expect(collector.received.length).toBeGreaterThan(0);
      const post = collector.received.find((r) => r.path === '/v1/traces')!;
      expect(post.method).toBe('POST');
      expect(post.contentType).toMatch(/application\/(json|x-protobuf)/);
      expect(post.body).toContain('registry GET /brand/{id}');
      expect(post.body).toContain('tcr-worker-test');
      expect(post.body).toContain('acme');
    } finally {
      await collector.close();
    }
  });
});
