/**
 * `tcr dev`'s options from its flags and the environment (flags win): TCR_DATA_DIR, TCR_TEMPORAL_PORT,
 * TCR_UI_PORT, TCR_SIMULATOR_PORT, TCR_INGRESS_PORT, TCR_WORKER_METRICS_PORT, TCR_CODEC_PORT,
 * TCR_TIME_SCALE, TCR_MAX_RECORDS_PER_PAGE, TCR_STRICT, TEMPORAL_NAMESPACE, TCR_NO_EXAMPLES, TCR_QUIET
 * (docs/local-stack.md's table).
 * Pure, so each variable's effect on the options is tested without starting the stack.
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { projectRoot } from '../toolchain/paths.js';
import { DEFAULT_TIME_SCALE } from './options.js';

export interface DevOptions {
  dataDir: string;
  temporalPort: number;
  uiPort: number;
  simulatorPort: number;
  ingressPort: number;
  /** The worker runtime's Prometheus port (127.0.0.1). */
  metricsPort: number;
  codecPort: number;
  timeScale: number;
  /** The simulator's page cap (undefined: none). */
  maxRecordsPerPage: number | undefined;
  /** The simulator answers only what the spec documents. */
  strict: boolean;
  namespace: string;
  examples: boolean;
  quiet: boolean;
}

/** `help` when -h/--help was given; throws a usage error (code ERR_PARSE_ARGS_*) on a bad value. */
export function parseDevOptions(
  argv: string[],
  env: Record<string, string | undefined>,
): DevOptions | 'help' {
  const { values } = parseArgs({
    args: argv,
    options: {
      'data-dir': { type: 'string', default: env.TCR_DATA_DIR ?? join(projectRoot, '.data') },
      port: { type: 'string', default: env.TCR_TEMPORAL_PORT ?? '7233' },
      'ui-port': { type: 'string', default: env.TCR_UI_PORT ?? '8233' },
      'simulator-port': { type: 'string', default: env.TCR_SIMULATOR_PORT ?? '8480' },
      'ingress-port': { type: 'string', default: env.TCR_INGRESS_PORT ?? '8470' },
      'metrics-port': { type: 'string', default: env.TCR_WORKER_METRICS_PORT ?? '9464' },
      'codec-port': { type: 'string', default: env.TCR_CODEC_PORT ?? '8234' },
      'time-scale': { type: 'string', default: env.TCR_TIME_SCALE ?? String(DEFAULT_TIME_SCALE) },
      'max-records-per-page': { type: 'string', default: env.TCR_MAX_RECORDS_PER_PAGE ?? '' },
      strict: { type: 'boolean', default: flag(env.TCR_STRICT) },
      namespace: { type: 'string', default: env.TEMPORAL_NAMESPACE ?? 'default' },
      'no-examples': { type: 'boolean', default: flag(env.TCR_NO_EXAMPLES) },
      quiet: { type: 'boolean', default: flag(env.TCR_QUIET) },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  if (values.help) return 'help';
  const timeScale = Number(values['time-scale']);
  if (!Number.isFinite(timeScale) || timeScale <= 0)
    throw usageError(`--time-scale must be a positive number, got '${values['time-scale']}'`);
  const cap = values['max-records-per-page'];
  if (cap !== '' && !/^[1-9]\d*$/.test(cap))
    throw usageError(`--max-records-per-page must be a positive integer, got '${cap}'`);
  return {
    dataDir: values['data-dir'],
    temporalPort: parsePort('--port', values.port),
    uiPort: parsePort('--ui-port', values['ui-port']),
    simulatorPort: parsePort('--simulator-port', values['simulator-port']),
    ingressPort: parsePort('--ingress-port', values['ingress-port']),
    metricsPort: parsePort('--metrics-port', values['metrics-port']),
    codecPort: parsePort('--codec-port', values['codec-port']),
    timeScale,
    maxRecordsPerPage: cap === '' ? undefined : Number(cap),
    strict: values.strict,
    namespace: values.namespace,
    examples: !values['no-examples'],
    quiet: values.quiet,
  };
}

function flag(value: string | undefined): boolean {
  return value !== undefined && value !== '' && value !== '0' && value.toLowerCase() !== 'false';
}

function usageError(message: string): Error {
  return Object.assign(new Error(message), { code: 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' });
}

function parsePort(flagName: string, value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw usageError(`${flagName} must be a port number (0 = any free port), got '${value}'`);
  return n;
}
