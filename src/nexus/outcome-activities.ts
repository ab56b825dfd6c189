/**
 * The outcome workflow's activities (src/workflows/nexus/order-outcome.ts), run by the worker of
 * `tcr-workflows` with the worker's own client (the product's namespace): subscribe it to the entity
 * it waits for (the order API's subscribe: src/orders/notifications.ts), unsubscribe it, read a vet.
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import { type Client, WorkflowNotFoundError } from '@temporalio/client';
import type { VetState } from '../contracts/brand.js';
import { entityWorkflowId } from '../contracts/ids.js';
import {
  type OrderOutcomeActivities,
  type OrderResult,
  type OutcomeSubscription,
  orderResultOf,
} from '../contracts/nexus-service.js';
import { subscribeUpdate, unsubscribeUpdate } from '../contracts/notifications.js';
import { getBrandStatus } from '../orders/brand-client.js';
import { orderResultOfStatus, readStatus } from './status.js';

/** A vet in any other state (active, failed, expired, timed-out, rejected, cancelled) has settled. */
const openVetStates: readonly VetState[] = ['ordering', 'pending', 'under-review'];

/** The entity's workflow is closed (it takes no updates) or was never started. */
async function closedOrMissing(client: Client, s: OutcomeSubscription) {
  const status = await readStatus(client, s.entity, s.account, s.reference).catch((error: unknown) => {
    if (error instanceof WorkflowNotFoundError) return undefined;
    throw error;
  });
  return status;
}

const entityHandle = (client: Client, s: OutcomeSubscription) =>
  client.workflow.getHandle(entityWorkflowId(s.entity, s.account, s.reference));

/**
 * Runs `fn`'s Temporal calls under the activity's cancellation: a worker shutting down cancels its
 * activities, and an update to an entity served by that same worker would otherwise wait for ever and
 * hold the shutdown (seen: `npm start` not exiting on Ctrl-C). Outside an activity (tests), as is.
 */
function cancellable<T>(c: Client, fn: () => Promise<T>): Promise<T> {
  let signal: AbortSignal | undefined;
  try {
    signal = Context.current().cancellationSignal;
  } catch {
    signal = undefined;
  }
  return signal ? c.withAbortSignal(signal, fn) : fn();
}

/** `client`: default the activity's worker client (tests may pass their own). */
export function createOrderOutcomeActivities(client?: Client): OrderOutcomeActivities {
  const clientOf = () => client ?? Context.current().client;
  return {
    subscribeOrderOutcome: (s) => {
      const c = clientOf();
      return cancellable(c, () => subscribe(c, s));
    },
    unsubscribeOrderOutcome: (s) => {
      const c = clientOf();
      return cancellable(c, () => unsubscribe(c, s));
    },
    readOrderStatus: (s) => {
      const c = clientOf();
      return cancellable(c, () => readStatus(c, s.entity, s.account, s.reference));
    },
    readVet: (v) => {
      const c = clientOf();
      return cancellable(c, () => readVet(c, v));
    },
  };
}

async function subscribe(c: Client, s: OutcomeSubscription): Promise<OrderResult> {
  try {
    const outcome = await entityHandle(c, s).executeUpdate(subscribeUpdate, {
      args: [
        {
          subscriptionId: s.subscriptionId,
          subscriber: { kind: 'workflow', workflowId: s.subscriberWorkflowId },
          sendCurrent: false,
        },
      ],
      updateId: `subscribe/${s.subscriptionId}`,
    });
    return orderResultOf(outcome.current, s.account);
  } catch (error) {
    // A closed workflow takes no subscription: its last status is the outcome.
    const status = await closedOrMissing(c, s);
    if (status === undefined)
      throw ApplicationFailure.nonRetryable(
        `${s.entity} ${s.account}/${s.reference} was never ordered`,
        'OrderNotFound',
      );
    const closed = await c.workflow
      .getHandle(status.workflowId)
      .describe()
      .then((d) => d.status.name !== 'RUNNING');
    if (!closed) throw error;
    return orderResultOfStatus(status, new Date().toISOString());
  }
}

async function unsubscribe(c: Client, s: OutcomeSubscription): Promise<void> {
  try {
    await entityHandle(c, s).executeUpdate(unsubscribeUpdate, {
      args: [{ subscriptionId: s.subscriptionId }],
      updateId: `unsubscribe/${s.subscriptionId}`,
    });
  } catch (error) {
    // A closed entity holds no subscriptions: nothing to remove.
    const status = await closedOrMissing(c, s);
    if (status === undefined) return;
    const running = await c.workflow
      .getHandle(status.workflowId)
      .describe()
      .then((d) => d.status.name === 'RUNNING');
    if (running) throw error;
  }
}

async function readVet(
  c: Client,
  { account, brandReference, vetSeq, vetWorkflowId }: Parameters<OrderOutcomeActivities['readVet']>[0],
) {
  const status = await getBrandStatus(c, { account, reference: brandReference });
  const vet = status.vets.find((v) => v.workflowId === vetWorkflowId);
  if (!vet)
    throw ApplicationFailure.nonRetryable(
      `brand ${account}/${brandReference} has no vet #${vetSeq} (${vetWorkflowId})`,
      'VetNotFound',
    );
  return {
    settled: !openVetStates.includes(vet.state),
    result: {
      account,
      brandReference,
      vetSeq: vet.seq,
      vetWorkflowId: vet.workflowId,
      state: vet.state,
      ...(vet.score !== undefined ? { score: vet.score } : {}),
      ...(vet.reasons !== undefined ? { reasons: vet.reasons } : {}),
      ...(vet.vettingId !== undefined ? { vettingId: vet.vettingId } : {}),
    },
  };
}
