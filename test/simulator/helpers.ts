import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SimulatorControl } from '../../src/simulator/control-client.js';
import {
  DEFAULT_ACCOUNT,
  type RunningSimulator,
  type SimulatorOptions,
  startSimulator,
} from '../../src/simulator/index.js';
import { privateBrandFields, publicProfitBrandFields } from '../support/brand-fixtures.js';

/** Response bodies in tests are arbitrary JSON, read field by field. */
// biome-ignore lint/suspicious/noExplicitAny: JSON under test is inspected dynamically
export type Json = any;

export interface Api {
  sim: RunningSimulator;
  control: SimulatorControl;
  call(
    method: string,
    path: string,
    body?: unknown,
    creds?: { apiKey: string; apiSecret: string },
  ): Promise<{ status: number; body: Json; headers: Headers }>;
  close(): Promise<void>;
}

export async function startApi(options: SimulatorOptions = {}): Promise<Api> {
  const sim = await startSimulator({ rateLimits: false, ...options });
  const control = new SimulatorControl(sim.url);
  return {
    sim,
    control,
    async call(method, path, body, creds = DEFAULT_ACCOUNT) {
      const response = await fetch(`${sim.apiBaseUrl}${path}`, {
        method,
        headers: {
          authorization: `Basic ${Buffer.from(`${creds.apiKey}:${creds.apiSecret}`).toString('base64')}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      return {
        status: response.status,
        body: text ? JSON.parse(text) : undefined,
        headers: response.headers,
      };
    },
    close: () => sim.close(),
  };
}

export function privateBrand(overrides: Record<string, unknown> = {}) {
  return privateBrandFields(overrides);
}

export const publicBrand = publicProfitBrandFields;

export function soleBrand(overrides: Record<string, unknown> = {}) {
  return {
    entityType: 'SOLE_PROPRIETOR',
    displayName: 'Jane Plumbing',
    mobilePhone: '+12025550199',
    street: '2 Side St',
    city: 'Austin',
    state: 'TX',
    postalCode: '73301',
    country: 'US',
    email: 'jane@plumbing.example',
    ...overrides,
  };
}

export function campaignBody(brandId: string, overrides: Record<string, unknown> = {}) {
  return {
    brandId,
    usecase: 'ACCOUNT_NOTIFICATION',
    description: 'Account notifications for Acme customers about orders and billing.',
    sample1: 'Your Acme order 123 has shipped. Reply STOP to opt out.',
    sample2: 'Your Acme invoice is ready. Reply HELP for help.',
    messageFlow: 'Customers opt in at checkout on acme.example.',
    subscriberOptin: true,
    subscriberOptout: true,
    subscriberHelp: true,
    helpMessage: 'Acme: help at acme.example/help',
    optoutMessage: 'Acme: you are unsubscribed.',
    optinMessage: 'Acme: you are subscribed.',
    optinKeywords: 'START',
    optoutKeywords: 'STOP',
    helpKeywords: 'HELP',
    ...overrides,
  };
}

export interface ReceivedWebhook {
  url: string;
  headers: IncomingHttpHeaders;
  raw: string;
  body: Record<string, unknown>;
  at: number;
}

/** A webhook receiver whose answer is decided per request by `respond` (status code, or 'hang'/'reset'). */
export async function startReceiver(
  respond: (hook: ReceivedWebhook, index: number) => number | 'reset' = () => 200,
) {
  const received: ReceivedWebhook[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const hook = {
        url: req.url ?? '/',
        headers: req.headers,
        raw,
        body: JSON.parse(raw),
        at: performance.now(),
      };
      received.push(hook);
      const answer = respond(hook, received.length - 1);
      if (answer === 'reset') {
        req.socket.destroy();
        return;
      }
      res.writeHead(answer);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export async function until<T>(
  probe: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 25_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
