/**
 * The core every part of the registry client builds on: the options, the connection pools and the
 * HTTP transport (./transport.ts, which alone holds the authorization header), and the shared
 * mechanics of the endpoints: GET and send through the transport, create-once by `referenceId`,
 * lookup by reference, paging. The endpoints sit on top in layers, one family a file:
 * ./reference-endpoints.ts (reference lists) → ./brand-endpoints.ts (brands and vetting) →
 * ./client.ts (campaigns, access check, webhook subscriptions: `RegistryClient`).
 */
import { inspect } from 'node:util';
import { type Dispatcher, Pool } from 'undici';
import type { z } from 'zod';
import { checkBaseUrl, type RegistryEnvironment } from './environments.js';
import {
  type HttpMethod,
  RegistryAbortedError,
  RegistryError,
  RegistryInternalError,
  RegistryRequestInvalidError,
  RegistryResponseInvalidError,
  RegistryValidationError,
} from './errors.js';
import { afterPage, type PagePosition, pageRequest, startPosition } from './paging.js';
import { DEFAULT_RATE_LIMITS, type RateLimitConfig, rateLimiterFor, rateLimiterKey } from './rate-limiter.js';
import type { Page } from './schemas.js';
import { sendByInterceptor } from './send-by.js';
import { RegistryTransport, type SendOptions, zodIssues } from './transport.js';

export interface RegistryClientOptions {
  environment: RegistryEnvironment;
  /** Base URL without `/v2` (a trailing `/v2` is tolerated). */
  baseUrl: string;
  apiKey: string;
  apiSecret: string;
  /** The account's name: on the spans of its calls (tracing), never used to authenticate. */
  account?: string;
  /** Per-request timeout (headers and body), default 30 000 ms. */
  timeoutMs?: number;
  /** Client-side limits for this account; default the spec's 20 GET/s and 20 writes/10 s. `false` = off. */
  rateLimits?: RateLimitConfig | false;
  /** Extra hosts allowed for a remote environment (besides `configureEnvironmentHosts`). */
  allowedHosts?: string[];
  /** How often a request answered 429 is retried before RateLimitedError reaches the caller; default 8. */
  maxRateLimitRetries?: number;
  /** Create attempts of registerBrand / createCampaign when a create's outcome is unknown; default 3. */
  createAttempts?: number;
  /** Page size used by the paging iterators and reference lookups; default 100. */
  pageSize?: number;
  /** An undici dispatcher to use instead of the client's own keep-alive pools (tests: MockAgent). */
  dispatcher?: Dispatcher;
}

/** Connections of an account's read pool, per process. */
export const READ_CONNECTIONS = 16;

/**
 * Connections of an account's write pool, per process: apart from the reads, and at least as many as
 * the write activities a worker process runs for one account (src/workers/create-workers.ts checks
 * it), so a write never waits for a connection after its permit's instant.
 */
export const WRITE_CONNECTIONS = 32;

export interface CallOptions {
  signal?: AbortSignal;
}

/** Checks a request against its schema before anything is sent. */
export function checked<S extends z.ZodType>(operation: string, schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (!result.success) throw new RegistryRequestInvalidError(operation, zodIssues(result.error));
  return result.data;
}

/** One path segment, required and encoded. */
export function segment(value: string, name: string): string {
  if (typeof value !== 'string' || value.length === 0)
    throw new RegistryRequestInvalidError(name, [{ path: name, message: `${name} is required` }]);
  return encodeURIComponent(value);
}

export class RegistryClientCore {
  readonly environment: RegistryEnvironment;
  /** Base URL without `/v2`. */
  readonly baseUrl: string;
  readonly timeoutMs: number;
  readonly #http: RegistryTransport;
  readonly #pools: Dispatcher[];
  readonly #createAttempts: number;
  readonly #pageSize: number;

  constructor(options: RegistryClientOptions) {
    const checkedUrl = checkBaseUrl(options.environment, options.baseUrl, options.allowedHosts);
    if (!options.apiKey || !options.apiSecret)
      throw new RegistryRequestInvalidError('RegistryClient', [
        { path: options.apiKey ? 'apiSecret' : 'apiKey', message: 'registry credentials are required' },
      ]);
    this.environment = options.environment;
    this.baseUrl = checkedUrl.baseUrl;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    const pool = (connections: number) =>
      new Pool(checkedUrl.origin, {
        connections,
        keepAliveTimeout: 30_000,
        keepAliveMaxTimeout: 120_000,
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
      });
    const reads = options.dispatcher ?? pool(READ_CONNECTIONS);
    const writes = options.dispatcher ?? pool(WRITE_CONNECTIONS);
    this.#pools = options.dispatcher ? [] : [reads, writes];
    this.#http = new RegistryTransport({
      account: options.account,
      origin: checkedUrl.origin,
      basePath: checkedUrl.basePath,
      authorization: `Basic ${Buffer.from(`${options.apiKey}:${options.apiSecret}`).toString('base64')}`,
      dispatcher: reads,
      writeDispatcher: writes.compose(sendByInterceptor()),
      limiter:
        options.rateLimits === false
          ? undefined
          : rateLimiterFor(
              rateLimiterKey(options.environment, this.baseUrl, options.apiKey),
              options.rateLimits ?? DEFAULT_RATE_LIMITS,
            ),
      timeoutMs: this.timeoutMs,
      maxRateLimitRetries: options.maxRateLimitRetries ?? 8,
    });
    this.#createAttempts = Math.max(1, options.createAttempts ?? 3);
    this.#pageSize = options.pageSize ?? 100;
  }

  /** Closes the client's own connection pools (not a dispatcher passed in). */
  async close(): Promise<void> {
    await Promise.all(this.#pools.map((p) => p.close()));
  }

  [inspect.custom](): string {
    return `RegistryClient { environment: '${this.environment}', baseUrl: '${this.baseUrl}' }`;
  }

  toJSON(): { environment: RegistryEnvironment; baseUrl: string } {
    return { environment: this.environment, baseUrl: this.baseUrl };
  }

  protected async createOnce<E, C, R>(
    lookup: () => Promise<E | undefined>,
    create: () => Promise<C>,
    fromExisting: (existing: E) => R,
    fromCreated: (created: C) => R,
  ): Promise<R> {
    const before = await lookup();
    if (before !== undefined) return fromExisting(before);
    let lastError: unknown;
    for (let attempt = 1; attempt <= this.#createAttempts; attempt++) {
      try {
        return fromCreated(await create());
      } catch (err) {
        lastError = err;
        const ambiguous =
          err instanceof RegistryError && err.mayHaveCommitted && !(err instanceof RegistryAbortedError);
        // A 400 naming referenceId: the registry says the reference is taken (the simulator does this for campaigns).
        const duplicate =
          err instanceof RegistryValidationError &&
          !(err instanceof RegistryInternalError) &&
          err.fields.some((f) => f === 'referenceId' || f.endsWith('.referenceId'));
        if (!ambiguous && !duplicate) throw err;
        const after = await lookup();
        if (after !== undefined) return fromExisting(after);
        if (duplicate) throw err;
      }
    }
    throw lastError;
  }

  /**
   * The record listed with this `referenceId`, if any. The spec documents no `referenceId` filter: the
   * query asks for it (a registry that honours it answers in one read), and a first page holding any
   * other record means it was ignored: then every page is matched client-side, the first page read
   * counting as the walk's first. `fetchPage` may add documented filters that shorten the scan (a
   * campaign's `brandId`).
   */
  protected async findByReference<T extends { referenceId?: string | null | undefined }>(
    referenceId: string,
    fetchPage: (query: { referenceId?: string; recordsPerPage: number; page: number }) => Promise<Page<T>>,
  ): Promise<T | undefined> {
    if (typeof referenceId !== 'string' || referenceId.length === 0)
      throw new RegistryRequestInvalidError('findByReference', [
        { path: 'referenceId', message: 'referenceId is required' },
      ]);
    const first = await fetchPage({ referenceId, recordsPerPage: this.#pageSize, page: 1 });
    const match = first.records.find((r) => r.referenceId === referenceId);
    if (match || first.records.length === 0) return match;
    // The filter was ignored (page 1 holds other records): match client-side over every page.
    for await (const record of this.#walk(fetchPage, { referenceId }, startPosition(this.#pageSize), first))
      if (record.referenceId === referenceId) return record;
    return undefined;
  }

  /**
   * Every record of a list, page by page from `query.page` (default 1), by ./paging.ts: more is
   * decided from totalRecords and the records each page held, never from the size asked (the spec
   * shows no maximum `recordsPerPage`: a registry may cap it). A walk that would not end within its
   * bound throws RegistryResponseInvalidError rather than answer from part of the list.
   */
  protected paginate<T, Q extends { page?: number; recordsPerPage?: number }>(
    fetchPage: (query: Q) => Promise<Page<T>>,
    query: Q,
  ): AsyncGenerator<T> {
    return this.#walk(
      fetchPage,
      query,
      startPosition(query.recordsPerPage ?? this.#pageSize, query.page ?? 1),
    );
  }

  async *#walk<T, Q extends object>(
    fetchPage: (query: Q & { page: number; recordsPerPage: number }) => Promise<Page<T>>,
    query: Q,
    start: PagePosition,
    firstPage?: Page<T>,
  ): AsyncGenerator<T> {
    let position = start;
    let prefetched = firstPage;
    for (;;) {
      const { page, recordsPerPage, skip } = pageRequest(position);
      const result = prefetched ?? (await fetchPage({ ...query, page, recordsPerPage }));
      prefetched = undefined;
      for (const record of result.records.slice(skip)) yield record;
      const step = afterPage(position, {
        returned: result.records.length,
        totalRecords: result.totalRecords,
      });
      if (step.done && step.why === 'bound')
        throw new RegistryResponseInvalidError([
          {
            path: 'totalRecords',
            message: `the list did not end within ${position.pages + 1} pages (totalRecords ${result.totalRecords} at page ${page})`,
          },
        ]);
      if (step.done) return;
      position = step.next;
    }
  }

  protected get<S extends z.ZodType | undefined>(
    path: string,
    schema: S,
    query: SendOptions<S>['query'],
    opts: CallOptions,
  ): Promise<S extends z.ZodType ? z.output<S> : unknown> {
    return this.#http.send('GET', path, { schema, query, signal: opts.signal });
  }

  protected send<S extends z.ZodType | undefined>(
    method: HttpMethod,
    path: string,
    options: SendOptions<S>,
  ): Promise<S extends z.ZodType ? z.output<S> : unknown> {
    return this.#http.send(method, path, options);
  }
}
