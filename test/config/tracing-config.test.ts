/**
 * Tracing settings at the edge: off unless an OTLP endpoint is set; a bad one stops the worker and
 * the ingress naming the variable, never its value.
 */
import { describe, expect, it } from 'vitest';
import { loadTracingConfig } from '../../src/config/tracing-config.js';
import { ConfigError, loadWorkerConfig } from '../../src/config/worker-config.js';
import { IngressConfigError, parseIngressConfig } from '../../src/ingress/config.js';

const ingressEnv = {
  TCR_WEBHOOK_URL: 'https://csp.example/webhooks/registry',
  TCR_WEBHOOK_SECRETS: 'tracing-config-secret-0123456789abcdef',
  TCR_INGRESS_ACCOUNTS: 'acme',
};

describe('tracing configuration', () => {
  it('is off unless an OTLP endpoint is set', () => {
    const problems: string[] = [];
    expect(loadTracingConfig({}, problems, 'tcr-worker')).toBeUndefined();
    expect(problems).toEqual([]);
    expect(parseIngressConfig(ingressEnv).tracing).toBeUndefined();
  });

  it('takes the traces URL, or the base URL with /v1/traces, and a service name', () => {
    const problems: string[] = [];
    expect(
      loadTracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318/' }, problems, 'tcr-worker'),
    ).toEqual({ tracesUrl: 'http://127.0.0.1:4318/v1/traces', serviceName: 'tcr-worker' });
    expect(
      loadTracingConfig(
        {
          OTEL_EXPORTER_OTLP_ENDPOINT: 'https://ignored:4318',
          OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://otel.example/v1/traces',
          OTEL_SERVICE_NAME: 'tcr-worker-eu',
        },
        problems,
        'tcr-worker',
      ),
    ).toEqual({ tracesUrl: 'https://otel.example/v1/traces', serviceName: 'tcr-worker-eu' });
    expect(problems).toEqual([]);
    expect(
      parseIngressConfig({ ...ingressEnv, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }).tracing,
    ).toEqual({ tracesUrl: 'http://127.0.0.1:4318/v1/traces', serviceName: 'tcr-ingress' });
  });

  it('refuses a URL that is not http(s) or carries credentials, naming the variable and not the value', () => {
    const worker = () =>
      loadWorkerConfig({
        TCR_ACCOUNTS: '[]',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://user:s3cr3t-token@otel.example/v1/traces',
      });
    expect(worker).toThrow(ConfigError);
    expect(worker).toThrow(/OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: credentials do not belong in the URL/);
    expect(worker).not.toThrow(/s3cr3t/);
    const ingress = () =>
      parseIngressConfig({ ...ingressEnv, OTEL_EXPORTER_OTLP_ENDPOINT: 'grpc://collector:4317' });
    expect(ingress).toThrow(IngressConfigError);
    try {
      ingress();
    } catch (error) {
      expect((error as IngressConfigError).issues).toEqual([
        { variable: 'OTEL_EXPORTER_OTLP_ENDPOINT', message: 'expected an http or https URL' },
      ]);
    }
    const problems: string[] = [];
    loadTracingConfig(
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'https://c:4318', OTEL_SERVICE_NAME: 'a b' },
      problems,
      'x',
    );
    expect(problems).toEqual([
      'OTEL_SERVICE_NAME: expected letters, digits, dots, dashes or underscores (at most 100)',
    ]);
  });

  it('refuses plain http to a collector that is not on this machine, naming the variable', () => {
    for (const [variable, url] of [
      ['OTEL_EXPORTER_OTLP_ENDPOINT', 'http://collector:4318'],
      ['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'http://10.0.0.7:4318/v1/traces'],
    ] as const) {
      const problems: string[] = [];
      expect(loadTracingConfig({ [variable]: url }, problems, 'tcr-worker')).toBeUndefined();
      expect(problems).toEqual([`${variable}: expected https (plain http only to a loopback collector)`]);
    }
    for (const url of ['http://localhost:4318', 'http://[::1]:4318', 'https://collector:4318']) {
      const problems: string[] = [];
      expect(loadTracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: url }, problems, 'tcr-worker')).toBeDefined();
      expect(problems).toEqual([]);
    }
  });
});
