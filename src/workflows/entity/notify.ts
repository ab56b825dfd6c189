/**
 * Notifications to order systems and the durable wait (issue 38; docs/workflows.md "Notifications"),
 * written once for the brand and the campaign workflows:
 *
 * - `subscribe` / `unsubscribe` updates: idempotent by subscriptionId, validated before anything is
 *   recorded, at most SUBSCRIPTIONS_LIMIT per entity, carried across continue-as-new in the state;
 * - a notifier: on every phase change and needs-action raised or cleared, one EntityNotification per
 *   subscriber wanting that kind (id `{workflowId}/{seq}`, seq carried), queued in the state and
 *   delivered one at a time by a background coroutine, never by the entity loop (fire and forget
 *   for the loop): a workflow subscriber by the `entityNotification` signal (retried three times a
 *   minute apart, then dropped with an audit entry; a subscriber workflow that does not exist is
 *   unsubscribed), an HTTP subscriber by the signed activity on its own task queue at the lowest
 *   priority, retried with backoff by its retry policy for a day. A notification queued but not
 *   acknowledged when the workflow continues as new is sent again by the next run (at least once).
 * - `waitForPhase` update: completes when the entity is in one of the phases (`reached`), in another
 *   final phase (`final`), or at its deadline (a workflow timer, `deadline`). It does not hold up a
 *   continue-as-new: the loop calls `beforeContinueAsNew`, the waits fail with WAIT_INTERRUPTED, and
 *   the order API asks the next run again under a new update id (src/orders/notifications.ts;
 *   test/orders/wait-continue-as-new.test.ts on the dev server).
 *
 * Nothing of the order's data: ids, phases, needs-action keys, and reasons the product wrote, with
 * anything that looks like an e-mail address or a phone / tax number masked (a registry refusal can
 * quote a submitted value).
 */
import {
  ApplicationFailure,
  CancellationScope,
  condition,
  getExternalWorkflowHandle,
  patched,
  proxyActivities,
  setHandler,
  sleep,
  workflowInfo,
} from '@temporalio/workflow';
import type { AuditCause } from '../../contracts/audit.js';
import {
  type EntityNotification,
  entityNotificationSignal,
  NOTIFICATIONS_TASK_QUEUE,
  type NotificationKind,
  type NotifiedEntity,
  type OrderOutcome,
  SUBSCRIPTIONS_LIMIT,
  type Subscriber,
  subscribeUpdate,
  unsubscribeUpdate,
  WAIT_DEADLINE_PASSED,
  WAIT_INTERRUPTED,
  type WaitForPhaseOutcome,
  type WaitForPhaseRequest,
  waitForPhaseUpdate,
} from '../../contracts/notifications.js';
import { orderOutcome } from '../../contracts/order-outcome.js';
import { priorityKeys } from '../../contracts/priorities.js';
import { PATCHES } from '../patches.js';

/** The notification activity as the workflow sees it (src/activities/notifications.ts). */
interface DeliverActivities {
  deliverNotification(input: {
    url: string;
    secretName: string;
    notification: EntityNotification;
  }): Promise<{ status: number }>;
}

export interface Subscription {
  subscriptionId: string;
  subscriber: Subscriber;
  kinds: NotificationKind[];
}

export interface QueuedNotification {
  subscriptionId: string;
  notification: EntityNotification;
}

/** What the state carries across continue-as-new (absent until the first subscription). */
export interface NotifyState {
  seq: number;
  subscriptions: Subscription[];
  /** Made and not yet acknowledged, oldest first (bounded: the oldest are dropped with an audit entry). */
  queued: QueuedNotification[];
}

export const QUEUED_NOTIFICATIONS_LIMIT = 200;
const ALL_KINDS: NotificationKind[] = ['phase', 'needs-action-raised', 'needs-action-cleared'];
const MAX_WAIT_MS = 400 * 24 * 3_600_000;
const SIGNAL_ATTEMPTS = 3;

export interface NotifierSpec {
  entity: NotifiedEntity;
  reference: string;
  state: { notify?: NotifyState };
  phase(): string;
  isFinal(phase: string): boolean;
  needsAction(): { key: string; action: string }[];
  /** The order's outcome for a phase and whether a needs-action is raised (./derive.ts of each entity). */
  outcome(phase: string, needsAction: boolean): OrderOutcome;
  /** Why, for an outcome that ends or stops the order (refusal, decline). */
  reason?(): string | undefined;
  ids(): Record<string, string>;
  audit(cause: AuditCause, event: string, detail?: string): void;
}

/** Masks what could be personal data a reason quotes: e-mail addresses and runs of digits. */
export function scrubReason(text: string): string {
  return text
    .replace(/[^\s@]+@[^\s@]+/g, '[masked]')
    .replace(/\+?\d[\d\s().-]{4,}\d/g, '[masked]')
    .slice(0, 500);
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

function checkSubscriber(s: unknown): Subscriber {
  if (!isRecord(s)) throw new Error('subscriber: expected { kind: "workflow" | "http", ... }');
  if (s.kind === 'workflow') {
    if (typeof s.workflowId !== 'string' || s.workflowId.length === 0 || s.workflowId.length > 400)
      throw new Error('subscriber.workflowId: a non-empty string (at most 400 characters)');
    return { kind: 'workflow', workflowId: s.workflowId };
  }
  if (s.kind === 'http') {
    if (
      typeof s.url !== 'string' ||
      !/^(https:\/\/|http:\/\/(localhost|127\.0\.0\.1|\[::1\])[:/])/.test(s.url)
    )
      throw new Error('subscriber.url: an https URL (http only to localhost / 127.0.0.1 / [::1])');
    if (typeof s.secretName !== 'string' || !/^[A-Za-z0-9._-]{1,100}$/.test(s.secretName))
      throw new Error('subscriber.secretName: the name of a secret (letters, digits, . _ -)');
    return { kind: 'http', url: s.url, secretName: s.secretName };
  }
  throw new Error('subscriber.kind: "workflow" or "http"');
}

function checkKinds(kinds: unknown): NotificationKind[] {
  if (kinds === undefined) return ALL_KINDS;
  if (!Array.isArray(kinds) || kinds.length === 0 || kinds.some((k) => !ALL_KINDS.includes(k)))
    throw new Error(`kinds: a non-empty list of ${ALL_KINDS.join(', ')}`);
  return [...new Set(kinds as NotificationKind[])];
}

function checkSubscriptionId(id: unknown): string {
  if (typeof id !== 'string' || !/^[A-Za-z0-9._:/-]{1,200}$/.test(id))
    throw new Error('subscriptionId: 1-200 letters, digits or . _ : / -');
  return id;
}

function checkWait(request: unknown, nowMs: number): { phases: string[]; at: number } {
  if (!isRecord(request)) throw new Error('waitForPhase: expected { phases, deadline }');
  const { phases, deadline, withinMs } = request;
  if (!Array.isArray(phases) || phases.length === 0 || phases.some((p) => typeof p !== 'string'))
    throw new Error('phases: a non-empty list of phase names');
  if ((deadline === undefined) === (withinMs === undefined))
    throw new Error('deadline: give either deadline (ISO) or withinMs');
  if (withinMs !== undefined && (typeof withinMs !== 'number' || !Number.isFinite(withinMs) || withinMs <= 0))
    throw new Error('withinMs: a positive number of milliseconds');
  const at =
    withinMs !== undefined
      ? nowMs + (withinMs as number)
      : typeof deadline === 'string'
        ? Date.parse(deadline)
        : Number.NaN;
  if (Number.isNaN(at)) throw new Error('deadline: an ISO date-time');
  if (at - nowMs > MAX_WAIT_MS) throw new Error('deadline: at most 400 days ahead');
  return { phases: phases as string[], at };
}

export interface Notifier {
  /** The loop is about to continue as new: the waits in flight end (their callers send them again). */
  beforeContinueAsNew(): void;
  /** The workflow ends: notify the final state and wait until the queue is delivered. */
  flush(): Promise<void>;
}

export function setNotifications(spec: NotifierSpec): Notifier {
  const { workflowId } = workflowInfo();
  let closing = false;
  let last: { phase: string; keys: Set<string> } | undefined;
  let draining = false;

  const needsActionKeys = () => new Set(spec.needsAction().map((a) => a.key));
  const current = (
    kind: NotificationKind = 'phase',
    extra: Partial<EntityNotification> = {},
    notificationId = `${workflowId}/current`,
  ): EntityNotification => {
    const phase = spec.phase();
    const actions = spec.needsAction();
    const reason = spec.reason?.();
    const ids = spec.ids();
    return {
      notificationId,
      entity: spec.entity,
      reference: spec.reference,
      workflowId,
      kind,
      phase,
      outcome: spec.outcome(phase, actions.length > 0),
      ...(reason ? { reason: scrubReason(reason) } : {}),
      ...(Object.keys(ids).length > 0 ? { ids } : {}),
      at: new Date(Date.now()).toISOString(),
      ...extra,
    };
  };

  const enqueue = (sub: Subscription, n: Omit<EntityNotification, 'notificationId'>) => {
    const state = spec.state.notify!;
    state.seq++;
    state.queued.push({
      subscriptionId: sub.subscriptionId,
      notification: { ...n, notificationId: `${workflowId}/${state.seq}` } as EntityNotification,
    });
    while (state.queued.length > QUEUED_NOTIFICATIONS_LIMIT) {
      const dropped = state.queued.shift()!;
      spec.audit('workflow', 'notification-dropped', `${dropped.notification.notificationId}: queue full`);
    }
    startDrain();
  };

  /** Compares what subscribers last heard with now, and queues what changed. */
  const observe = () => {
    const state = spec.state.notify;
    if (!state || !last) return;
    const phase = spec.phase();
    const keys = needsActionKeys();
    const actions = spec.needsAction();
    const events: { kind: NotificationKind; extra: Partial<EntityNotification> }[] = [];
    if (phase !== last.phase) events.push({ kind: 'phase', extra: { previousPhase: last.phase } });
    for (const a of actions)
      if (!last.keys.has(a.key))
        events.push({
          kind: 'needs-action-raised',
          extra: { needsActionKey: a.key, reason: scrubReason(a.action) },
        });
    for (const key of last.keys)
      if (!keys.has(key)) events.push({ kind: 'needs-action-cleared', extra: { needsActionKey: key } });
    last = { phase, keys };
    for (const event of events)
      for (const sub of state.subscriptions)
        if (sub.kinds.includes(event.kind)) enqueue(sub, current(event.kind, event.extra));
  };

  const notifyActivities = proxyActivities<DeliverActivities>({
    taskQueue: NOTIFICATIONS_TASK_QUEUE,
    startToCloseTimeout: '30 seconds',
    scheduleToCloseTimeout: '1 day',
    retry: {
      initialInterval: '2 seconds',
      backoffCoefficient: 2,
      maximumInterval: '10 minutes',
      nonRetryableErrorTypes: ['NotificationRefused'],
    },
    // Below every registry call's priority: a notification never goes before the entity's own work.
    priority: { priorityKey: priorityKeys.bulk },
  });

  /** Delivers one; false when it was dropped. */
  const deliver = async (q: QueuedNotification, sub: Subscription | undefined): Promise<void> => {
    const id = q.notification.notificationId;
    if (!sub) return; // unsubscribed since: not sent
    if (sub.subscriber.kind === 'http') {
      try {
        await notifyActivities.deliverNotification({
          url: sub.subscriber.url,
          secretName: sub.subscriber.secretName,
          notification: q.notification,
        });
      } catch (error) {
        spec.audit('workflow', 'notification-dropped', `${id}: ${(error as Error).message}`);
      }
      return;
    }
    const target = sub.subscriber.workflowId;
    for (let attempt = 1; ; attempt++) {
      try {
        await getExternalWorkflowHandle(target).signal(entityNotificationSignal, q.notification);
        return;
      } catch (error) {
        const message = (error as Error).message ?? String(error);
        if (/not found/i.test(message)) {
          const state = spec.state.notify!;
          state.subscriptions = state.subscriptions.filter((s) => s !== sub);
          spec.audit('workflow', 'unsubscribed', `${sub.subscriptionId}: workflow ${target} does not exist`);
          return;
        }
        if (attempt >= SIGNAL_ATTEMPTS) {
          spec.audit('workflow', 'notification-dropped', `${id} to workflow ${target}: ${message}`);
          return;
        }
        await sleep('1 minute');
      }
    }
  };

  /** One coroutine delivers the queue in order; a notification leaves it once delivered or dropped. */
  const startDrain = () => {
    if (draining) return;
    draining = true;
    // Not cancellable: a Temporal cancellation of the entity must not cut a delivery short (its
    // `cancelled` notification is sent too), and nothing here may reject unhandled.
    void CancellationScope.nonCancellable(async () => {
      const state = spec.state.notify!;
      while (state.queued.length > 0) {
        const head = state.queued[0]!;
        try {
          await deliver(
            head,
            state.subscriptions.find((s) => s.subscriptionId === head.subscriptionId),
          );
        } catch (error) {
          spec.audit(
            'workflow',
            'notification-dropped',
            `${head.notification.notificationId}: ${String(error)}`,
          );
        }
        if (state.queued[0] === head) state.queued.shift();
      }
      draining = false;
    }).catch(() => {
      draining = false;
    });
  };

  /** The watcher: wakes on every change of phase or needs-action keys while someone listens. */
  const watch = () => {
    if (last) return;
    last = { phase: spec.phase(), keys: needsActionKeys() };
    // Not cancellable: it must see the `cancelled` phase a Temporal cancellation ends in.
    void CancellationScope.nonCancellable(async () => {
      for (;;) {
        await condition(() => {
          if (!last) return false;
          if (spec.phase() !== last.phase) return true;
          const keys = needsActionKeys();
          return keys.size !== last.keys.size || [...keys].some((k) => !last!.keys.has(k));
        });
        observe();
      }
    });
  };

  if (spec.state.notify) {
    watch();
    if (spec.state.notify.queued.length > 0) startDrain();
  }

  setHandler(
    subscribeUpdate,
    async (request) => {
      patched(PATCHES.notifications);
      spec.state.notify ??= { seq: 0, subscriptions: [], queued: [] };
      const state = spec.state.notify;
      const subscriptionId = request.subscriptionId;
      if (state.subscriptions.some((s) => s.subscriptionId === subscriptionId))
        return { subscriptionId, created: false, current: current() };
      // Changes made before this subscription are not its news: bring the watcher up to date first.
      observe();
      watch();
      const sub: Subscription = {
        subscriptionId,
        subscriber: checkSubscriber(request.subscriber),
        kinds: checkKinds(request.kinds),
      };
      state.subscriptions.push(sub);
      spec.audit(
        'operator',
        'subscribed',
        `${subscriptionId} (${sub.subscriber.kind}: ${sub.kinds.join(', ')})`,
      );
      if (request.sendCurrent !== false && sub.kinds.includes('phase')) {
        const { notificationId: _n, ...now } = current();
        enqueue(sub, now);
      }
      return { subscriptionId, created: true, current: current() };
    },
    {
      validator: (request) => {
        if (!isRecord(request)) throw new Error('subscribe: expected { subscriptionId, subscriber }');
        const id = checkSubscriptionId(request.subscriptionId);
        checkSubscriber(request.subscriber);
        checkKinds(request.kinds);
        if (request.sendCurrent !== undefined && typeof request.sendCurrent !== 'boolean')
          throw new Error('sendCurrent: true or false');
        const subs = spec.state.notify?.subscriptions ?? [];
        if (!subs.some((s) => s.subscriptionId === id) && subs.length >= SUBSCRIPTIONS_LIMIT)
          throw new Error(
            `subscriptionId: this ${spec.entity} has ${SUBSCRIPTIONS_LIMIT} subscriptions already (the limit)`,
          );
        if (spec.isFinal(spec.phase()))
          throw new Error(`the ${spec.entity} is ${spec.phase()} (final): nothing more to notify`);
      },
    },
  );

  setHandler(
    unsubscribeUpdate,
    (request) => {
      const state = spec.state.notify;
      const before = state?.subscriptions.length ?? 0;
      if (state)
        state.subscriptions = state.subscriptions.filter((s) => s.subscriptionId !== request.subscriptionId);
      const removed = (state?.subscriptions.length ?? 0) < before;
      if (removed) spec.audit('operator', 'unsubscribed', request.subscriptionId);
      return { removed };
    },
    {
      validator: (request) => {
        if (!isRecord(request)) throw new Error('unsubscribe: expected { subscriptionId }');
        checkSubscriptionId(request.subscriptionId);
      },
    },
  );

  setHandler(
    waitForPhaseUpdate,
    async (request: WaitForPhaseRequest): Promise<WaitForPhaseOutcome> => {
      const { phases, at } = checkWait(request, Date.now());
      const settled = () => phases.includes(spec.phase()) || spec.isFinal(spec.phase());
      const remaining = at - Date.now();
      if (!settled() && remaining > 0) await condition(() => settled() || closing, remaining);
      if (!settled() && closing)
        throw ApplicationFailure.retryable(
          'the workflow continued as new while this wait was in flight: send it again to the next run (under a new update id)',
          WAIT_INTERRUPTED,
        );
      const result = phases.includes(spec.phase())
        ? 'reached'
        : spec.isFinal(spec.phase())
          ? 'final'
          : 'deadline';
      return { result, current: current() };
    },
    {
      validator: (request) => {
        const { at } = checkWait(request, Date.now());
        if (at <= Date.now())
          throw ApplicationFailure.nonRetryable('deadline: already passed', WAIT_DEADLINE_PASSED);
      },
    },
  );

  return {
    beforeContinueAsNew() {
      closing = true;
      observe();
    },
    async flush() {
      observe();
      const state = spec.state.notify;
      if (state) await condition(() => state.queued.length === 0);
    },
  };
}

/** A brand's outcome for an order system (the shared reading: src/contracts/order-outcome.ts). */
export function brandOutcome(phase: string, needsAction: boolean): OrderOutcome {
  return orderOutcome('brand', phase, needsAction);
}

/**
 * A campaign's outcome for an order system (the shared reading): a created campaign the operator
 * cancelled (`winding-down`) is `cancelled` at once. Only notification payloads change with the
 * reading, never a command, so histories replay as recorded.
 */
export function campaignOutcome(phase: string, needsAction: boolean): OrderOutcome {
  return orderOutcome('campaign', phase, needsAction);
}
