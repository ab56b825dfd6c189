/**
 * `tcr ingress` as its own process (the build in dist/, which `npm test` makes first): its log lines
 * reach stdout through a buffer, within about a second, and whatever is buffered when it is told to
 * stop is written before it exits. With an OTLP endpoint it exports its spans, flushed on exit too.
 */
import { expect, it } from 'vitest';
import { sendSignedEvent } from '../../bench/support/webhooks.js';
import { startIngressProcess } from '../support/ingress-process.js';
import { startCollector } from '../support/otlp-collector.js';

const WEBHOOK_URL = 'https://csp.example/webhooks/registry';
const SECRET = 'process-secret-0123456789abcdefghijklm';

it('writes each event to the log within a second and flushes the rest on SIGTERM', async () => {
  const { child, url, stdout } = await startIngressProcess({
    captureStdout: true,
    env: {
      TCR_WEBHOOK_URL: WEBHOOK_URL,
      TCR_WEBHOOK_SECRETS: SECRET,
      TCR_INGRESS_ACCOUNTS: 'acme',
      TEMPORAL_ADDRESS: '127.0.0.1:1', // events with nothing to route by never need Temporal
      TCR_INGRESS_LOG_LEVEL: 'info',
    },
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  try {
    const post = async (n: number) => {
      const event = { eventType: 'SOMETHING_NEW', cspId: 'CSPLOCAL', description: `process test ${n}` };
      const response = await sendSignedEvent(
        `${url}/webhooks/registry`,
        { secret: SECRET, webhookUrl: WEBHOOK_URL },
        event,
      );
      expect(response.status).toBe(200);
      return ((await response.json()) as { deliveryId: string }).deliveryId;
    };

    // The line reaches stdout while the process runs, with far less than the 4 KB buffer filled: the
    // periodic flush wrote it, not a full buffer or the exit. (Waits up to 12.5 s, 5x the old bound.)
    const first = await post(1);
    const started = Date.now();
    while (!stdout().includes(first) && Date.now() - started < 12_500) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(child.exitCode).toBe(null);
    expect(stdout()).toContain(first);
    expect(stdout().length).toBeLessThan(4096);

    const second = await post(2);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(stdout()).toContain(second);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
  }
});

it('with OTEL_EXPORTER_OTLP_ENDPOINT, exports a span per webhook to the collector and flushes it on SIGTERM', async () => {
  const collector = await startCollector();
  const { child, url } = await startIngressProcess({
    env: {
      TCR_WEBHOOK_URL: WEBHOOK_URL,
      TCR_WEBHOOK_SECRETS: SECRET,
      TCR_INGRESS_ACCOUNTS: 'acme',
      TEMPORAL_ADDRESS: '127.0.0.1:1', // events with nothing to route by never need Temporal
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
    },
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  try {
    const event = { eventType: 'SOMETHING_NEW', cspId: 'CSPLOCAL', description: 'ops@acme.example traced' };
    const response = await sendSignedEvent(
      `${url}/webhooks/registry`,
      { secret: SECRET, webhookUrl: WEBHOOK_URL },
      event,
    );
    expect(response.status).toBe(200);
    const { deliveryId } = (await response.json()) as { deliveryId: string };
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    // The span was batched; the exit flushed it.
    const traces = collector.traces();
    expect(traces).toContain('ingress webhook');
    expect(traces).toContain(deliveryId);
    expect(traces).toContain('SOMETHING_NEW');
    expect(traces).toContain('tcr-ingress'); // the default service name
    expect(traces).not.toContain('ops@acme.example');
    expect(traces).not.toContain(SECRET);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    await collector.close();
  }
});
