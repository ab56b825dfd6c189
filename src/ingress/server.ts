import type { AddressInfo } from 'node:net';
import type { Client } from '@temporalio/client';
import Fastify, { type FastifyReply, type FastifyRequest, LogController } from 'fastify';
import { type Logger, pino } from 'pino';
import { type RegistryEvent, RegistryEventSchema } from '../registry/events.js';
import type { RegistryEventDelivery } from '../workflows/signals.js';
import { RecentSet } from './bounded.js';
import type { IngressConfig } from './config.js';
import { IngressMetrics, type RejectReason } from './metrics.js';
import { EventRouter, type RouteOutcome } from './router.js';
import { canonicalJson, deliveryIdOf, SIGNATURE_HEADER, signatureMatches } from './signature.js';
import { SourceAddressPolicy } from './source-addresses.js';

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
  metrics: IngressMetrics;
  close(): Promise<void>;
}

/** What the webhook POST answers on 2xx. */
export interface IngressAck {
  outcome: 'signalled' | 'parked' | 'duplicate' | 'ignored' | 'invalid';
  deliveryId: string;
  workflowId?: string;
}

class HandoffTimeoutError extends Error {
  constructor(ms: number) {
    super(`hand-off to Temporal did not finish within ${ms} ms`);
    this.name = 'HandoffTimeoutError';
  }
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
  const policy = new SourceAddressPolicy(config.allow, config.trustedProxies);
  const router = new EventRouter({
    client,
    parkedTaskQueue: config.parkedTaskQueue,
    parkedRetentionMs: config.parkedRetentionMs,
  });
  const recent = new RecentSet<string>(options.recentDeliveries ?? 10_000);
  const inFlight = new Map<string, Promise<RouteOutcome>>();

  const app = Fastify({
    loggerInstance: logger,
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: config.bodyLimit,
    trustProxy: false,
    return503OnClosing: true,
  });

  // The raw body is ours: no framework JSON parsing, any content type is read as bytes and judged
  // by the route (415 unless the media type is application/json, whatever its parameters).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));

  app.setErrorHandler((error: Error & { statusCode?: number; code?: string }, request, reply) => {
    const status = error.statusCode ?? 500;
    if (status === 413) {
      metrics.eventRejected('body_too_large');
      logger.warn(
        { outcome: 'rejected', reason: 'body_too_large', ip: request.ip },
        'webhook body too large',
      );
      return reply.code(413).send({ error: 'body too large', limit: config.bodyLimit });
    }
    if (status >= 500) logger.error({ err: error }, 'ingress error');
    return reply.code(status).send({ error: status >= 500 ? 'internal error' : error.message });
  });

  app.get('/healthz', async () => ({ live: true }));

  app.get('/readyz', async (_request, reply) => {
    try {
      await client.withDeadline(Date.now() + 2_000, () => client.workflowService.getSystemInfo({}));
      return { ready: true };
    } catch {
      return reply.code(503).send({ ready: false, reason: 'Temporal is not reachable' });
    }
  });

  app.get('/metrics', async (_request, reply) =>
    reply.header('content-type', 'text/plain; version=0.0.4; charset=utf-8').send(metrics.render()),
  );

  const reject = (
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    reason: RejectReason,
    clientAddress: string,
  ) => {
    metrics.eventRejected(reason);
    logger.warn(
      { outcome: 'rejected', reason, status, ip: clientAddress, reqId: request.id },
      'webhook rejected',
    );
    return reply.code(status).send({ error: reason });
  };

  app.route({
    method: 'POST',
    url: config.path,
    onRequest: async (request, reply) => {
      metrics.eventReceived();
      const clientAddress = policy.clientAddress(
        request.socket.remoteAddress ?? '',
        request.headers['x-forwarded-for'],
      );
      if (!policy.allowed(clientAddress))
        return reject(request, reply, 403, 'forbidden_source', clientAddress);
      const mediaType = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
      if (mediaType !== 'application/json') {
        return reject(request, reply, 415, 'unsupported_media_type', clientAddress);
      }
    },
    handler: async (request, reply) => {
      const started = performance.now();
      // Needed only to log a rejection (onRequest already applied the allow-list).
      const clientAddress = () =>
        policy.clientAddress(request.socket.remoteAddress ?? '', request.headers['x-forwarded-for']);
      const signature = request.headers[SIGNATURE_HEADER];
      if (typeof signature !== 'string' || signature.trim() === '') {
        return reject(request, reply, 401, 'signature_missing', clientAddress());
      }
      const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      let parsed: unknown;
      let canonical: string;
      try {
        parsed = JSON.parse(raw.toString('utf8'));
        canonical = canonicalJson(parsed);
      } catch {
        return reject(request, reply, 400, 'not_json', clientAddress());
      }
      if (!signatureMatches(signature, config.secrets, config.webhookUrl, canonical)) {
        return reject(request, reply, 401, 'signature_invalid', clientAddress());
      }
      metrics.eventVerified();
      const deliveryId = deliveryIdOf(canonical);

      const checked = RegistryEventSchema.safeParse(parsed);
      if (!checked.success) {
        // Signed by the registry but not an event we understand: acknowledge so the account's queue
        // moves on, and record it.
        metrics.eventRejected('invalid_event');
        logger.warn(
          {
            outcome: 'invalid',
            deliveryId,
            issues: checked.error.issues.map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`),
          },
          'verified webhook is not a valid event; acknowledged and recorded',
        );
        return reply.code(200).send({ outcome: 'invalid', deliveryId } satisfies IngressAck);
      }
      // The object that was verified, not a re-parse or a copy.
      const event = parsed as RegistryEvent;
      const logFields = {
        eventType: event.eventType,
        deliveryId,
        brandId: event.brandId,
        brandReferenceId: event.brandReferenceId,
        campaignId: event.campaignId,
        campaignReferenceId: event.campaignReferenceId,
      };

      if (recent.has(deliveryId)) {
        metrics.eventDuplicate();
        logger.info({ ...logFields, outcome: 'duplicate' }, 'duplicate webhook acknowledged');
        return reply.code(200).send({ outcome: 'duplicate', deliveryId } satisfies IngressAck);
      }

      const delivery: RegistryEventDelivery = { event, receivedAt: new Date().toISOString(), deliveryId };
      let outcome: RouteOutcome;
      try {
        outcome = await handOff(delivery);
      } catch (error) {
        metrics.handoffFailed();
        logger.error(
          {
            ...logFields,
            outcome: 'handoff_failed',
            ms: Math.round(performance.now() - started),
            error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
          },
          'hand-off to Temporal failed; answering 503 so the registry retries',
        );
        return reply.code(503).send({ error: 'hand-off failed', deliveryId });
      }
      const seconds = (performance.now() - started) / 1000;
      metrics.handoffLatency(seconds);
      recent.add(deliveryId);
      const ack: IngressAck = { outcome: outcome.action, deliveryId };
      if (outcome.action === 'ignored') {
        metrics.eventIgnored();
      } else {
        ack.workflowId = outcome.workflowId;
        if (outcome.action === 'signalled') metrics.eventRouted(outcome.kind, outcome.via);
        else metrics.eventParked(outcome.kind, outcome.via);
      }
      // Answer first, then log: the registry's queue for this account waits on our answer, not on the log line.
      reply.code(200).send(ack);
      logger.info(
        { ...logFields, outcome: outcome.action, workflowId: ack.workflowId, ms: Math.round(seconds * 1000) },
        'webhook handed off',
      );
      return reply;
    },
  });

  /** One hand-off per delivery id at a time (concurrent exact duplicates share it), under a deadline. */
  function handOff(delivery: RegistryEventDelivery): Promise<RouteOutcome> {
    const running = inFlight.get(delivery.deliveryId);
    if (running) return running;
    const deadline = Date.now() + config.handoffTimeoutMs;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, rejectTimeout) => {
      timer = setTimeout(
        () => rejectTimeout(new HandoffTimeoutError(config.handoffTimeoutMs)),
        config.handoffTimeoutMs,
      );
    });
    const work = client.withDeadline(deadline, () => router.route(delivery));
    const promise = Promise.race([work, timeout]).finally(() => {
      clearTimeout(timer);
      inFlight.delete(delivery.deliveryId);
    });
    work.catch(() => {}); // a late failure after the timeout answered is already logged as a timeout
    inFlight.set(delivery.deliveryId, promise);
    return promise;
  }

  await app.listen({ host: config.host, port: config.port });
  const address = app.server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${host}:${address.port}`;
  logger.info({ url, path: config.path, webhookUrl: config.webhookUrl }, 'ingress listening');
  return {
    url,
    endpoint: `${url}${config.path}`,
    metrics,
    close: async () => {
      await app.close();
      log?.close();
    },
  };
}
