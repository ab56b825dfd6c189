/**
 * The registry client's HTTP transport: one request to `/v2`, under the account's rate limiter and
 * the per-request timeout, its answer parsed with the caller's schema, every failure turned into a
 * typed error of ./errors.ts (retryable or not, may it have committed or not). 429 answers are waited
 * out and retried here. ./client.ts builds the endpoint calls on it.
 */
import { type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { type Dispatcher, request } from 'undici';
import type { z } from 'zod';
import { registryEndpointTemplate } from '../common/registry-endpoint.js';
import {
  type FieldIssue,
  type HttpMethod,
  NotFoundError,
  RateLimitedError,
  RegistryAbortedError,
  type RegistryError,
  type RegistryErrorEntry,
  RegistryInternalError,
  RegistryNetworkError,
  RegistryResponseInvalidError,
  RegistryServerError,
  RegistryTimeoutError,
  RegistryValidationError,
  UnauthorizedError,
} from './errors.js';
import {
  type AccountRateLimiter,
  currentWritePermits,
  type MissedWrite,
  type WritePermit,
} from './rate-limiter.js';
import { RegistryErrorEntrySchema } from './schemas.js';
import { SendByMissedError, type SendByOption } from './send-by.js';

/**
 * Spans of registry calls (src/observability/tracing.ts): one per HTTP request, a 429's retry
 * included, a child of the activity that made it. Its attributes are the account, the method, the
 * endpoint template (`/campaign/{id}/sharing`: no id, no query), the status and the failure class;
 * never a body, a header or a credential. A no-op unless tracing is on.
 */
const tracer = trace.getTracer('tcr-registry');

export interface SendOptions<S extends z.ZodType | undefined> {
  query?: Record<string, string | number | boolean | undefined> | undefined;
  body?: unknown;
  schema: S;
  signal?: AbortSignal | undefined;
  /** A POST the caller guards by reference lookup: retrying the method is safe even if it committed. */
  idempotentByReference?: boolean;
  /** Called with the headers of the successful response. */
  onHeaders?: (headers: Record<string, string | string[] | undefined>) => void;
}

const notSentCodes = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_CLOSED',
  'UND_ERR_DESTROYED',
]);
const timeoutCodes = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

function errorCode(err: unknown): string | undefined {
  let current: unknown = err;
  for (let depth = 0; depth < 4 && current && typeof current === 'object'; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number {
  const raw = Array.isArray(value) ? value[0] : value;
  if (!raw) return 1000;
  const seconds = Number(raw);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.ceil(seconds * 1000);
  const date = Date.parse(raw);
  if (Number.isFinite(date)) return Math.max(0, date - now);
  return 1000;
}

/** Accepts an array of `{code, description, fields}`, a single such object, or `{errors: [...]}`. */
export function parseRegistryErrorBody(text: string): RegistryErrorEntry[] {
  if (!text.trim()) return [];
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return [{ code: undefined, description: text.slice(0, 300), fields: [] }];
  }
  const list: unknown[] = Array.isArray(json)
    ? json
    : json && typeof json === 'object' && Array.isArray((json as { errors?: unknown }).errors)
      ? (json as { errors: unknown[] }).errors
      : [json];
  return list.map((item) => {
    const parsed = RegistryErrorEntrySchema.safeParse(item);
    if (!parsed.success) return { code: undefined, description: String(item).slice(0, 300), fields: [] };
    const { code, description, fields } = parsed.data;
    const numeric = typeof code === 'string' && /^\d+$/.test(code) ? Number(code) : code;
    return {
      code: numeric,
      description: description ?? '',
      fields: fields == null ? [] : Array.isArray(fields) ? fields : [fields],
    };
  });
}

export function zodIssues(error: z.ZodError): FieldIssue[] {
  return error.issues.map((issue) => ({ path: issue.path.map(String).join('.'), message: issue.message }));
}

/** Where and how the transport sends. The authorization header never leaves this object. */
export interface RegistryTransportOptions {
  /** The account's name, on the spans of its calls (never its credentials). */
  account?: string | undefined;
  /** Scheme, host and port. */
  origin: string;
  /** The path before `/v2` ('' for none). */
  basePath: string;
  authorization: string;
  /** Connections for reads. */
  dispatcher: Dispatcher;
  /**
   * Connections for writes, apart from the reads so a write never queues behind them, with
   * ./send-by.ts's interceptor so a budgeted write that reaches its socket too late is not sent.
   */
  writeDispatcher: Dispatcher;
  limiter: AccountRateLimiter | undefined;
  timeoutMs: number;
  maxRateLimitRetries: number;
}

export class RegistryTransport {
  readonly #account: string | undefined;
  readonly #origin: string;
  readonly #basePath: string;
  readonly #authorization: string;
  readonly #dispatcher: Dispatcher;
  readonly #writeDispatcher: Dispatcher;
  readonly #limiter: AccountRateLimiter | undefined;
  readonly #timeoutMs: number;
  readonly #maxRateLimitRetries: number;

  constructor(options: RegistryTransportOptions) {
    this.#account = options.account;
    this.#origin = options.origin;
    this.#basePath = options.basePath;
    this.#authorization = options.authorization;
    this.#dispatcher = options.dispatcher;
    this.#writeDispatcher = options.writeDispatcher;
    this.#limiter = options.limiter;
    this.#timeoutMs = options.timeoutMs;
    this.#maxRateLimitRetries = options.maxRateLimitRetries;
  }

  toJSON(): Record<string, never> {
    return {};
  }

  async send<S extends z.ZodType | undefined>(
    method: HttpMethod,
    path: string,
    options: SendOptions<S>,
  ): Promise<S extends z.ZodType ? z.output<S> : unknown> {
    const search = new URLSearchParams();
    for (const [key, value] of Object.entries(options.query ?? {})) {
      if (value !== undefined) search.set(key, String(value));
    }
    const qs = search.toString();
    const fullPath = `${this.#basePath}/v2${path}${qs ? `?${qs}` : ''}`;
    const context = { method, path: fullPath };
    const write = method !== 'GET';
    // Whether retrying the same call is safe if the outcome is unknown.
    const safeToRepeat = method !== 'POST' || options.idempotentByReference === true;
    // A write under shared permits (a worker's write activity: the account's budget across every
    // worker process) takes its permit there; otherwise the process's own bucket holds it.
    const permits = write ? currentWritePermits() : undefined;
    const bucket = permits ? undefined : this.#limiter?.bucketFor(method);

    // The permit of a write that reached its socket too late (not sent): handed back on the next acquire.
    let missed: MissedWrite | undefined;
    for (let attempt = 0; ; attempt++) {
      let release: () => void = () => undefined;
      let permit: WritePermit | undefined;
      if (permits) {
        try {
          permit = await permits.acquire(options.signal, missed);
          missed = undefined;
        } catch (error) {
          if (options.signal?.aborted)
            throw new RegistryAbortedError({ ...context, mayHaveCommitted: false });
          throw error;
        }
      } else if (bucket) {
        try {
          release = await bucket.acquire(options.signal);
        } catch {
          throw new RegistryAbortedError({ ...context, mayHaveCommitted: false });
        }
      }
      const timeout = AbortSignal.timeout(this.#timeoutMs);
      const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
      const span = this.#startSpan(method, fullPath, attempt);
      let status: number;
      let headers: Record<string, string | string[] | undefined>;
      let text: string;
      try {
        const requestOptions: Parameters<typeof request>[1] & SendByOption = {
          method,
          dispatcher: write ? this.#writeDispatcher : this.#dispatcher,
          headers: {
            authorization: this.#authorization,
            accept: 'application/json',
            ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
          },
          body: options.body !== undefined ? JSON.stringify(options.body) : null,
          signal,
          headersTimeout: this.#timeoutMs,
          bodyTimeout: this.#timeoutMs,
          ...(permit ? { sendBy: permit.sendBy, ...(permit.sent ? { onSent: permit.sent } : {}) } : {}),
        };
        const response = await request(`${this.#origin}${fullPath}`, requestOptions);
        status = response.statusCode;
        headers = response.headers;
        text = await response.body.text();
      } catch (err) {
        if (permit && err instanceof SendByMissedError && !options.signal?.aborted) {
          // Not sent: the write asks for another instant, handing this one back. Not a 429 retry.
          endSpan(span, undefined, err.name);
          missed = { permit, lateByMs: err.lateByMs };
          attempt -= 1;
          continue;
        }
        const error = this.#transportError(err, context, write, safeToRepeat, options.signal, timeout);
        endSpan(span, undefined, error.name);
        throw error;
      } finally {
        release();
      }
      endSpan(span, status, status >= 400 ? `http ${status}` : undefined);

      if (status >= 200 && status < 300) {
        options.onHeaders?.(headers);
        if (!options.schema) return undefined as S extends z.ZodType ? z.output<S> : unknown;
        let json: unknown;
        try {
          json = text.trim() ? JSON.parse(text) : undefined;
        } catch {
          throw new RegistryResponseInvalidError([{ path: '', message: 'response body is not JSON' }], {
            ...context,
            status,
          });
        }
        const parsed = options.schema.safeParse(json);
        if (!parsed.success)
          throw new RegistryResponseInvalidError(zodIssues(parsed.error), { ...context, status });
        return parsed.data as S extends z.ZodType ? z.output<S> : unknown;
      }
      if (status === 429) {
        const retryAfterMs = parseRetryAfter(headers['retry-after']);
        bucket?.pause(retryAfterMs);
        if (attempt < this.#maxRateLimitRetries) {
          if (!bucket) await new Promise((r) => setTimeout(r, retryAfterMs));
          continue;
        }
        throw new RateLimitedError(retryAfterMs, { ...context });
      }
      throw this.#statusError(status, text, context, write, safeToRepeat);
    }
  }

  #startSpan(method: HttpMethod, fullPath: string, attempt: number): Span {
    const endpoint = registryEndpointTemplate(fullPath) ?? '(not a registry path)';
    return tracer.startSpan(`registry ${method} ${endpoint}`, {
      kind: SpanKind.CLIENT,
      attributes: {
        'tcr.account': this.#account ?? '(unnamed)',
        'http.request.method': method,
        'tcr.registry.endpoint': endpoint,
        ...(attempt > 0 ? { 'tcr.registry.rate_limit_retry': attempt } : {}),
      },
    });
  }

  #statusError(
    status: number,
    text: string,
    context: { method: HttpMethod; path: string },
    write: boolean,
    safeToRepeat: boolean,
  ): RegistryError {
    if (status === 401) return new UnauthorizedError(context);
    const entries = parseRegistryErrorBody(text);
    if (entries.some((e) => e.code === 590))
      return new RegistryInternalError(entries, { ...context, status });
    if (status === 404) return new NotFoundError(entries, context);
    if (status >= 500)
      return new RegistryServerError(status, {
        ...context,
        retryable: safeToRepeat,
        mayHaveCommitted: write,
      });
    return new RegistryValidationError(entries, { ...context, status });
  }

  #transportError(
    err: unknown,
    context: { method: HttpMethod; path: string },
    write: boolean,
    safeToRepeat: boolean,
    callerSignal: AbortSignal | undefined,
    timeout: AbortSignal,
  ): RegistryError {
    const code = errorCode(err);
    if (callerSignal?.aborted)
      return new RegistryAbortedError({ ...context, mayHaveCommitted: write, cause: undefined });
    if (timeout.aborted || (code !== undefined && timeoutCodes.has(code)))
      return new RegistryTimeoutError(this.#timeoutMs, {
        ...context,
        retryable: safeToRepeat,
        mayHaveCommitted: write,
      });
    const notSent = code !== undefined && notSentCodes.has(code);
    const detail = code ?? (err instanceof Error ? err.name : 'unknown');
    return new RegistryNetworkError(detail, {
      ...context,
      retryable: notSent || safeToRepeat,
      mayHaveCommitted: write && !notSent,
    });
  }
}

/** Ends a registry call's span with its status code, or the failure that left it without one. */
function endSpan(span: Span, status: number | undefined, error: string | undefined): void {
  if (status !== undefined) span.setAttribute('http.response.status_code', status);
  if (error) {
    span.setAttribute('error.type', error);
    span.setStatus({ code: SpanStatusCode.ERROR, message: error });
  }
  span.end();
}
