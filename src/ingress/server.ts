import type { AddressInfo } from 'node:net';
import type { Client } from '@temporalio/client';
import { type Logger, pino } from 'pino';
import { buildIngressApp, loggableUrl } from './app.js';
import type { IngressConfig } from './config.js';
import { IngressMetrics } from './metrics.js';

export interface StartIngressOptions {
  config: IngressConfig;
  /** A connected Temporal client for the namespace the workflows run in. */
  client: Client;
  /** Structured logger; defaults to pino on stdout at config.logLevel. */
  logger?: Logger;
  /** How many recent delivery ids the edge remembers to skip exact duplicates (default 10 000). */
  recentDeliveries?: number;
}

export interface RunningIngress {
  /** Base URL the server listens on, e.g. http://127.0.0.1:8470 */
  url: string;
  /** url + config.path: where this instance receives events (not necessarily the registered URL). */
  endpoint: string;
  /** Base URL of /healthz, /readyz and /metrics: the internal listener, or `url` when they are public; undefined when off. */
  internalUrl: string | undefined;
  metrics: IngressMetrics;
  close(): Promise<void>;
}

/**
 * The default log destination: stdout through a 4 KB buffer, written when full and at least every
 * second, and on close or exit. One write per event cost the event path a system call each (about
 * 0.1 ms of CPU on the benchmark machine); a crash loses at most the last second of lines, while
 * the events themselves are already in Temporal.
 */
function bufferedStdout(): { destination: ReturnType<typeof pino.destination>; close(): void } {
  const destination = pino.destination({ dest: 1, sync: false, minLength: 4096 });
  const timer = setInterval(() => destination.flush(), 1_000).unref();
  return {
    destination,
    close: () => {
      clearInterval(timer);
      destination.flushSync();
    },
  };
}

function baseUrl(address: AddressInfo): string {
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}`;
}

/**
 * Starts the webhook ingress: verifies signed registry events and hands each to its workflow,
 * answering 2xx once Temporal accepted it. See docs/ingress.md for answers, routing and metrics.
 */
export async function startIngress(options: StartIngressOptions): Promise<RunningIngress> {
  const { config, client } = options;
  const log = options.logger ? undefined : bufferedStdout();
  const logger =
    options.logger ?? pino({ level: config.logLevel, base: { component: 'ingress' } }, log?.destination);
  const metrics = new IngressMetrics();
  const { app, internal, beginClosing } = buildIngressApp({
    config,
    client,
    logger,
    metrics,
    recentDeliveries: options.recentDeliveries,
  });
  try {
    await app.listen({ host: config.host, port: config.port });
    if (internal && config.internal.mode === 'listener') {
      await internal.listen({ host: config.internal.host, port: config.internal.port });
    }
  } catch (error) {
    await Promise.allSettled([app.close(), internal?.close()]);
    log?.close();
    throw error;
  }
  const url = baseUrl(app.server.address() as AddressInfo);
  const internalUrl = internal
    ? baseUrl(internal.server.address() as AddressInfo)
    : config.internal.mode === 'public'
      ? url
      : undefined;
  logger.info(
    { url, path: config.path, webhookUrl: loggableUrl(config.webhookUrl), internalUrl },
    'ingress listening',
  );
  return {
    url,
    endpoint: `${url}${config.path}`,
    internalUrl,
    metrics,
    close: async () => {
      beginClosing();
      await Promise.all([app.close(), internal?.close()]);
      log?.close();
    },
  };
}
