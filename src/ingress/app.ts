/**
 * The ingress's HTTP apps, built apart from their listeners: the webhook route (verify, dedupe, hand
 * off, answer) and the health and metrics routes. ./server.ts listens with them; tests can drive them
 * with `app.inject()` and a fake hand-off. See docs/ingress.md for answers, routing and metrics.
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import { SpanKind, trace } from '@opentelemetry/api';
import type { Client } from '@temporalio/client';
import Fastify, {
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  LogController,
  type RawServerDefault,
} from 'fastify';
import type { Logger } from 'pino';
import type { RegistryEventDelivery } from '../contracts/signals.js';
import { type RegistryEvent, RegistryEventSchema } from '../registry/events.js';
import { RecentSet, TokenBuckets } from './bounded.js';
import type { IngressConfig } from './config.js';
import { guardConnections } from './connection-guard.js';
import { permanentHandoffCode } from './handoff-errors.js';
import { registerInternalRoutes } from './internal-routes.js';
import type { IngressMetrics, RejectReason } from './metrics.js';
import { EventRouter, type RouteOutcome } from './router.js';
import {
  canonicalJson,
  decodeDigest,
  deliveryIdOf,
  SIGNATURE_HEADER,
  verifyingAccount,
} from './signature.js';
import { SourceAddressPolicy, sourceKey } from './source-addresses.js';
import { openAllowListWarning, SIGNATURE_FAILURE_FROM_ALLOWED } from './warnings.js';

/** What the webhook POST answers on 2xx. */
export interface IngressAck {
  outcome: 'signalled' | 'parked' | 'duplicate' | 'ignored' | 'invalid' | 'dead_letter';
  deliveryId: string;
  workflowId?: string;
}

class HandoffTimeoutError extends Error {
  constructor(ms: number) {
    super(`hand-off to Temporal did not finish within ${ms} ms`);
    this.name = 'HandoffTimeoutError';
  }
}

/** How often a misconfiguration warning repeats at most. */
const WARN_EVERY_MS = 60_000;

/** The webhook URL for logs: scheme, host and path; a query or user info (a token) is never logged. */
export function loggableUrl(value: string): string {
  const url = new URL(value);
  return `${url.protocol}//${url.host}${url.pathname}${url.search ? '?…' : ''}`;
}

/**
 * Hands one verified delivery to a workflow of `account` (the account whose secret verified it),
 * finishing by `deadline` (epoch ms).
 */
export type HandOff = (
  delivery: RegistryEventDelivery,
  deadline: number,
  account: string,
) => Promise<RouteOutcome>;

/**
 * How long the edge answers an exact duplicate itself: ten minutes covers the registry's first four
 * retries after a lost answer (61, 137, 278 and 594 s) and concurrent duplicates. Later ones reach the
 * owner workflow, whose dedupe (26 h, forgetting what an operator acknowledged) decides.
 */
export const RECENT_DELIVERY_MS = 10 * 60_000;

export interface IngressAppOptions {
  config: IngressConfig;
  /** The Temporal client: /readyz asks it, and the default hand-off routes with it. */
  client: Client;
  logger: Logger;
  metrics: IngressMetrics;
  /** How many delivery ids are remembered for duplicate detection (default 10,000). */
  recentDeliveries?: number;
  /**
   * How long a delivery id is remembered (default RECENT_DELIVERY_MS). Kept short: an id is a hash of
   * the body, and a later identical body can be a new event (a second nudge), which only the owner
   * workflow can tell from a retry.
   */
  recentDeliveryMs?: number;
  /** The clock of the duplicate cache (tests). */
  now?: () => number;
  /** The hand-off; default: an EventRouter over `client`, under the deadline. Tests inject a fake. */
  handOff?: HandOff;
}

export interface IngressApp {
  /** The webhook route (and the health routes when they are public). */
  app: ReturnType<typeof Fastify>;
  /** The health and metrics routes on their own listener, when configured so. */
  internal: ReturnType<typeof Fastify> | undefined;
  /** From now on deliveries are answered like a failed hand-off: the ingress is closing. */
  beginClosing(): void;
}

/** The ingress's spans (a no-op unless tracing is on: src/observability/tracing.ts). */
const tracer = trace.getTracer('tcr-ingress');

export function buildIngressApp(options: IngressAppOptions): IngressApp {
  const { config, client, logger, metrics } = options;
  const policy = new SourceAddressPolicy(config.allow, config.trustedProxies);
  const route: HandOff =
    options.handOff ??
    (() => {
      const router = new EventRouter({
        client,
        parkedTaskQueue: config.parkedTaskQueue,
        parkedRetentionMs: config.parkedRetentionMs,
      });
      return (delivery, deadline, account) =>
        client.withDeadline(deadline, () => router.route(delivery, account));
    })();
  const recent = new RecentSet<string>(
    options.recentDeliveries ?? 10_000,
    options.recentDeliveryMs ?? RECENT_DELIVERY_MS,
    options.now,
  );
  const inFlight = new Map<string, Promise<RouteOutcome>>();
  const rateLimit = new TokenBuckets<string>(config.rateLimit, config.rateBurst);

  let closing = false;
  /**
   * Answers sent once closing began end their connection. Closing the server closes the connections
   * idle at that moment; one with a request in flight would otherwise stay open after its answer
   * until its keep-alive timeout (72 s on the internal listener, from a monitor's /readyz), and the
   * close with it.
   */
  const closeConnectionsWhenClosing = (
    instance: FastifyInstance<RawServerDefault, IncomingMessage, ServerResponse, Logger>,
  ) => {
    instance.addHook('onSend', async (_request, reply, payload) => {
      if (closing) reply.header('connection', 'close');
      return payload;
    });
  };
  const app = Fastify({
    loggerInstance: logger,
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: config.bodyLimit,
    trustProxy: false,
    // Closing answers like a failed hand-off (see below), not with a 503 that uses up a retry.
    return503OnClosing: false,
    // Slow clients: headers and body must arrive within the request timeout (checked every second,
    // not Node's default 30 s), a silent connection is closed, and a kept-alive one soon after.
    requestTimeout: config.requestTimeoutMs,
    connectionTimeout: config.idleTimeoutMs,
    keepAliveTimeout: config.keepAliveTimeoutMs,
    maxRequestsPerSocket: config.maxRequestsPerSocket,
    http: {
      requestTimeout: config.requestTimeoutMs,
      headersTimeout: config.requestTimeoutMs,
      connectionsCheckingInterval: Math.min(1_000, config.requestTimeoutMs),
    },
  });
  closeConnectionsWhenClosing(app);
  guardConnections(app.server, {
    maxConnections: config.maxConnections,
    maxPerAddress: config.maxConnectionsPerAddress,
    policy,
    metrics,
  });
  app.server.on('clientError', (error: Error & { code?: string }) => {
    if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') metrics.requestTimedOut();
  });

  // Misconfiguration that does not stop the ingress but must not go unnoticed.
  metrics.setAllowListOn(policy.allowListOn);
  const openWarning = openAllowListWarning(config);
  if (openWarning) logger.warn({ host: config.host }, openWarning);
  let lastAllowedFailureWarning = Number.NEGATIVE_INFINITY;
  const signatureFailedFromAllowed = (clientAddress: string) => {
    metrics.signatureFailureFromAllowed();
    const now = performance.now();
    if (now - lastAllowedFailureWarning < WARN_EVERY_MS) return;
    lastAllowedFailureWarning = now;
    logger.error(
      { ip: clientAddress, webhookUrl: loggableUrl(config.webhookUrl) },
      SIGNATURE_FAILURE_FROM_ALLOWED,
    );
  };

  /** A failed hand-off: close the connection unanswered (a network error, retried without expiry) or 503. */
  const answerHandoffFailure = (reply: FastifyReply, body: Record<string, unknown>) => {
    if (config.handoffFailure === '503') return reply.code(503).send(body);
    reply.hijack();
    reply.raw.socket?.destroy();
    return reply;
  };

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

  if (config.internal.mode === 'public') registerInternalRoutes(app, { client, metrics });

  const reject = (
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    reason: RejectReason,
    clientAddress: string,
  ) => {
    metrics.eventRejected(reason);
    trace.getActiveSpan()?.setAttributes({ 'tcr.ingress.outcome': 'rejected', 'tcr.ingress.reason': reason });
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
      if (closing) return answerHandoffFailure(reply, { error: 'closing' });
      metrics.eventReceived();
      const clientAddress = policy.clientAddress(
        request.socket.remoteAddress ?? '',
        request.headers['x-forwarded-for'],
      );
      if (!policy.allowed(clientAddress))
        return reject(request, reply, 403, 'forbidden_source', clientAddress);
      // Per source (IPv6 per /64); a verified delivery gives its token back (handleWebhook), so the
      // limit binds only sources whose requests cost a parse and an HMAC for nothing.
      if (!rateLimit.take(sourceKey(clientAddress))) {
        metrics.requestRateLimited();
        return reply.code(429).header('retry-after', '1').send({ error: 'rate_limited' });
      }
      const mediaType = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
      if (mediaType !== 'application/json') {
        return reject(request, reply, 415, 'unsupported_media_type', clientAddress);
      }
    },
    // One span per delivery that reaches the handler (tracing on): the hand-off's signal is its child,
    // and so, through the workflow it wakes, the registry read it causes (src/observability/tracing.ts).
    handler: (request, reply) =>
      tracer.startActiveSpan('ingress webhook', { kind: SpanKind.SERVER }, async (span) => {
        try {
          return await handleWebhook(request, reply);
        } finally {
          span.setAttribute('http.response.status_code', reply.raw.headersSent ? reply.statusCode : 0);
          span.end();
        }
      }),
  });

  async function handleWebhook(request: FastifyRequest, reply: FastifyReply) {
    const started = performance.now();
    // Needed only to log a rejection (onRequest already applied the allow-list).
    const clientAddress = () =>
      policy.clientAddress(request.socket.remoteAddress ?? '', request.headers['x-forwarded-for']);
    const signature = request.headers[SIGNATURE_HEADER];
    if (typeof signature !== 'string' || signature.trim() === '') {
      return reject(request, reply, 401, 'signature_missing', clientAddress());
    }
    // The digest's shape is checked before the body costs a parse.
    if (decodeDigest(signature) === undefined) {
      return reject(request, reply, 401, 'signature_malformed', clientAddress());
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
    // The account whose secret verified the event: it is delivered to that account's workflows only.
    const account = verifyingAccount(signature, config.accountSecrets, config.webhookUrl, canonical);
    if (account === undefined) {
      const from = clientAddress();
      if (policy.allowListOn) signatureFailedFromAllowed(from);
      return reject(request, reply, 401, 'signature_invalid', from);
    }
    metrics.eventVerified();
    rateLimit.give(sourceKey(clientAddress()));
    const deliveryId = deliveryIdOf(canonical);
    // Deliveries are remembered per account: the same body verified for another account is its own.
    const deliveryKey = `${account}\u0000${deliveryId}`;

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
    trace
      .getActiveSpan()
      ?.setAttributes({ 'tcr.event.type': event.eventType, 'tcr.delivery.id': deliveryId });
    const logFields = {
      eventType: event.eventType,
      deliveryId,
      account,
      brandId: event.brandId,
      brandReferenceId: event.brandReferenceId,
      campaignId: event.campaignId,
      campaignReferenceId: event.campaignReferenceId,
    };

    // An event of another CSP (its cspId is not the verifying account's): acknowledged so the queue
    // moves on, recorded, never delivered (a secret shared across environments must not cross them).
    const cspId = config.accounts.find((a) => a.name === account)?.cspId;
    if (event.cspId !== undefined && cspId !== undefined && event.cspId !== cspId) {
      metrics.eventRejected('csp_mismatch');
      trace.getActiveSpan()?.setAttribute('tcr.ingress.outcome', 'ignored');
      logger.warn(
        { ...logFields, outcome: 'ignored', reason: 'csp_mismatch', cspId: event.cspId },
        "verified webhook names another CSP's cspId than the verifying account's; acknowledged, not delivered",
      );
      return reply.code(200).send({ outcome: 'ignored', deliveryId } satisfies IngressAck);
    }

    if (recent.has(deliveryKey)) {
      metrics.eventDuplicate();
      logger.info({ ...logFields, outcome: 'duplicate' }, 'duplicate webhook acknowledged');
      return reply.code(200).send({ outcome: 'duplicate', deliveryId } satisfies IngressAck);
    }

    const delivery: RegistryEventDelivery = { event, receivedAt: new Date().toISOString(), deliveryId };
    let outcome: RouteOutcome;
    try {
      outcome = await handOff(delivery, account, deliveryKey);
    } catch (error) {
      const permanent = permanentHandoffCode(error);
      if (permanent !== undefined) return deadLetter(reply, permanent, deliveryId, deliveryKey, logFields);
      metrics.handoffFailed();
      trace.getActiveSpan()?.setAttribute('tcr.ingress.outcome', 'handoff_failed');
      logger.error(
        {
          ...logFields,
          outcome: 'handoff_failed',
          ms: Math.round(performance.now() - started),
          error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
        },
        config.handoffFailure === '503'
          ? 'hand-off to Temporal failed; answering 503 so the registry retries'
          : 'hand-off to Temporal failed; closing the connection so the registry retries without expiry',
      );
      return answerHandoffFailure(reply, { error: 'hand-off failed', deliveryId });
    }
    const seconds = (performance.now() - started) / 1000;
    metrics.handoffLatency(seconds);
    recent.add(deliveryKey);
    const ack: IngressAck = { outcome: outcome.action, deliveryId };
    trace.getActiveSpan()?.setAttribute('tcr.ingress.outcome', outcome.action);
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
  }

  /**
   * A delivery Temporal refused for what it is (permanentHandoffCode): retrying can only fail again
   * while the account's queue waits behind it, so it is acknowledged, counted and logged as a dead
   * letter: its type and ids (cut to 100 characters), never its free text (docs/ingress.md).
   */
  function deadLetter(
    reply: FastifyReply,
    code: string,
    deliveryId: string,
    deliveryKey: string,
    fields: Record<string, string | undefined>,
  ) {
    metrics.handoffDeadLetter(code);
    recent.add(deliveryKey);
    trace.getActiveSpan()?.setAttribute('tcr.ingress.outcome', 'dead_letter');
    reply.code(200).send({ outcome: 'dead_letter', deliveryId } satisfies IngressAck);
    const cut = Object.fromEntries(
      Object.entries(fields).map(([k, v]) => [
        k,
        v !== undefined && v.length > 100 ? `${v.slice(0, 100)}…` : v,
      ]),
    );
    logger.error(
      { ...cut, outcome: 'dead_letter', code },
      'Temporal refused the delivery permanently; acknowledged so the registry stops retrying it (dead letter)',
    );
    return reply;
  }

  /** One hand-off per delivery id at a time (concurrent exact duplicates share it), under a deadline. */
  function handOff(delivery: RegistryEventDelivery, account: string, key: string): Promise<RouteOutcome> {
    const running = inFlight.get(key);
    if (running) return running;
    const deadline = Date.now() + config.handoffTimeoutMs;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, rejectTimeout) => {
      timer = setTimeout(
        () => rejectTimeout(new HandoffTimeoutError(config.handoffTimeoutMs)),
        config.handoffTimeoutMs,
      );
    });
    const work = route(delivery, deadline, account);
    const promise = Promise.race([work, timeout]).finally(() => {
      clearTimeout(timer);
      inFlight.delete(key);
    });
    work.catch(() => {}); // a late failure after the timeout answered is already logged as a timeout
    inFlight.set(key, promise);
    return promise;
  }

  let internal: ReturnType<typeof Fastify> | undefined;
  if (config.internal.mode === 'listener') {
    internal = Fastify({
      loggerInstance: logger,
      logController: new LogController({ disableRequestLogging: true }),
    });
    closeConnectionsWhenClosing(internal);
    registerInternalRoutes(internal, { client, metrics });
  }
  return {
    app,
    internal,
    beginClosing: () => {
      closing = true;
    },
  };
}
