/**
 * Tracing settings (OpenTelemetry), from the standard OTel variables, validated at the edge. Off
 * unless an OTLP endpoint is set:
 *
 *   OTEL_EXPORTER_OTLP_TRACES_ENDPOINT  the collector's traces URL (OTLP over HTTP, e.g.
 *                                       http://127.0.0.1:4318/v1/traces; https unless the
 *                                       collector is loopback: spans cross the network), or
 *   OTEL_EXPORTER_OTLP_ENDPOINT         its base URL (`/v1/traces` is added);
 *   OTEL_SERVICE_NAME                   the service name on every span (default tcr-worker / tcr-ingress).
 *
 * OTEL_EXPORTER_OTLP_HEADERS (a collector's credentials) is read by the exporter itself and never
 * printed. Errors name the variable, never its value.
 */
import type { TracingConfig } from '../observability/tracing.js';
import { isLoopbackHost } from '../registry/environments.js';

export type { TracingConfig };

type Env = Record<string, string | undefined>;

function checkedUrl(name: string, value: string, problems: string[]): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    problems.push(`${name}: expected an http or https URL`);
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    problems.push(`${name}: expected an http or https URL`);
    return undefined;
  }
  if (url.username || url.password) {
    problems.push(`${name}: credentials do not belong in the URL (use OTEL_EXPORTER_OTLP_HEADERS)`);
    return undefined;
  }
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    problems.push(`${name}: expected https (plain http only to a loopback collector)`);
    return undefined;
  }
  return url.toString();
}

/** The tracing settings, or undefined when no OTLP endpoint is set (tracing off). */
export function loadTracingConfig(
  env: Env,
  problems: string[],
  defaultServiceName: string,
): TracingConfig | undefined {
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  let tracesUrl: string | undefined;
  if (traces) tracesUrl = checkedUrl('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', traces, problems);
  else if (base) {
    const url = checkedUrl('OTEL_EXPORTER_OTLP_ENDPOINT', base, problems);
    if (url) tracesUrl = `${url.replace(/\/+$/, '')}/v1/traces`;
  } else return undefined;
  if (!tracesUrl) return undefined;
  const serviceName = env.OTEL_SERVICE_NAME?.trim() || defaultServiceName;
  if (!/^[\w.-]{1,100}$/.test(serviceName)) {
    problems.push('OTEL_SERVICE_NAME: expected letters, digits, dots, dashes or underscores (at most 100)');
    return undefined;
  }
  return { tracesUrl, serviceName };
}

/** What a log line may say about tracing: where spans go (no credentials are in the URL). */
export function describeTracing(config: TracingConfig | undefined): Record<string, unknown> {
  return config ? { tracesUrl: config.tracesUrl, serviceName: config.serviceName } : { off: true };
}
