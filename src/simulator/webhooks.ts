import { randomBytes } from 'node:crypto';
import type { SimContext } from './context.js';
import { categoryOf } from './events.js';
import { signatureHeaders } from './signing.js';
import type { DeliveryLogEntry, QueuedEvent } from './state.js';

/** Seconds to the next retry after the n-th failed (4xx/5xx) attempt; after 13 retries the event is discarded. */
export const RETRY_SCHEDULE_SECONDS = [
  61, 76, 141, 361, 685, 1356, 2461, 4156, 6621, 10060, 14701, 20796, 28621,
];

export function newWebhookSecret(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * One first-in-first-out queue per account with one delivery worker: the head event is retried until it
 * is accepted (2xx/3xx) or discarded, and only then does the next one go out.
 */
export class WebhookDispatcher {
  private readonly inFlight = new Map<string, AbortController>();
  private readonly wakeAt = new Map<string, number>();
  private closed = false;

  constructor(private readonly ctx: SimContext) {}

  enqueue(cspId: string, event: Record<string, unknown>): void {
    const eventType = String(event.eventType);
    const category = categoryOf(eventType) ?? 'UNKNOWN';
    const account = this.ctx.store.account(cspId);
    const deliveryId = this.ctx.store.nextId('D');
    if (!account.subscriptions[category]) {
      this.log(cspId, {
        deliveryId,
        category,
        event,
        attempt: 0,
        endpoint: null,
        status: null,
        error: null,
        outcome: 'NO_SUBSCRIPTION',
        retryCount: 0,
        nextAttemptAt: null,
      });
      this.ctx.store.changed();
      return;
    }
    account.queue.push({
      deliveryId,
      category,
      event,
      enqueuedAt: this.ctx.nowIso(),
      httpFailures: 0,
      networkFailures: 0,
      nextAttemptAt: this.ctx.clock.nowMs(),
    });
    this.ctx.store.changed();
    queueMicrotask(() => this.kick(cspId));
  }

  /** Starts every account's worker (after a restart or reset). */
  resumeAll(): void {
    for (const cspId of Object.keys(this.ctx.store.state.accounts)) this.kick(cspId);
  }

  close(): void {
    this.closed = true;
    for (const controller of this.inFlight.values()) controller.abort();
    this.inFlight.clear();
  }

  kick(cspId: string): void {
    if (this.closed || this.inFlight.has(cspId)) return;
    const head = this.ctx.store.account(cspId).queue[0];
    if (!head) return;
    if (head.nextAttemptAt > this.ctx.clock.nowMs()) {
      // One wake-up per account and instant, however often the worker is kicked meanwhile.
      if (this.wakeAt.get(cspId) !== head.nextAttemptAt) {
        this.wakeAt.set(cspId, head.nextAttemptAt);
        this.ctx.scheduler.at(head.nextAttemptAt, () => {
          this.wakeAt.delete(cspId);
          this.kick(cspId);
        });
      }
      return;
    }
    const controller = new AbortController();
    this.inFlight.set(cspId, controller);
    this.attempt(cspId, head, controller).finally(() => {
      if (this.inFlight.get(cspId) === controller) this.inFlight.delete(cspId);
      this.kick(cspId);
    });
  }

  private async attempt(cspId: string, item: QueuedEvent, controller: AbortController): Promise<void> {
    const { ctx } = this;
    const account = ctx.store.account(cspId);
    const eventType = String(item.event.eventType);
    const subscription = account.subscriptions[item.category];
    const attempt = item.httpFailures + item.networkFailures + 1;
    const base = { deliveryId: item.deliveryId, category: item.category, event: item.event, attempt };
    const done = () => {
      if (account.queue[0] === item) account.queue.shift();
      ctx.store.changed();
    };
    if (!subscription) {
      this.log(cspId, {
        ...base,
        endpoint: null,
        status: null,
        error: 'subscription removed',
        outcome: 'NO_SUBSCRIPTION',
        retryCount: item.httpFailures,
        nextAttemptAt: null,
      });
      done();
      return;
    }
    const endpoint = subscription.webhookEndpoint;
    if (ctx.faults.takeWebhook('webhook-drop', cspId, eventType)) {
      this.log(cspId, {
        ...base,
        endpoint,
        status: null,
        error: 'dropped by injected fault',
        outcome: 'DROPPED',
        retryCount: item.httpFailures,
        nextAttemptAt: null,
      });
      done();
      return;
    }
    const badSignature = ctx.faults.takeWebhook('webhook-bad-signature', cspId, eventType) !== undefined;
    const secret = badSignature ? `${subscription.secret}-wrong` : subscription.secret;
    const headers = signatureHeaders(
      endpoint,
      item.event,
      secret,
      subscription.digestEncoding,
      ctx.clock.nowMs(),
    );
    const body = JSON.stringify(item.event);
    const signatures = {
      signature256: headers['X-Registry-Signature-256'] ?? null,
      signature1: headers['X-Registry-Signature'] ?? null,
      badSignature,
    };

    let status: number | null = null;
    let error: string | null = null;
    const timeout = setTimeout(() => controller.abort(new Error('timeout')), ctx.webhookTimeoutMs);
    try {
      const response = await fetch(endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body,
        redirect: 'manual',
        signal: controller.signal,
      });
      status = response.status;
      await response.arrayBuffer().catch(() => undefined);
    } catch (err) {
      error =
        err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err);
    } finally {
      clearTimeout(timeout);
    }
    if (this.closed) return;
    const now = ctx.clock.nowMs();
    /** One delivery-log line for this attempt. */
    const record = (
      outcome: 'DELIVERED' | 'DISCARDED' | 'RETRY' | 'NETWORK_RETRY',
      retryCount: number,
      nextAttemptAt: string | null,
    ) =>
      this.log(
        cspId,
        { ...base, ...signatures, endpoint, status, error, outcome, retryCount, nextAttemptAt },
        now,
      );
    if (status !== null && status >= 200 && status < 400) {
      record('DELIVERED', item.httpFailures, null);
      done();
      if (ctx.faults.takeWebhook('webhook-duplicate', cspId, eventType)) {
        // A duplicate after "system disruption": the same event again, right behind the original.
        account.queue.unshift({
          ...item,
          deliveryId: ctx.store.nextId('D'),
          httpFailures: 0,
          networkFailures: 0,
          nextAttemptAt: now,
          duplicateOf: item.deliveryId,
        });
        ctx.store.changed();
      }
      return;
    }
    if (status !== null) {
      item.httpFailures += 1;
      const delay = RETRY_SCHEDULE_SECONDS[item.httpFailures - 1];
      if (delay === undefined) {
        record('DISCARDED', item.httpFailures - 1, null);
        done();
        return;
      }
      item.nextAttemptAt = now + delay * 1000;
      record('RETRY', item.httpFailures, new Date(item.nextAttemptAt).toISOString());
    } else {
      item.networkFailures += 1;
      item.nextAttemptAt = now + ctx.delays.webhookNetworkRetrySeconds * 1000;
      record('NETWORK_RETRY', item.httpFailures, new Date(item.nextAttemptAt).toISOString());
    }
    ctx.store.changed();
  }

  private log(
    cspId: string,
    entry: Omit<
      DeliveryLogEntry,
      'cspId' | 'eventType' | 'at' | 'signature256' | 'signature1' | 'badSignature' | 'duplicate'
    > &
      Partial<Pick<DeliveryLogEntry, 'signature256' | 'signature1' | 'badSignature'>>,
    atMs = this.ctx.clock.nowMs(),
  ): void {
    const duplicateOf = this.ctx.store
      .account(cspId)
      .queue.find((q) => q.deliveryId === entry.deliveryId)?.duplicateOf;
    this.ctx.store.logDelivery(cspId, {
      signature256: null,
      signature1: null,
      badSignature: false,
      ...entry,
      cspId,
      eventType: String(entry.event.eventType),
      at: new Date(atMs).toISOString(),
      duplicate: duplicateOf !== undefined,
    });
  }
}
