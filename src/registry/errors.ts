/**
 * Typed errors of the registry client. Every error says
 * - `retryable`: whether calling the same client method again is safe, and
 * - `mayHaveCommitted`: for writes, whether the registry may have applied the write even though the
 *   caller saw a failure (a timeout, a network error after the request was sent, or a 5xx).
 * Messages name the method, the path (never the base URL's userinfo, never headers) and what the
 * registry said; credentials never appear in them.
 */

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface RegistryErrorEntry {
  code: number | string | undefined;
  description: string;
  fields: string[];
}

export interface RegistryErrorContext {
  method?: HttpMethod | undefined;
  /** Path relative to the base URL, with the query string (e.g. `/v2/brand/B1`). */
  path?: string | undefined;
  status?: number | undefined;
  code?: number | string | undefined;
  retryable?: boolean | undefined;
  mayHaveCommitted?: boolean | undefined;
  cause?: unknown;
}

export class RegistryError extends Error {
  override readonly name: string = 'RegistryError';
  readonly status: number | undefined;
  readonly code: number | string | undefined;
  readonly retryable: boolean;
  readonly mayHaveCommitted: boolean;
  readonly method: HttpMethod | undefined;
  readonly path: string | undefined;

  constructor(message: string, context: RegistryErrorContext = {}) {
    super(message, context.cause === undefined ? undefined : { cause: context.cause });
    this.status = context.status;
    this.code = context.code;
    this.retryable = context.retryable ?? false;
    this.mayHaveCommitted = context.mayHaveCommitted ?? false;
    this.method = context.method;
    this.path = context.path;
  }
}

function where(context: RegistryErrorContext): string {
  return context.method && context.path ? `${context.method} ${context.path}: ` : '';
}

/** 401: credentials missing or wrong. Not retryable: fix the configuration. */
export class UnauthorizedError extends RegistryError {
  override readonly name = 'UnauthorizedError';
  constructor(context: RegistryErrorContext = {}) {
    super(`${where(context)}registry rejected the credentials (401)`, {
      ...context,
      status: 401,
      retryable: false,
      mayHaveCommitted: false,
    });
  }
}

/** 429: over the account's rate limit. Nothing was applied; retry after `retryAfterMs`. */
export class RateLimitedError extends RegistryError {
  override readonly name = 'RateLimitedError';
  readonly retryAfterMs: number;
  constructor(retryAfterMs: number, context: RegistryErrorContext = {}) {
    super(`${where(context)}rate limited by the registry (429); retry after ${retryAfterMs} ms`, {
      ...context,
      status: 429,
      retryable: true,
      mayHaveCommitted: false,
    });
    this.retryAfterMs = retryAfterMs;
  }
}

function describeEntries(entries: RegistryErrorEntry[]): string {
  return entries
    .map((e) => {
      const fields = e.fields.length > 0 ? ` [${e.fields.join(', ')}]` : '';
      return `${e.code ?? '?'} ${e.description}${fields}`;
    })
    .join('; ');
}

/** 400 (or another 4xx the registry explains): the registry refused the request. Not retryable. */
export class RegistryValidationError extends RegistryError {
  override readonly name: string = 'RegistryValidationError';
  readonly errors: RegistryErrorEntry[];
  constructor(errors: RegistryErrorEntry[], context: RegistryErrorContext = {}) {
    super(
      `${where(context)}registry refused the request (${context.status ?? 400}): ${describeEntries(errors)}`,
      {
        ...context,
        status: context.status ?? 400,
        code: context.code ?? errors[0]?.code,
        retryable: context.retryable ?? false,
        mayHaveCommitted: context.mayHaveCommitted ?? false,
      },
    );
    this.errors = errors;
  }
  /** Every field the registry named. */
  get fields(): string[] {
    return this.errors.flatMap((e) => e.fields);
  }
}

/**
 * Registry error code 590: "internal system error (contact support)". Treated as transient:
 * retryable, and for writes the outcome is unknown (`mayHaveCommitted`).
 */
export class RegistryInternalError extends RegistryValidationError {
  override readonly name = 'RegistryInternalError';
  constructor(errors: RegistryErrorEntry[], context: RegistryErrorContext = {}) {
    super(errors, {
      ...context,
      code: 590,
      retryable: true,
      mayHaveCommitted: context.method !== undefined && context.method !== 'GET',
    });
  }
}

/** 404: no such record. */
export class NotFoundError extends RegistryError {
  override readonly name = 'NotFoundError';
  readonly errors: RegistryErrorEntry[];
  constructor(errors: RegistryErrorEntry[], context: RegistryErrorContext = {}) {
    const detail = errors.length > 0 ? `: ${describeEntries(errors)}` : '';
    super(`${where(context)}not found (404)${detail}`, {
      ...context,
      status: 404,
      retryable: false,
      mayHaveCommitted: false,
    });
    this.errors = errors;
  }
}

/** 5xx. Reads are retryable; a write may have been applied before the server failed. */
export class RegistryServerError extends RegistryError {
  override readonly name = 'RegistryServerError';
  constructor(status: number, context: RegistryErrorContext = {}) {
    super(`${where(context)}registry server error (${status})`, { ...context, status });
  }
}

/** The connection failed. `mayHaveCommitted` is false only when the request never left. */
export class RegistryNetworkError extends RegistryError {
  override readonly name = 'RegistryNetworkError';
  constructor(detail: string, context: RegistryErrorContext = {}) {
    super(`${where(context)}network error: ${detail}`, context);
  }
}

/** No answer within the client's timeout. A write may have been applied. */
export class RegistryTimeoutError extends RegistryError {
  override readonly name = 'RegistryTimeoutError';
  readonly timeoutMs: number;
  constructor(timeoutMs: number, context: RegistryErrorContext = {}) {
    super(`${where(context)}no response within ${timeoutMs} ms`, context);
    this.timeoutMs = timeoutMs;
  }
}

/** The caller's AbortSignal fired. Not retried by the client. */
export class RegistryAbortedError extends RegistryError {
  override readonly name = 'RegistryAbortedError';
  constructor(context: RegistryErrorContext = {}) {
    super(`${where(context)}aborted by the caller`, context);
  }
}

export interface FieldIssue {
  /** Dotted path of the bad field, e.g. `subUsecases` or `optionalAttributes.taxExemptStatus`. */
  path: string;
  message: string;
}

/** A request failed the client's own checks; nothing was sent. Lists every bad field. */
export class RegistryRequestInvalidError extends RegistryError {
  override readonly name = 'RegistryRequestInvalidError';
  readonly issues: FieldIssue[];
  constructor(operation: string, issues: FieldIssue[]) {
    super(
      `${operation}: invalid request: ${issues.map((i) => `${i.path || '(root)'}: ${i.message}`).join('; ')}`,
      { retryable: false, mayHaveCommitted: false },
    );
    this.issues = issues;
  }
}

/** The registry answered 2xx with a body that does not match the spec's record. */
export class RegistryResponseInvalidError extends RegistryError {
  override readonly name = 'RegistryResponseInvalidError';
  readonly issues: FieldIssue[];
  constructor(issues: FieldIssue[], context: RegistryErrorContext = {}) {
    super(
      `${where(context)}unexpected response: ${issues.map((i) => `${i.path || '(root)'}: ${i.message}`).join('; ')}`,
      { ...context, retryable: false },
    );
    this.issues = issues;
  }
}

/** The client configuration is unsafe or inconsistent (wrong environment for a base URL, http to a remote host). */
export class RegistryConfigurationError extends RegistryError {
  override readonly name = 'RegistryConfigurationError';
  constructor(message: string) {
    super(message, { retryable: false });
  }
}
