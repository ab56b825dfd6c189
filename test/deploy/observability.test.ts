/**
 * Worker observability: the pino adapter writes structured JSON without secrets, and a Runtime
 * installed with `runtimeTelemetryOptions` serves `temporal_*` Prometheus metrics after a workflow
 * has run on a real (time-skipping) Temporal server.
 */

import { Writable } from 'node:stream';
import { ApplicationFailure } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BUSINESS_HISTOGRAM_BUCKETS,
  createLogger,
  DEFAULT_WORKER_METRICS_ADDRESS,
  installWorkerRuntime,
  pinoTemporalLogger,
  redactSecrets,
  runtimeTelemetryOptions,
  workerObservabilityFromEnv,
} from '../../src/observability/index.js';
import { installPrometheusRuntime } from '../support/prometheus-runtime.js';
import { timeSkippingEnv, workflowBundle } from '../support/temporal-env.js';

class Lines extends Writable {
  readonly lines: string[] = [];
  override _write(chunk: Buffer, _encoding: string, callback: () => void): void {
    this.lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    callback();
  }
  records(): Record<string, unknown>[] {
    return this.lines.map((l) => JSON.parse(l) as Record<string, unknown>);
  }
}

describe('pinoTemporalLogger', () => {
  it("logs a failed activity's error by its kind only: no registry text, stack or details", () => {
    const out = new Lines();
    const logger = pinoTemporalLogger(
      createLogger({ component: 'worker', level: 'debug', destination: out }),
    );
    const error = ApplicationFailure.create({
      type: 'RegistryValidation',
      message: 'registry refused the request (400): EIN 98-7654321 does not match cfo@globex.example',
      nonRetryable: true,
      details: [{ status: 400, errors: [{ description: 'EIN 98-7654321 invalid', fields: ['ein'] }] }],
    });
    logger.warn('Activity failed', { activityType: 'registerBrand', attempt: 1, error });
    const [record] = out.records();
    expect(record).toMatchObject({
      msg: 'Activity failed',
      activityType: 'registerBrand',
      error: { name: 'ApplicationFailure', type: 'RegistryValidation', nonRetryable: true, status: 400 },
    });
    expect(out.lines.join('\n')).not.toMatch(/98-7654321|cfo@globex|at /);
  });

  it('writes one JSON record per message with the metadata as fields and secrets redacted', () => {
    const out = new Lines();
    const logger = pinoTemporalLogger(
      createLogger({ component: 'worker', level: 'debug', destination: out }),
    );
    logger.info('activity started', {
      workflowId: 'brand/R1',
      taskQueue: 'registry-writes/acme',
      account: { name: 'acme', apiKey: 'key-123', apiSecret: 'secret-456' },
      headers: { Authorization: 'Basic abc' },
    });
    logger.log('WARN', 'retrying', { TCR_WEBHOOK_SECRETS: 'old,new' });
    logger.trace('dropped below debug');
    const [first, second, ...rest] = out.records();
    expect(rest).toEqual([]);
    expect(first).toMatchObject({
      level: 30,
      msg: 'activity started',
      component: 'worker',
      workflowId: 'brand/R1',
      taskQueue: 'registry-writes/acme',
      account: { name: 'acme', apiKey: '[redacted]', apiSecret: '[redacted]' },
      headers: { Authorization: '[redacted]' },
    });
    expect(typeof first?.time).toBe('string');
    expect(second).toMatchObject({ level: 40, msg: 'retrying', TCR_WEBHOOK_SECRETS: '[redacted]' });
    const raw = out.lines.join('\n');
    for (const secret of ['key-123', 'secret-456', 'Basic abc', 'old,new']) expect(raw).not.toContain(secret);
  });

  it('redacts pino records written directly too', () => {
    const out = new Lines();
    createLogger({ component: 'worker', destination: out }).info({ apiSecret: 'x-secret' }, 'direct');
    expect(out.records()[0]).toMatchObject({ apiSecret: '[redacted]' });
  });

  it('keeps errors readable and survives cycles', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    expect(redactSecrets({ error: new TypeError('boom'), cyclic })).toMatchObject({
      error: { type: 'TypeError', message: 'boom' },
      cyclic: { a: 1, self: '[circular]' },
    });
  });
});

describe('workerObservabilityFromEnv', () => {
  it('defaults to loopback 9464 and info', () => {
    expect(workerObservabilityFromEnv({})).toEqual({
      prometheusBindAddress: DEFAULT_WORKER_METRICS_ADDRESS,
      logLevel: 'info',
    });
    expect(DEFAULT_WORKER_METRICS_ADDRESS).toBe('127.0.0.1:9464');
  });

  it('reads the address and level, and "off" disables metrics', () => {
    expect(
      workerObservabilityFromEnv({
        TCR_WORKER_METRICS_ADDRESS: '0.0.0.0:9100',
        TCR_WORKER_LOG_LEVEL: 'debug',
      }),
    ).toEqual({ prometheusBindAddress: '0.0.0.0:9100', logLevel: 'debug' });
    expect(
      workerObservabilityFromEnv({ TCR_WORKER_METRICS_ADDRESS: 'off' }).prometheusBindAddress,
    ).toBeUndefined();
  });

  it('names the variable of a bad value', () => {
    expect(() => workerObservabilityFromEnv({ TCR_WORKER_METRICS_ADDRESS: '9464' })).toThrow(
      /TCR_WORKER_METRICS_ADDRESS/,
    );
    expect(() => workerObservabilityFromEnv({ TCR_WORKER_METRICS_ADDRESS: 'h:70000' })).toThrow(
      /TCR_WORKER_METRICS_ADDRESS/,
    );
    expect(() => workerObservabilityFromEnv({ TCR_WORKER_LOG_LEVEL: 'loud' })).toThrow(
      /TCR_WORKER_LOG_LEVEL/,
    );
  });
});

describe('runtimeTelemetryOptions', () => {
  it('configures the Prometheus exporter and forwards Core logs to the logger', () => {
    const logger = pinoTemporalLogger(createLogger({ component: 'worker', destination: new Lines() }));
    // No signal handlers of the Runtime's own: the process stops its workers in order itself.
    expect(runtimeTelemetryOptions({ prometheusBindAddress: '127.0.0.1:9464', logger })).toEqual({
      logger,
      shutdownSignals: [],
      telemetryOptions: {
        logging: { filter: { core: 'WARN', other: 'ERROR' }, forward: {} },
        metrics: {
          prometheus: { bindAddress: '127.0.0.1:9464', histogramBucketOverrides: BUSINESS_HISTOGRAM_BUCKETS },
        },
      },
    });
    expect(runtimeTelemetryOptions({})).toEqual({ shutdownSignals: [], telemetryOptions: {} });
    expect(() => runtimeTelemetryOptions({ prometheusBindAddress: 'localhost' })).toThrow(/host:port/);
  });
});

describe('a worker runtime installed with runtimeTelemetryOptions', () => {
  let env: TestWorkflowEnvironment;
  let metricsUrl: string;
  const logs = new Lines();

  beforeAll(async () => {
    // The Runtime under test replaces the quiet one (its exporter on a probed port, retried if taken).
    metricsUrl = await installPrometheusRuntime((bindAddress) =>
      runtimeTelemetryOptions({
        prometheusBindAddress: bindAddress,
        logger: pinoTemporalLogger(createLogger({ component: 'worker', level: 'info', destination: logs })),
      }),
    );
    env = await timeSkippingEnv();
  });

  afterAll(async () => {
    await env?.teardown();
  });

  it('serves temporal_ metrics for the workflows it ran, and logs JSON without secrets', async () => {
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue: 'observability-test',
      workflowBundle: await workflowBundle(new URL('./fixtures/workflows.ts', import.meta.url).pathname),
    });
    const result = await worker.runUntil(
      env.client.workflow.execute('observedGreeting', {
        taskQueue: 'observability-test',
        workflowId: 'observability/greeting',
        args: ['metrics'],
      }),
    );
    expect(result).toBe('hello metrics');

    const response = await fetch(metricsUrl);
    expect(response.status).toBe(200);
    const text = await response.text();
    const completed = text
      .split('\n')
      .filter(
        (l) => l.startsWith('temporal_workflow_completed') && l.includes('task_queue="observability-test"'),
      );
    expect(completed.length, text.slice(0, 2000)).toBeGreaterThan(0);
    expect(Number(completed[0]?.split(' ').pop())).toBeGreaterThanOrEqual(1);
    expect(text).toMatch(/^temporal_workflow_task_schedule_to_start_latency/m);

    const records = logs.records();
    const greeting = records.find((r) => r.msg === 'greeting');
    expect(greeting).toMatchObject({
      component: 'worker',
      name: 'metrics',
      apiSecret: '[redacted]',
      workflowId: 'observability/greeting',
      sdkComponent: 'workflow',
    });
    expect(logs.lines.join('\n')).not.toContain('must-not-appear');
    expect(records.some((r) => r.sdkComponent === 'worker')).toBe(true);
  });

  it('installWorkerRuntime leaves an already installed runtime alone and says so', () => {
    const result = installWorkerRuntime({
      TCR_WORKER_LOG_LEVEL: 'silent',
      TCR_WORKER_METRICS_ADDRESS: 'off',
    });
    expect(result).toMatchObject({ installed: false, prometheusBindAddress: undefined });
    expect(() => installWorkerRuntime({ TCR_WORKER_METRICS_ADDRESS: 'nope' })).toThrow(
      /TCR_WORKER_METRICS_ADDRESS/,
    );
  });
});
