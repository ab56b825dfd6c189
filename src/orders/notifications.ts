/**
 * The order API of notifications and the durable wait (issue 38; docs/workflows.md "Notifications"):
 * subscribe / unsubscribe a brand's or a campaign's notifications (a workflow to signal, or a signed
 * HTTP endpoint), and wait for a phase through the `waitForPhase` update, re-attachable by its id.
 * Every request is checked here first (a RequestValidationError names the field; nothing is sent).
 */
import { randomUUID } from 'node:crypto';
import {
  type Client,
  type Workflow,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  WorkflowUpdateRPCTimeoutOrCancelledError,
} from '@temporalio/client';
import { z } from 'zod';
import { BRAND_WORKFLOW_TYPE, type BrandStatus, brandStatusQuery } from '../contracts/brand.js';
import { CAMPAIGN_WORKFLOW_TYPE, type CampaignStatus, campaignStatusQuery } from '../contracts/campaign.js';
import {
  type NotifiedEntity,
  SUBSCRIPTIONS_LIMIT,
  type SubscribeOutcome,
  type Subscriber,
  subscribeUpdate,
  unsubscribeUpdate,
  WAIT_DEADLINE_PASSED,
  WAIT_INTERRUPTED,
  type WaitForPhaseOutcome,
  waitForPhaseUpdate,
} from '../contracts/notifications.js';
import { parseRequest } from './operator-requests.js';
import { type EntityRef, entityOrders, refName, type SteeringOptions } from './order-client.js';
import { IdempotencyKeySchema } from './request-schemas.js';

const LOOPBACK = ['localhost', '127.0.0.1', '[::1]'];

export const SubscriberSchema = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('workflow'),
    workflowId: z
      .string()
      .min(1, 'workflowId: must not be empty')
      .max(400, 'workflowId: at most 400 characters'),
  }),
  z.strictObject({
    kind: z.literal('http'),
    url: z
      .string()
      .url('url: not a valid URL')
      .refine((u) => {
        const url = new URL(u);
        return url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK.includes(url.hostname));
      }, 'url: must be https (http only to localhost / 127.0.0.1 / [::1])'),
    secretName: z
      .string()
      .regex(/^[A-Za-z0-9._-]{1,100}$/, 'secretName: the name of a secret (letters, digits, . _ -)'),
  }),
]);

export const SubscriptionIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9._:/-]{1,200}$/, 'subscriptionId: 1-200 letters, digits or . _ : / -');

export const SubscribeRequestSchema = z.strictObject({
  subscriptionId: SubscriptionIdSchema,
  subscriber: SubscriberSchema,
  kinds: z
    .array(z.enum(['phase', 'needs-action-raised', 'needs-action-cleared']))
    .min(1, 'kinds: at least one')
    .optional(),
  sendCurrent: z.boolean().optional(),
});
export type SubscribeRequestInput = z.input<typeof SubscribeRequestSchema>;

export const UnsubscribeRequestSchema = z.strictObject({ subscriptionId: SubscriptionIdSchema });

const entities = {
  brand: entityOrders<Workflow, BrandStatus>({
    workflowType: BRAND_WORKFLOW_TYPE,
    kind: 'brand',
    statusQuery: brandStatusQuery,
  }),
  campaign: entityOrders<Workflow, CampaignStatus>({
    workflowType: CAMPAIGN_WORKFLOW_TYPE,
    kind: 'campaign',
    statusQuery: campaignStatusQuery,
  }),
};

/**
 * Subscribes to a brand's or campaign's notifications (at most SUBSCRIPTIONS_LIMIT per entity). The
 * same subscriptionId again changes nothing (`created: false`).
 */
export function subscribeTo(
  client: Client,
  entity: NotifiedEntity,
  reference: EntityRef,
  request: SubscribeRequestInput,
  opts?: SteeringOptions,
): Promise<SubscribeOutcome> {
  return entities[entity].update(
    client,
    reference,
    subscribeUpdate,
    'subscribe',
    SubscribeRequestSchema,
    request,
    opts,
  );
}

export function unsubscribeFrom(
  client: Client,
  entity: NotifiedEntity,
  reference: EntityRef,
  request: { subscriptionId: string },
): Promise<{ removed: boolean }> {
  return entities[entity].update(
    client,
    reference,
    unsubscribeUpdate,
    'unsubscribe',
    UnsubscribeRequestSchema,
    request,
  );
}

/** The `notify` option of an order start: subscribed right after the start, id `order-notify`. */
export async function subscribeAfterStart(
  client: Client,
  entity: NotifiedEntity,
  reference: EntityRef,
  notify: Subscriber | undefined,
): Promise<void> {
  if (!notify) return;
  await subscribeTo(client, entity, reference, { subscriptionId: 'order-notify', subscriber: notify });
}

/** Checks a start's `notify` option before anything is started. */
export function checkNotifyOption(notify: unknown): Subscriber | undefined {
  return notify === undefined ? undefined : parseRequest('notify', SubscriberSchema, notify);
}

export interface WaitOptions {
  /**
   * The caller's id for this wait (idempotency-key syntax): the update id is `wait-for-phase/{waitId}`,
   * so a client restarted with the same id re-attaches to the wait in flight. Default: a fresh id.
   */
  waitId?: string;
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
const RETRY_MS = 200;

/**
 * The longest one update of a wait lasts. A server may lose an update admitted just before a
 * continue-as-new (the time-skipping test server does: its caller then polled for ever), so every
 * attempt asks the workflow to answer within this and its RPCs carry a deadline a little later; a
 * lost attempt is asked again under the next id. Each attempt adds a few events to the entity's
 * history: about 20 a minute per waiting caller.
 */
export const WAIT_ATTEMPT_MS = 15_000;
const WAIT_ATTEMPT_GRACE_MS = 5_000;

const failureType = (error: unknown): string | undefined => {
  const cause = (error as { cause?: { type?: string } }).cause;
  return cause?.type;
};

/**
 * Waits for the entity to be in one of `phases` (or a final phase) through the `waitForPhase` update,
 * until `timeoutMs` passes. A workflow not started yet, or one continuing as new while the wait is in
 * flight (WAIT_INTERRUPTED), is asked again with the same update id.
 */
export async function waitForEntityPhase(
  client: Client,
  entity: NotifiedEntity,
  reference: EntityRef,
  phases: string[],
  timeoutMs: number,
  opts: WaitOptions = {},
): Promise<WaitForPhaseOutcome> {
  const waitId =
    opts.waitId === undefined ? randomUUID() : parseRequest('waitId', IdempotencyKeySchema, opts.waitId);
  const end = Date.now() + timeoutMs;
  let attempt = 0;
  for (;;) {
    const updateId = `wait-for-phase/${waitId}${attempt > 0 ? `/${attempt}` : ''}`;
    const attemptEnd = Math.min(end, Date.now() + WAIT_ATTEMPT_MS);
    try {
      const outcome = await client.withDeadline(attemptEnd + WAIT_ATTEMPT_GRACE_MS, () =>
        entities[entity].withHandle(client, reference, (h) =>
          h.executeUpdate(waitForPhaseUpdate, {
            args: [{ phases, withinMs: Math.max(1, attemptEnd - Date.now()) }],
            updateId,
          }),
        ),
      );
      // Workflow time past the deadline before the wall clock is (a time-skipping test server): ask
      // again under a new id until the caller's own time is up.
      if (outcome.result !== 'deadline' || Date.now() >= end) return outcome;
      attempt++;
    } catch (error) {
      const retry =
        error instanceof WorkflowNotFoundError ||
        error instanceof WorkflowUpdateRPCTimeoutOrCancelledError ||
        (error instanceof WorkflowUpdateFailedError && failureType(error) === WAIT_INTERRUPTED);
      const passed =
        error instanceof WorkflowUpdateFailedError && failureType(error) === WAIT_DEADLINE_PASSED;
      if (!retry && !passed) throw error;
      if (Date.now() >= end) {
        if (!passed && !(error instanceof WorkflowUpdateRPCTimeoutOrCancelledError)) throw error;
        const current = await entities[entity].status(client, reference);
        return { result: 'deadline', current: { phase: current.phase } as WaitForPhaseOutcome['current'] };
      }
      // A wait the run's continue-as-new interrupted is asked again of the next run under a new id: a
      // server that remembers update ids per workflow id, not per run (the time-skipping test server),
      // would otherwise answer the interrupted one again.
      if (passed || retry) attempt++;
    }
    await pause(RETRY_MS);
  }
}

/** The wait's outcome as the brand / campaign wait functions report it: the status, or a clear error. */
export async function waitForStatus<S extends { phase: string }>(
  client: Client,
  entity: NotifiedEntity,
  reference: EntityRef,
  wanted: string[],
  timeoutMs: number,
  opts: WaitOptions = {},
): Promise<S> {
  const outcome = await waitForEntityPhase(client, entity, reference, wanted, timeoutMs, opts);
  const status = (await entities[entity].status(client, reference)) as unknown as S;
  if (outcome.result === 'reached') return status;
  if (outcome.result === 'final')
    throw new Error(
      `${entity} ${refName(reference)} ended in phase ${outcome.current.phase} while waiting for ${wanted.join(' | ')}`,
    );
  throw new Error(
    `${entity} ${refName(reference)} did not reach ${wanted.join(' | ')} within ${timeoutMs} ms (last: ${status.phase})`,
  );
}

export { SUBSCRIPTIONS_LIMIT };
