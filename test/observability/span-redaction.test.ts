/**
 * Spans leave the process without error text (issue 35, item 5): the SDK's OTel interceptors set an
 * activity's failure message as the span's status message and record the exception (message and stack)
 * as an event. A registry error that repeats an EIN must not reach the collector: the exported span
 * keeps the error's type and the status code, never its message or stack.
 */
import { SpanStatusCode, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTracing, type Tracing } from '../../src/observability/tracing.js';

const EIN = '12-3456789';
const exporter = new InMemorySpanExporter();
let tracing: Tracing;

beforeAll(() => {
  tracing = startTracing({
    serviceName: 'tcr-redaction-test',
    spanProcessor: new SimpleSpanProcessor(exporter),
  });
});
afterAll(async () => {
  await tracing?.shutdown();
});

class RegistryRejectedError extends Error {
  override name = 'RegistryRejectedError';
}

describe('exported spans', () => {
  it('carry the error type and status code, not the message or stack (an EIN in the registry text)', async () => {
    const tracer = trace.getTracer('redaction-test');
    const err = new RegistryRejectedError(`brand rejected: EIN ${EIN} does not match ops@acme.example`);
    // What @temporalio/interceptors-opentelemetry does with a failed activity.
    tracer.startActiveSpan('RunActivity:createBrand', (span) => {
      span.setStatus({ code: SpanStatusCode.ERROR, message: err.message });
      span.recordException(err);
      span.recordException(`plain string ${EIN}`);
      span.addEvent('exception', { 'exception.message': `again ${EIN}`, 'exception.type': 'Other' });
      span.setAttribute('error.type', 'RegistryRejectedError');
      span.end();
    });
    await tracing.flush();
    const [span] = exporter.getFinishedSpans();
    expect(span).toBeDefined();
    const text = JSON.stringify({
      name: span?.name,
      attributes: span?.attributes,
      status: span?.status,
      events: span?.events,
      links: span?.links,
    });
    expect(text).not.toContain(EIN);
    expect(text).not.toContain('ops@acme.example');
    expect(text).not.toContain('at '); // no stack frames
    expect(span?.status.code).toBe(SpanStatusCode.ERROR);
    expect(span?.attributes['error.type']).toBe('RegistryRejectedError');
    const types = span?.events.map((e) => e.attributes?.['exception.type']);
    expect(types).toContain('RegistryRejectedError');
    for (const event of span?.events ?? []) {
      expect(event.attributes?.['exception.message']).toBeUndefined();
      expect(event.attributes?.['exception.stacktrace']).toBeUndefined();
    }
  });
});
