import type { AddressInfo } from 'node:net';
import { registerBrandJobs } from './brands.js';
import { registerCampaignJobs } from './campaigns.js';
import { Scheduler, SimClock } from './clock.js';
import { DEFAULT_DELAYS, SimContext, type SimulatorAccount, type SimulatorDelays } from './context.js';
import { controlRoutes } from './control.js';
import { Faults } from './faults.js';
import { RateLimiter, type RateLimits, SPEC_RATE_LIMITS } from './rate-limit.js';
import { registryRoutes } from './registry-routes.js';
import { createHttpServer } from './server.js';
import { registerSharingJobs } from './sharing.js';
import { Store } from './state.js';
import { registerVettingJobs } from './vetting.js';
import { WebhookDispatcher } from './webhooks.js';

export type { SimulatorAccount, SimulatorDelays } from './context.js';
export { DEFAULT_DELAYS } from './context.js';
export { ErrorCode } from './errors.js';
export { EVENT_CATEGORIES } from './events.js';
export { RETRY_SCHEDULE_SECONDS } from './webhooks.js';

export interface SimulatorOptions {
  host?: string;
  port?: number;
  accounts?: SimulatorAccount[];
  stateFile?: string;
  timeScale?: number;
  rateLimits?: RateLimits | false;
  now?: () => Date;
  /** Scenario delays in simulated seconds (defaults: DEFAULT_DELAYS). */
  delays?: Partial<SimulatorDelays>;
  /** Real milliseconds a webhook endpoint has to answer before the attempt counts as a timeout (default 10000). */
  webhookTimeoutMs?: number;
  /** When set, the control API requires `Authorization: Bearer <controlToken>`. */
  controlToken?: string;
  /**
   * The most records any list page holds, whatever `recordsPerPage` asks (a positive integer; default:
   * no cap). `page` then counts pages of min(asked, cap) records; `totalRecords` stays the real count.
   */
  maxRecordsPerPage?: number;
  /** The /v2 API answers only the fields and honours only the filters the spec documents. */
  strict?: boolean;
}

export interface RunningSimulator {
  url: string;
  apiBaseUrl: string;
  close(): Promise<void>;
}

export const DEFAULT_ACCOUNT: SimulatorAccount = {
  cspId: 'CSPLOCAL',
  apiKey: 'local-api-key',
  apiSecret: 'local-api-secret',
};

export async function startSimulator(options: SimulatorOptions = {}): Promise<RunningSimulator> {
  const accounts = options.accounts ?? [DEFAULT_ACCOUNT];
  if (accounts.length === 0) throw new Error('the simulator needs at least one account');
  const cap = options.maxRecordsPerPage;
  if (cap !== undefined && (!Number.isInteger(cap) || cap < 1))
    throw new Error(`maxRecordsPerPage must be a positive integer, got ${cap}`);
  if (new Set(accounts.map((a) => a.apiKey)).size !== accounts.length)
    throw new Error('simulator accounts need distinct API keys');
  const source = options.now ? () => options.now!().getTime() : () => Date.now();
  let clockRef: SimClock | undefined;
  const store = new Store(options.stateFile, () => clockRef?.offsetMs() ?? 0);
  const clock = new SimClock(source, options.timeScale ?? 1, store.state.clockOffsetMs);
  clockRef = clock;
  const scheduler = new Scheduler(clock);
  const faults = new Faults();
  const ctx = new SimContext(
    store,
    clock,
    scheduler,
    faults,
    accounts,
    { ...DEFAULT_DELAYS, ...options.delays },
    options.webhookTimeoutMs ?? 10_000,
  );
  ctx.api = {
    strict: options.strict === true,
    ...(options.maxRecordsPerPage !== undefined ? { maxRecordsPerPage: options.maxRecordsPerPage } : {}),
  };
  const webhooks = new WebhookDispatcher(ctx);
  ctx.events = webhooks;
  registerBrandJobs(ctx);
  registerVettingJobs(ctx);
  registerCampaignJobs(ctx);
  registerSharingJobs(ctx);
  for (const account of accounts) store.account(account.cspId);
  for (const job of store.state.jobs) ctx.arm(job);

  const limits = options.rateLimits === undefined ? SPEC_RATE_LIMITS : options.rateLimits;
  let limiter = new RateLimiter(limits);
  const reset = () => {
    store.reset();
    for (const account of accounts) store.account(account.cspId);
    faults.clear();
    limiter = new RateLimiter(limits);
    clock.set(new Date(source()));
  };
  const server = createHttpServer(ctx, registryRoutes(ctx), controlRoutes(ctx, { reset }), () => limiter, {
    listenHost: options.host ?? '127.0.0.1',
    ...(options.controlToken !== undefined ? { token: options.controlToken } : {}),
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  webhooks.resumeAll();
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${host}:${address.port}`;
  let closing: Promise<void> | undefined;
  return {
    url,
    apiBaseUrl: `${url}/v2`,
    close() {
      closing ??= new Promise<void>((resolve) => {
        webhooks.close();
        scheduler.close();
        store.flush(true);
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
