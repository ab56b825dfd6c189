import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Client } from '@temporalio/client';
import type { FastifyInstance, RawServerDefault } from 'fastify';
import type { Logger } from 'pino';
import type { IngressMetrics } from './metrics.js';

/** How long one readiness answer is reused: /readyz costs Temporal at most one call per second. */
const READY_CACHE_MS = 1_000;

/**
 * GET /healthz, /readyz and /metrics, for the internal listener (or the public one when
 * TCR_INGRESS_INTERNAL_LISTEN=public). /readyz asks Temporal at most once a second, however often
 * it is called; concurrent calls share one request.
 */
export function registerInternalRoutes(
  app: FastifyInstance<RawServerDefault, IncomingMessage, ServerResponse, Logger>,
  options: { client: Client; metrics: IngressMetrics },
): void {
  const { client, metrics } = options;
  let cached: { ready: boolean; at: number } | undefined;
  let pending: Promise<boolean> | undefined;
  const readiness = (): Promise<boolean> => {
    if (cached && performance.now() - cached.at < READY_CACHE_MS) return Promise.resolve(cached.ready);
    pending ??= client
      .withDeadline(Date.now() + 2_000, () => client.workflowService.getSystemInfo({}))
      .then(
        () => true,
        () => false,
      )
      .then((ready) => {
        cached = { ready, at: performance.now() };
        pending = undefined;
        return ready;
      });
    return pending;
  };

  app.get('/healthz', async () => ({ live: true }));
  app.get('/readyz', async (_request, reply) =>
    (await readiness())
      ? { ready: true }
      : reply.code(503).send({ ready: false, reason: 'Temporal is not reachable' }),
  );
  app.get('/metrics', async (_request, reply) =>
    reply.header('content-type', 'text/plain; version=0.0.4; charset=utf-8').send(metrics.render()),
  );
}
