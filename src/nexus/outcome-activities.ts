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

/** `client`: default the activity's worker client (tests may pass their own). */
export function createOrderOutcomeActivities(client?: Client): OrderOutcomeActivities {
  const clientOf = () => client ?? Context.current().client;
  return {
    async subscribeOrderOutcome(s): Promise<OrderResult> {
      const c = clientOf();
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
    },
    async unsubscribeOrderOutcome(s) {
      const c = clientOf();
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
    },
    readOrderStatus: (s) => readStatus(clientOf(), s.entity, s.account, s.reference),
    async readVet({ account, brandReference, vetSeq, vetWorkflowId }) {
      const status = await getBrandStatus(clientOf(), { account, reference: brandReference });
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
    },
  };
}
