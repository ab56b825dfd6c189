/**
 * Structured JSON logging for the worker: a pino logger with secret redaction, and an adapter that
 * makes it the Temporal Runtime's logger, so SDK, Core (when forwarded), workflow and activity logs
 * all come out as one JSON object per line.
 */
import type { LogLevel, LogMetadata, Logger as TemporalLogger } from '@temporalio/common';
import { type DestinationStream, type Logger as PinoLogger, pino } from 'pino';
import { pinoRedactPaths, REDACTED, redactSecrets } from './redact.js';

export type PinoLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface CreateLoggerOptions {
  level?: PinoLevel;
  /** Written to every record as `component` (for example `worker`, `ingress`). */
  component: string;
  /** Destination stream (tests); default stdout. */
  destination?: DestinationStream;
}

/** A pino logger writing JSON lines, with the product's secret fields redacted. */
export function createLogger(options: CreateLoggerOptions): PinoLogger {
  const config = {
    level: options.level ?? 'info',
    base: { component: options.component },
    redact: { paths: pinoRedactPaths, censor: REDACTED },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  return options.destination ? pino(config, options.destination) : pino(config);
}

const levelMethod: Record<LogLevel, 'trace' | 'debug' | 'info' | 'warn' | 'error'> = {
  TRACE: 'trace',
  DEBUG: 'debug',
  INFO: 'info',
  WARN: 'warn',
  ERROR: 'error',
};

/**
 * An error as the worker's log may show it: its kind, never its message, stack or details. A
 * registry's error text can repeat a field's value (an EIN, an e-mail), and the SDK logs every failed
 * activity attempt with its error (`Activity failed`, at warn): the full failure stays in the
 * (encrypted) history, where operators read it through the codec server.
 */
export function loggableError(error: Error): Record<string, unknown> {
  const failure = error as Error & { type?: unknown; nonRetryable?: unknown; details?: unknown };
  const details = Array.isArray(failure.details)
    ? (failure.details[0] as { status?: unknown } | undefined)
    : undefined;
  return {
    name: error.name,
    ...(typeof failure.type === 'string' ? { type: failure.type } : {}),
    ...(typeof failure.nonRetryable === 'boolean' ? { nonRetryable: failure.nonRetryable } : {}),
    ...(typeof details?.status === 'number' ? { status: details.status } : {}),
    ...(error.cause instanceof Error ? { cause: loggableError(error.cause) } : {}),
  };
}

function withLoggableErrors(meta: LogMetadata): LogMetadata {
  const out: LogMetadata = {};
  for (const [key, value] of Object.entries(meta))
    out[key] = value instanceof Error ? loggableError(value) : value;
  return out;
}

/**
 * A Temporal `Logger` that writes through pino. Metadata (workflow id, task queue, sdkComponent,
 * ...) becomes fields of the record; secret-named keys are redacted at any depth; symbol keys (the
 * SDK's internal timestamp) are dropped; an error in the metadata is logged by its kind only
 * (`loggableError`: no message, stack or details, which may repeat personal data).
 */
export function pinoTemporalLogger(logger: PinoLogger): TemporalLogger {
  const write = (level: LogLevel, message: string, meta?: LogMetadata): void => {
    const method = levelMethod[level] ?? 'info';
    if (meta === undefined) {
      logger[method](message);
      return;
    }
    logger[method](redactSecrets(withLoggableErrors(meta)) as Record<string, unknown>, message);
  };
  return {
    log: write,
    trace: (message, meta) => write('TRACE', message, meta),
    debug: (message, meta) => write('DEBUG', message, meta),
    info: (message, meta) => write('INFO', message, meta),
    warn: (message, meta) => write('WARN', message, meta),
    error: (message, meta) => write('ERROR', message, meta),
  };
}
