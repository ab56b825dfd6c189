import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Client } from '@temporalio/client';
import type { FastifyInstance, RawServerDefault } from 'fastify';
import type { Logger } from 'pino';
import type { IngressMetrics } from './metrics.js';

/** How long one readiness answer is reused: /readyz costs Temporal at most one call per second. */
const READY_CACHE_MS = 1_000;
/** gRPC NOT_FOUND: DescribeNamespace's answer for a namespace Temporal does not have. */
const NOT_FOUND = 5;

/**
 * GET /healthz, /readyz and /metrics, for the internal listener (or the public one when
 * TCR_INGRESS_INTERNAL_LISTEN=public). /readyz is ready when Temporal describes the client's
 * namespace (reachable is not enough: an ingress on a misspelled namespace fails every hand-off). It
 * asks Temporal at most once a second, however often it is called; concurrent calls share one request.
 */
export function registerInternalRoutes(
  app: FastifyInstance<RawServerDefault, IncomingMessage, ServerResponse, Logger>,
  options: { client: Client; metrics: IngressMetrics },
): void {
  const { client, metrics } = options;
  const namespace = client.options.namespace;
  let cached: { reason: string | undefined; at: number } | undefined;
  let pending: Promise<string | undefined> | undefined;
  /** Undefined when ready, else why not. */
  const notReady = (): Promise<string | undefined> => {
    if (cached && performance.now() - cached.at < READY_CACHE_MS) return Promise.resolve(cached.reason);
    pending ??= client
      .withDeadline(Date.now() + 2_000, () => client.workflowService.describeNamespace({ namespace }))
      .then(
        () => undefined,
        (error: { code?: number }) =>
          error?.code === NOT_FOUND
            ? `namespace ${namespace} does not exist in Temporal`
            : 'Temporal is not reachable',
      )
      .then((reason) => {
        cached = { reason, at: performance.now() };
        pending = undefined;
        return reason;
      });
    return pending;
  };

  app.get('/healthz', async () => ({ live: true }));
  app.get('/readyz', async (_request, reply) => {
    const reason = await notReady();
    return reason === undefined ? { ready: true } : reply.code(503).send({ ready: false, reason });
  });
  app.get('/metrics', async (_request, reply) =>
    reply.header('content-type', 'text/plain; version=0.0.4; charset=utf-8').send(metrics.render()),
  );
}
