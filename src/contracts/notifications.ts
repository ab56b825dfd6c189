/**
 * How order systems hear back from a brand or campaign workflow (issue 38): subscriptions to its
 * phase changes and needs-action, delivered as a signal to a workflow of the caller's choosing or as a
 * signed HTTP notification, and a durable wait for a phase. Names and types only: workflow code, the
 * order API, the Nexus service and the example order system import it.
 *
 * A notification carries no personal data of the order: ids, phases, needs-action keys and reasons the
 * product wrote itself (a registry refusal's codes and field names, never the values submitted).
 */
import { defineSignal, defineUpdate } from '@temporalio/workflow';

export type NotifiedEntity = 'brand' | 'campaign';

/** What a subscriber hears about. */
export type NotificationKind =
  /** The entity entered a phase. */
  | 'phase'
  /** A needs-action entry was raised (an operator is needed). */
  | 'needs-action-raised'
  /** A needs-action entry was cleared. */
  | 'needs-action-cleared';

/**
 * Where the order stands for an order system: settled outcomes a fulfilment workflow acts on. `ready`
 * (brand) and `running` (campaign) are success; `refused`, `declined`, `cancelled`, `expired`, `deleted`
 * end the order; `needs-action` means an operator must act before it goes on; `in-progress` otherwise.
 */
export type OrderOutcome =
  | 'in-progress'
  | 'ready'
  | 'running'
  | 'needs-action'
  | 'refused'
  | 'declined'
  | 'cancelled'
  | 'expired'
  | 'deleted';

export interface EntityNotification {
  /** Unique per notification and stable across redelivery: `{workflowId}/{sequence}`. Deduplicate on it. */
  notificationId: string;
  entity: NotifiedEntity;
  /** The CSP's reference of the brand or campaign. */
  reference: string;
  /** The workflow id that sent it. */
  workflowId: string;
  kind: NotificationKind;
  /** The entity's phase when the notification was made. */
  phase: string;
  previousPhase?: string;
  outcome: OrderOutcome;
  /** Why (refusal or decline reason, needs-action summary): written by the product, no order data. */
  reason?: string;
  /** The needs-action key raised or cleared (kind needs-action-*). */
  needsActionKey?: string;
  /** Registry ids known (brandId, campaignId). */
  ids?: Record<string, string>;
  /** Workflow time of the change (ISO). */
  at: string;
}

/** A Temporal workflow to signal (`entityNotificationSignal`), in the entity workflow's own namespace. */
export interface WorkflowSubscriber {
  kind: 'workflow';
  workflowId: string;
}

/**
 * A signed HTTP notification: POST of the canonical JSON body (RFC 8785) to `url`, signed with the
 * secret named by `secretName` (HMAC-SHA256 over URL and canonical body, like the registry's events),
 * retried with backoff, at least once. The secret itself never enters workflow history.
 */
export interface HttpSubscriber {
  kind: 'http';
  url: string;
  secretName: string;
}

export type Subscriber = WorkflowSubscriber | HttpSubscriber;

export interface SubscribeRequest {
  /** The caller's id for this subscription: subscribing again with the same id changes nothing. */
  subscriptionId: string;
  subscriber: Subscriber;
  /** What to hear about (default: every kind). */
  kinds?: NotificationKind[];
  /** Send a notification of the current state at once (default true). */
  sendCurrent?: boolean;
}

export interface SubscribeOutcome {
  subscriptionId: string;
  /** False when the id was already subscribed (nothing changed). */
  created: boolean;
  /** The entity's state now, as a notification would say it. */
  current: EntityNotification;
}

export interface UnsubscribeRequest {
  subscriptionId: string;
}

/**
 * A durable wait: completes when the entity is in one of `phases` (or a final phase), or at its
 * deadline: `deadline` (ISO time), or `withinMs` after the workflow accepts the wait (workflow time,
 * so a caller's clock does not matter). One of the two; at most 400 days ahead.
 */
export interface WaitForPhaseRequest {
  phases: string[];
  deadline?: string;
  withinMs?: number;
}

export interface WaitForPhaseOutcome {
  /** `reached`: in one of the phases; `final`: ended in another final phase; `deadline`: time ran out. */
  result: 'reached' | 'final' | 'deadline';
  current: EntityNotification;
}

/** Subscribe to a brand's or a campaign's notifications (update on both workflow types). */
export const subscribeUpdate = defineUpdate<SubscribeOutcome, [SubscribeRequest]>('subscribe');
export const unsubscribeUpdate = defineUpdate<{ removed: boolean }, [UnsubscribeRequest]>('unsubscribe');
/** Re-attachable by its update id after a client restart. */
export const waitForPhaseUpdate = defineUpdate<WaitForPhaseOutcome, [WaitForPhaseRequest]>('waitForPhase');
/** What a `WorkflowSubscriber` receives. */
export const entityNotificationSignal = defineSignal<[EntityNotification]>('entityNotification');

/** The task queue of the signed HTTP notification activity (src/activities/notifications.ts), apart from the registry's. */
export const NOTIFICATIONS_TASK_QUEUE = 'notifications';
/** How many subscriptions one brand or campaign holds. */
export const SUBSCRIPTIONS_LIMIT = 20;
/** The failure type of a waitForPhase the workflow could not keep across its continue-as-new: send it again, same update id. */
export const WAIT_INTERRUPTED = 'WaitForPhaseContinuedAsNew';
/** The failure type of a waitForPhase refused because its deadline had passed in workflow time. */
export const WAIT_DEADLINE_PASSED = 'WaitForPhaseDeadlinePassed';
