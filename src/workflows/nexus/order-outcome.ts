/**
 * The backing workflow of the Nexus service's asynchronous order operations (src/nexus): it waits,
 * durably, for an ordered brand's or campaign's settled outcome and completes with it, which Temporal
 * delivers to the order system's Nexus operation. The handler has already started (or attached to)
 * the entity's workflow; this one holds no order data, only the reference.
 *
 * Brand / campaign: it subscribes itself (a WorkflowSubscriber with its own id, which is also the
 * subscription id, so a retried subscribe changes nothing) and completes on the first notification
 * whose outcome is not `in-progress` (the subscribe's current state included), then unsubscribes.
 * Vet: vets are not notified, so it reads the brand's status on a backoff (30 s doubling to 1 h)
 * until the vet's state is final.
 *
 * A Temporal cancellation (the order system cancelled its Nexus operation) stops the wait only: it
 * unsubscribes and ends cancelled; the registration goes on (cancel it with the cancel operations).
 */
import {
  CancellationScope,
  condition,
  isCancellation,
  proxyActivities,
  setHandler,
  sleep,
  workflowInfo,
} from '@temporalio/workflow';
import {
  type OrderOutcomeActivities,
  type OrderOutcomeInput,
  type OrderResult,
  orderResultOf,
  type VetResult,
} from '../../contracts/nexus-service.js';
import { entityNotificationSignal } from '../../contracts/notifications.js';

const activities = proxyActivities<OrderOutcomeActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

const success: readonly string[] = ['ready', 'running'];
const VET_POLL_FIRST_MS = 30_000;
const VET_POLL_MAX_MS = 60 * 60_000;

export async function orderOutcomeWorkflow(input: OrderOutcomeInput): Promise<OrderResult | VetResult> {
  if (input.kind === 'vet') {
    let wait = VET_POLL_FIRST_MS;
    for (;;) {
      const read = await activities.readVet(input);
      if (read.settled) return read.result;
      await sleep(wait);
      wait = Math.min(wait * 2, VET_POLL_MAX_MS);
    }
  }
  const { kind: entity, account, reference } = input;
  const self = workflowInfo().workflowId;
  let settled: OrderResult | undefined;
  const seen = new Set<string>();
  // Set before the subscribe: a notification may arrive before the subscribe's answer.
  setHandler(entityNotificationSignal, (n) => {
    if (seen.has(n.notificationId) || n.entity !== entity || n.reference !== reference) return;
    seen.add(n.notificationId);
    if (settled === undefined && n.outcome !== 'in-progress') settled = orderResultOf(n, account);
  });
  const subscription = { entity, account, reference, subscriberWorkflowId: self, subscriptionId: self };
  try {
    const current = await activities.subscribeOrderOutcome(subscription);
    if (settled === undefined && current.outcome !== 'in-progress') settled = current;
    await condition(() => settled !== undefined);
  } catch (error) {
    if (isCancellation(error))
      await CancellationScope.nonCancellable(() => activities.unsubscribeOrderOutcome(subscription));
    throw error;
  }
  await activities.unsubscribeOrderOutcome(subscription);
  const result = settled as OrderResult;
  // An order that stopped says why: a notification without its reason takes the status's.
  if (result.reason === undefined && !success.includes(result.outcome)) {
    const { reason } = await activities.readOrderStatus(subscription);
    if (reason !== undefined) return { ...result, reason };
  }
  return result;
}
