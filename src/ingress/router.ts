import { type Client, WorkflowNotFoundError } from '@temporalio/client';
import { migratedId } from '../config/entity-lookup.js';
import {
  entityWorkflowId,
  entityWorkflowIdPattern,
  type ParkedEntityKind,
  parkedEventsByReferenceWorkflowId,
  parkedEventsWorkflowId,
  referencePattern,
} from '../contracts/ids.js';
import {
  PARKED_EVENTS_WORKFLOW_TYPE,
  type ParkedEventsInput,
  type ParkedEventsWorkflow,
} from '../contracts/parked-events.js';
import { AccountKey, BrandIdKey, CampaignIdKey } from '../contracts/search-attributes.js';
import { type RegistryEventDelivery, registryEventSignal } from '../contracts/signals.js';
import type { RegistryEvent } from '../registry/events.js';
import { LruMap } from './bounded.js';
import type { RouteVia } from './metrics.js';

/** Which workflow kind an event belongs to, and the keys it carries. */
export interface EventTarget {
  kind: ParkedEntityKind;
  /** The CSP reference, when the event carries one that can be one of our workflow ids. */
  reference?: string;
  registryId?: string;
}

export type RouteOutcome =
  | { action: 'signalled'; kind: ParkedEntityKind; via: RouteVia; workflowId: string }
  | { action: 'parked'; kind: ParkedEntityKind; via: RouteVia; workflowId: string }
  | { action: 'ignored' };

const vettingTypePattern = /^(EVP_|VET)/;
/** Registry ids that are safe to quote in a visibility query. */
const registryIdPattern = /^[A-Za-z0-9._:-]{1,100}$/;

const usableReference = (ref: string | undefined): string | undefined =>
  ref !== undefined && referencePattern.test(ref) ? ref : undefined;

/**
 * Campaign events (a campaignId or campaignReferenceId) go to the campaign workflow; brand events and
 * vetting events (evpId / vettingId, or an EVP_ / VET type) go to the brand workflow, which hands
 * vetting events to its vet child. Undefined when the event carries nothing to route by.
 */
export function eventTarget(event: RegistryEvent): EventTarget | undefined {
  if (event.campaignId !== undefined || event.campaignReferenceId !== undefined) {
    const reference = usableReference(event.campaignReferenceId);
    const registryId = event.campaignId || undefined;
    if (reference === undefined && registryId === undefined) return undefined;
    return { kind: 'campaign', reference, registryId };
  }
  const vetting =
    event.evpId !== undefined || event.vettingId !== undefined || vettingTypePattern.test(event.eventType);
  if (vetting || event.brandId !== undefined || event.brandReferenceId !== undefined) {
    const reference = usableReference(event.brandReferenceId);
    const registryId = event.brandId || undefined;
    if (reference === undefined && registryId === undefined) return undefined;
    return { kind: 'brand', reference, registryId };
  }
  return undefined;
}

export interface RouterOptions {
  client: Client;
  parkedTaskQueue: string;
  parkedRetentionMs: number;
  /** Registry id → owner workflow id cache size. */
  ownerCacheSize?: number;
}

/**
 * Hands verified deliveries to the workflows of the account whose secret verified them: by reference
 * to `brand/{account}/{ref}` / `campaign/{account}/{ref}` (or the legacy `brand/{ref}` an earlier
 * release opened, when its TcrAccount is this account), by registry id to the running workflow of
 * this account whose TcrBrandId / TcrCampaignId search attribute holds it, and otherwise into the
 * account's parkedEvents workflow (signalWithStart) until an owner claims them. Never to another
 * account's workflow.
 */
export class EventRouter {
  private readonly client: Client;
  private readonly owners: LruMap<string, string>;

  constructor(private readonly options: RouterOptions) {
    this.client = options.client;
    this.owners = new LruMap(options.ownerCacheSize ?? 10_000);
  }

  async route(delivery: RegistryEventDelivery, account: string): Promise<RouteOutcome> {
    const target = eventTarget(delivery.event);
    if (!target) return { action: 'ignored' };
    const { kind } = target;

    if (target.reference !== undefined) {
      const workflowId = entityWorkflowId(kind, account, target.reference);
      if (await this.trySignal(workflowId, delivery))
        return { action: 'signalled', kind, via: 'reference', workflowId };
      // A workflow an earlier release opened under the legacy id, for this account only.
      const legacy = await migratedId(this.client, kind, account, target.reference);
      if (legacy !== undefined && (await this.trySignal(legacy, delivery)))
        return { action: 'signalled', kind, via: 'reference', workflowId: legacy };
      return this.park(kind, 'reference', target.reference, account, delivery);
    }

    const registryId = target.registryId!;
    const cacheKey = `${account}:${kind}:${registryId}`;
    const cached = this.owners.get(cacheKey);
    if (cached !== undefined) {
      if (await this.trySignal(cached, delivery)) {
        return { action: 'signalled', kind, via: 'registry_id', workflowId: cached };
      }
      this.owners.delete(cacheKey);
    }
    const owner = await this.findOwner(kind, registryId, account);
    if (owner !== undefined && (await this.trySignal(owner, delivery))) {
      this.owners.set(cacheKey, owner);
      return { action: 'signalled', kind, via: 'registry_id', workflowId: owner };
    }
    return this.park(kind, 'registry_id', registryId, account, delivery);
  }

  /**
   * The running workflow of `account` that owns a registry id (not a parked-events workflow), if
   * visibility knows one.
   */
  async findOwner(kind: ParkedEntityKind, registryId: string, account: string): Promise<string | undefined> {
    if (!registryIdPattern.test(registryId) || !registryIdPattern.test(account)) return undefined;
    const key = kind === 'brand' ? BrandIdKey : CampaignIdKey;
    const query = `${key.name} = "${registryId}" AND ${AccountKey.name} = "${account}" AND ExecutionStatus = "Running" AND WorkflowType != "${PARKED_EVENTS_WORKFLOW_TYPE}"`;
    const entity = entityWorkflowIdPattern[kind];
    let fallback: string | undefined;
    for await (const execution of this.client.workflow.list({ query, pageSize: 10 })) {
      // Prefer the entity workflow itself over any child that also carries the id.
      if (entity.test(execution.workflowId)) return execution.workflowId;
      fallback ??= execution.workflowId;
    }
    return fallback;
  }

  private async trySignal(workflowId: string, delivery: RegistryEventDelivery): Promise<boolean> {
    try {
      await this.client.workflow.getHandle(workflowId).signal(registryEventSignal, delivery);
      return true;
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) return false;
      throw error;
    }
  }

  private async park(
    kind: ParkedEntityKind,
    via: RouteVia,
    key: string,
    account: string,
    delivery: RegistryEventDelivery,
  ): Promise<RouteOutcome> {
    const workflowId =
      via === 'reference'
        ? parkedEventsByReferenceWorkflowId(kind, key, account)
        : parkedEventsWorkflowId(kind, key, account);
    const input: ParkedEventsInput = {
      kind,
      keyType: via === 'reference' ? 'reference' : 'registryId',
      key,
      retentionMs: this.options.parkedRetentionMs,
    };
    await this.client.workflow.signalWithStart<ParkedEventsWorkflow, [RegistryEventDelivery]>(
      PARKED_EVENTS_WORKFLOW_TYPE,
      {
        workflowId,
        taskQueue: this.options.parkedTaskQueue,
        args: [input],
        signal: registryEventSignal,
        signalArgs: [delivery],
      },
    );
    return { action: 'parked', kind, via, workflowId };
  }
}
