/**
 * A small stateful registry double on undici's MockAgent, for the client's tests when the simulator is
 * not used: brands and campaigns with referenceId filters and paging, a server-side sliding-window write
 * limit answering 429, a record of every request, and one-shot faults that commit a create and then
 * answer too late (timeout-after-commit). It is a test double, not the simulator.
 */
import { MockAgent } from 'undici';
import { RegistryClient, type RegistryClientOptions } from '../../../src/registry/client.js';

export const MOCK_ORIGIN = 'https://registry.mock.test';
export const MOCK_KEY = 'mock-key';
export const MOCK_SECRET = 'mock-secret-value';
/**
 * A registry client talking to `registry` (its MockAgent as the dispatcher) with the mock's
 * credentials; no client-side limiter and a 1.5 s timeout (answers are in-process; 5x the old 300 ms) unless `extra` says otherwise.
 */
export function mockRegistryClient(
  registry: MockRegistry,
  extra: Partial<RegistryClientOptions> = {},
): RegistryClient {
  return new RegistryClient({
    environment: 'qa',
    baseUrl: MOCK_ORIGIN,
    allowedHosts: [new URL(MOCK_ORIGIN).hostname],
    apiKey: MOCK_KEY,
    apiSecret: MOCK_SECRET,
    dispatcher: registry.agent,
    rateLimits: false,
    timeoutMs: 1_500,
    ...extra,
  });
}

const expectedAuth = `Basic ${Buffer.from(`${MOCK_KEY}:${MOCK_SECRET}`).toString('base64')}`;

export interface RecordedRequest {
  method: string;
  path: string;
  body: unknown;
  authorization: string | undefined;
  at: number;
}

interface Reply {
  statusCode: number;
  data: string;
  responseOptions?: { headers?: Record<string, string> };
}

export interface MockRegistryOptions {
  /** Server-side write limit; default off. */
  writeLimit?: { limit: number; windowMs: number };
  /** When true the server ignores the referenceId filter (as a registry might). */
  ignoreReferenceFilter?: boolean;
  /** Omit referenceId from brand records. */
  hideBrandReference?: boolean;
}

export class MockRegistry {
  readonly agent = new MockAgent();
  readonly requests: RecordedRequest[] = [];
  readonly brands: Record<string, unknown>[] = [];
  readonly campaigns: Record<string, unknown>[] = [];
  readonly writeTimes: number[] = [];
  rateLimited = 0;
  private seq = 0;

  constructor(readonly options: MockRegistryOptions = {}) {
    this.agent.disableNetConnect();
  }

  /** Registers the catch-all handler; call after any one-shot faults so that those match first. */
  listen(): this {
    this.agent
      .get(MOCK_ORIGIN)
      .intercept({ path: () => true, method: () => true })
      .reply((opts) => this.handle(opts.method, opts.path, opts.body, opts.headers))
      .persist();
    return this;
  }

  /** One-shot fault: the next matching POST commits, then the reply comes after `delayMs` (beyond the client's timeout). */
  timeoutAfterCommit(path: '/v2/brand/nonBlocking' | '/v2/campaignBuilder', delayMs: number): void {
    let committed = false;
    this.agent
      .get(MOCK_ORIGIN)
      .intercept({
        path,
        method: 'POST',
        // undici may evaluate a matcher more than once per request: commit only once.
        body: (body: string) => {
          if (!committed) this.create(path, JSON.parse(body) as Record<string, unknown>);
          committed = true;
          return true;
        },
      })
      .reply(500, '[]')
      .delay(delayMs);
  }

  /** One-shot canned reply for a method and path. */
  cannedReply(
    method: string,
    path: string,
    statusCode: number,
    data: string,
    headers: Record<string, string> = {},
  ): void {
    this.agent.get(MOCK_ORIGIN).intercept({ path, method }).reply(statusCode, data, { headers });
  }

  /** One-shot connection error for a method and path. */
  networkError(method: string, path: string, error: Error): void {
    this.agent.get(MOCK_ORIGIN).intercept({ path, method }).replyWithError(error);
  }

  private create(path: string, body: Record<string, unknown>): Record<string, unknown> {
    this.seq += 1;
    if (path === '/v2/brand/nonBlocking') {
      const brand: Record<string, unknown> = {
        ...body,
        brandId: `B${String(this.seq).padStart(6, '0')}`,
        cspId: 'CSPMOCK',
        status: 'ACTIVE',
        identityStatus: 'UNVERIFIED',
        optionalAttributes: {},
        createDate: new Date().toISOString(),
        futureField: { kept: true },
      };
      if (this.options.hideBrandReference) delete brand.referenceId;
      this.brands.push(brand);
      return brand;
    }
    const campaign = { ...body, campaignId: `C${String(this.seq).padStart(6, '0')}`, status: 'ACTIVE' };
    this.campaigns.push(campaign);
    return { campaignId: campaign.campaignId, mnoMetadata: { '10017': { qualify: true, mno: 'AT&T' } } };
  }

  private page(records: Record<string, unknown>[], search: URLSearchParams): Reply {
    let list = records;
    const ref = search.get('referenceId');
    if (ref && !this.options.ignoreReferenceFilter) list = list.filter((r) => r.referenceId === ref);
    const brandId = search.get('brandId');
    if (brandId) list = list.filter((r) => r.brandId === brandId);
    const page = Number(search.get('page') ?? '1');
    const per = Number(search.get('recordsPerPage') ?? '10');
    return json(200, { records: list.slice((page - 1) * per, page * per), page, totalRecords: list.length });
  }

  private handle(method: string, fullPath: string, rawBody: unknown, headers: unknown): Reply {
    const url = new URL(fullPath, MOCK_ORIGIN);
    const auth = headerValue(headers, 'authorization');
    const body =
      typeof rawBody === 'string' && rawBody ? (JSON.parse(rawBody) as Record<string, unknown>) : undefined;
    const now = Date.now();
    this.requests.push({ method, path: fullPath, body, authorization: auth, at: now });
    if (auth !== expectedAuth) return json(401, [{ code: 521, description: 'unauthorized', fields: [] }]);
    if (method !== 'GET' && this.options.writeLimit) {
      const { limit, windowMs } = this.options.writeLimit;
      while (this.writeTimes.length > 0 && (this.writeTimes[0] ?? 0) <= now - windowMs)
        this.writeTimes.shift();
      if (this.writeTimes.length >= limit) {
        this.rateLimited += 1;
        return {
          ...json(429, [{ code: 522, description: 'rate limited', fields: [] }]),
          responseOptions: { headers: { 'retry-after': String(windowMs / 1000) } },
        };
      }
      this.writeTimes.push(now);
    }
    const p = url.pathname;
    if (method === 'POST' && (p === '/v2/brand/nonBlocking' || p === '/v2/campaignBuilder')) {
      if (p === '/v2/campaignBuilder' && this.campaigns.some((c) => c.referenceId === body?.referenceId))
        return json(400, [{ code: 509, description: 'duplicate referenceId', fields: ['referenceId'] }]);
      return json(200, this.create(p, body ?? {}));
    }
    if (method === 'GET' && p === '/v2/brand') return this.page(this.brands, url.searchParams);
    if (method === 'GET' && p === '/v2/campaign') return this.page(this.campaigns, url.searchParams);
    const brand = /^\/v2\/brand\/([^/]+)$/.exec(p);
    if (brand) {
      const found = this.brands.find((b) => b.brandId === brand[1]);
      if (!found)
        return json(404, [{ code: 503, description: `brand '${brand[1]}' not found`, fields: ['brandId'] }]);
      if (method === 'PUT') Object.assign(found, body);
      return json(200, found);
    }
    if (method === 'PUT' && /^\/v2\/brand\/[^/]+\/externalVetting$/.test(p))
      return json(200, { ...body, vettingStatus: 'ACTIVE', createDate: new Date().toISOString() });
    return json(404, { code: 523, description: `no route ${method} ${p}`, fields: [] });
  }
}

function headerValue(headers: unknown, name: string): string | undefined {
  if (!headers || typeof headers !== 'object') return undefined;
  if (Array.isArray(headers)) {
    for (let i = 0; i < headers.length; i += 2)
      if (String(headers[i]).toLowerCase() === name) return String(headers[i + 1]);
    return undefined;
  }
  for (const [k, v] of Object.entries(headers as Record<string, unknown>))
    if (k.toLowerCase() === name) return String(v);
  return undefined;
}

export function json(statusCode: number, data: unknown): Reply {
  return {
    statusCode,
    data: JSON.stringify(data),
    responseOptions: { headers: { 'content-type': 'application/json' } },
  };
}
