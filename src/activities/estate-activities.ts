/**
 * The estate's activities (src/contracts/estate.ts): read one page of an account's brand or campaign
 * list, find each record's workflow through visibility (TcrBrandId / TcrCampaignId, TcrFingerprint),
 * then signal the ones whose registry state changed (sweep) or start one for each record no workflow
 * owns (import). One registry read per page; no personal data leaves the activity (records become
 * their non-personal snapshots before anything else sees them).
 */

import { setMaxListeners } from 'node:events';
import { Context } from '@temporalio/activity';
import {
  type Client,
  WorkflowExecutionAlreadyStartedError,
  type WorkflowExecutionInfo,
  WorkflowNotFoundError,
} from '@temporalio/client';
import { type SearchAttributePair, TypedSearchAttributes } from '@temporalio/common';
import { abortableSleep } from '../common/abortable-sleep.js';
import { joinableLegacy } from '../config/entity-lookup.js';
import type { BrandSnapshot } from '../contracts/activity-types.js';
import { BRAND_WORKFLOW_TYPE, type BrandWorkflowInput } from '../contracts/brand.js';
import { CAMPAIGN_WORKFLOW_TYPE, type CampaignWorkflowInput } from '../contracts/campaign.js';
import type { CampaignSnapshot } from '../contracts/campaign-activity-types.js';
import {
  adoptedReference,
  type EstateActivities,
  type EstateKind,
  type EstatePageInput,
  type UnownedEntity,
} from '../contracts/estate.js';
import { brandFingerprint, campaignFingerprint } from '../contracts/fingerprint.js';
import { brandWorkflowId, campaignWorkflowId } from '../contracts/ids.js';
import { priorityKeys } from '../contracts/priorities.js';
import {
  AccountKey,
  BrandIdKey,
  BrandReferenceKey,
  CampaignIdKey,
  FingerprintKey,
} from '../contracts/search-attributes.js';
import { registryChangedSignal } from '../contracts/signals.js';
import { WORKFLOW_TASK_QUEUE } from '../contracts/task-queues.js';
import { campaignSnapshot } from './campaign-activities.js';
import { mapRegistryErrors } from './failures.js';
import { attemptCallOptions } from './heartbeat.js';
import { brandSnapshot, clientOf, type RegistryClientResolver } from './registry-activities.js';

export interface EstateActivitiesOptions {
  /** Temporal client for visibility, signals and starts; default the activity context's client. */
  temporalClient?: Client;
  /** Workflow task queue adopted workflows run on (default `tcr-workflows`). */
  workflowTaskQueue?: string;
}

/** One record of a page, reduced to what the estate decides on. */
interface PageRecord {
  registryId: string;
  referenceId?: string;
  fingerprint: string;
  brandId?: string;
  snapshot: BrandSnapshot | CampaignSnapshot;
}

interface Owner {
  workflowId: string;
  open: boolean;
  fingerprint?: string;
  brandReference?: string;
}

/** Ids per visibility query (the query names each one). */
const IDS_PER_QUERY = 100;
/** Starts or signals in flight at once. */
const CONCURRENCY = 8;
/**
 * The import's pace (issue 36, item 5). Adoptees start at the bulk key, and an operator's Update on one
 * rides on its next workflow task, which waits behind every adoptee task queued before it (server
 * 1.29.1 cannot raise one workflow's key). So the import keeps that queue short: it starts adoptees a
 * chunk at a time and, after each chunk, waits until at most ADOPT_PENDING_BOUND of the adoptees it
 * started have not had their first workflow task started. Its own adoptees' backlog therefore never
 * exceeds ADOPT_PENDING_BOUND + ADOPT_CHUNK - 1 ahead of a new one: an operator's step on an adoptee is
 * dispatched behind at most that many of the import's first tasks (test/workflows/estate-import-paced.test.ts),
 * whatever the estate's size. Chunk small enough for that wait, large enough that the checks (one
 * describe per pending adoptee) stay cheap. Counted per adoptee, not from the task queue's stats:
 * DescribeTaskQueue's `approximateBacklogCount` on server 1.29.1 (dev server) showed nothing for seconds
 * after 10 tasks were queued, then 10, still 10 after their workflows were terminated.
 */
export const ADOPT_CHUNK = 20;
/** Adoptees of an import still waiting for their first workflow task, at most, before its next chunk. */
export const ADOPT_PENDING_BOUND = 5;
/** Pause between two checks of the pending adoptees. */
const PACE_POLL_MS = 250;

const registryIdKey = (kind: EstateKind) => (kind === 'brand' ? BrandIdKey : CampaignIdKey);
const workflowType = (kind: EstateKind) => (kind === 'brand' ? BRAND_WORKFLOW_TYPE : CAMPAIGN_WORKFLOW_TYPE);

/** A visibility string literal; registry ids are plain, anything with a quote or backslash is refused. */
function literal(value: string): string {
  if (/['"\\\n]/.test(value)) throw new Error(`unexpected character in registry id ${JSON.stringify(value)}`);
  return `'${value}'`;
}

/**
 * One page of a list: its records after the `skip` already read (the walk moved to a smaller page
 * size mid-list), how many the registry's page held, and its totalRecords.
 */
async function readPage(resolve: RegistryClientResolver, input: EstatePageInput) {
  const { totalRecords, records } = await listPage(resolve, input);
  return { totalRecords, returned: records.length, records: records.slice(input.skip ?? 0) };
}

async function listPage(resolve: RegistryClientResolver, input: EstatePageInput) {
  const client = clientOf(resolve, input.account);
  const query = { page: input.page, recordsPerPage: input.recordsPerPage };
  const opts = attemptCallOptions();
  if (input.kind === 'brand') {
    const page = await client.listBrands(query, opts);
    const records: PageRecord[] = page.records.map((brand) => {
      const snapshot = brandSnapshot(brand);
      return {
        registryId: snapshot.brandId,
        ...(snapshot.referenceId ? { referenceId: snapshot.referenceId } : {}),
        fingerprint: brandFingerprint(snapshot),
        snapshot,
      };
    });
    return { totalRecords: page.totalRecords, records };
  }
  const page = await client.listCampaigns(query, opts);
  const records: PageRecord[] = page.records.map((campaign) => {
    const snapshot = campaignSnapshot(campaign);
    return {
      registryId: snapshot.campaignId,
      ...(snapshot.referenceId ? { referenceId: snapshot.referenceId } : {}),
      ...(snapshot.brandId ? { brandId: snapshot.brandId } : {}),
      fingerprint: campaignFingerprint(snapshot),
      snapshot,
    };
  });
  return { totalRecords: page.totalRecords, records };
}

function ownerOf(info: WorkflowExecutionInfo): Owner {
  const fingerprint = info.typedSearchAttributes.get(FingerprintKey);
  const brandReference = info.typedSearchAttributes.get(BrandReferenceKey);
  return {
    workflowId: info.workflowId,
    open: info.status.name === 'RUNNING',
    ...(fingerprint ? { fingerprint } : {}),
    ...(brandReference ? { brandReference } : {}),
  };
}

/**
 * The workflows of `ids` (registry ids of one kind in one account), by visibility. An id with an open
 * run maps to it; one with only closed runs to a closed owner; a run that continued as new is passed
 * over (its successor is listed).
 */
async function ownersOf(
  temporal: Client,
  account: string,
  kind: EstateKind,
  ids: string[],
): Promise<Map<string, Owner>> {
  const owners = new Map<string, Owner>();
  const key = registryIdKey(kind);
  for (let i = 0; i < ids.length; i += IDS_PER_QUERY) {
    const batch = ids.slice(i, i + IDS_PER_QUERY);
    const query = `WorkflowType = ${literal(workflowType(kind))} AND ${AccountKey.name} = ${literal(account)} AND ${key.name} IN (${batch.map(literal).join(', ')})`;
    for await (const info of temporal.workflow.list({ query })) {
      if (info.status.name === 'CONTINUED_AS_NEW') continue;
      const id = info.typedSearchAttributes.get(key);
      if (!id) continue;
      const known = owners.get(id);
      if (!known || (!known.open && info.status.name === 'RUNNING')) owners.set(id, ownerOf(info));
    }
  }
  return owners;
}

/** Runs `work` over `items`, CONCURRENCY at a time. */
async function eachAtMost<T>(items: T[], work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: Math.min(CONCURRENCY, items.length) }, async () => {
    while (next < items.length) await work(items[next++]!);
  });
  await Promise.all(lanes);
}

function unownedOf(kind: EstateKind, record: PageRecord): UnownedEntity {
  return {
    kind,
    registryId: record.registryId,
    ...(record.referenceId ? { referenceId: record.referenceId } : {}),
  };
}

/**
 * Waits until at most ADOPT_PENDING_BOUND of `pending` (workflow ids the import started) have not had
 * their first workflow task started (history beyond WorkflowExecutionStarted and WorkflowTaskScheduled);
 * the started ones leave `pending`. No limit of its own: while no worker runs the adoptees, it waits,
 * heartbeating, until the attempt is cancelled or times out (its signal aborts the describe or the pause).
 */
async function awaitFirstTasks(
  client: Client,
  run: <T>(fn: () => Promise<T>) => Promise<T>,
  pending: Set<string>,
): Promise<void> {
  const context = activityContext();
  for (;;) {
    for (const workflowId of [...pending]) {
      try {
        const { historyLength } = await run(() => client.workflow.getHandle(workflowId).describe());
        if (historyLength > 2) pending.delete(workflowId);
      } catch (error) {
        if (!(error instanceof WorkflowNotFoundError)) throw error;
        pending.delete(workflowId); // gone (retention): nothing of it waits
      }
    }
    if (pending.size <= ADOPT_PENDING_BOUND) return;
    context?.heartbeat();
    await abortableSleep(PACE_POLL_MS, context?.cancellationSignal);
  }
}

function activityContext(): Context | undefined {
  try {
    return Context.current();
  } catch {
    return undefined; // called outside an activity (tests)
  }
}

/** Starts an adopting workflow, its id; undefined when one with its id exists (open or closed): it is left alone. */
async function adopt(
  temporal: Client,
  taskQueue: string,
  account: string,
  kind: EstateKind,
  record: PageRecord,
  brandReferences: Map<string, string>,
): Promise<string | undefined> {
  const reference = adoptedReference(record);
  const attributes: SearchAttributePair[] = [
    { key: AccountKey, value: account },
    { key: registryIdKey(kind), value: record.registryId },
  ];
  let workflowId: string;
  let input: BrandWorkflowInput | CampaignWorkflowInput;
  if (kind === 'brand') {
    workflowId = brandWorkflowId(account, reference);
    input = { reference, account, adopt: record.snapshot as BrandSnapshot };
    attributes.push({ key: BrandReferenceKey, value: reference });
  } else {
    // The campaign's brand, by its workflow's reference when one owns it (brands are imported first).
    const brandReference = (record.brandId && brandReferences.get(record.brandId)) || record.brandId || '';
    workflowId = campaignWorkflowId(account, reference);
    input = {
      reference,
      account,
      brandReference,
      upstreamCnpId: '',
      adopt: record.snapshot as CampaignSnapshot,
    };
    attributes.push({ key: BrandReferenceKey, value: brandReference });
  }
  // An entity an earlier release's workflow holds for this account under its legacy id is adopted already.
  if ((await joinableLegacy(temporal, kind, account, reference)) !== undefined) return undefined;
  try {
    await temporal.workflow.start(workflowType(kind), {
      workflowId,
      taskQueue,
      args: [input],
      // Never a second run: an existing workflow of this id, even a closed one (an operator cancelled
      // it), keeps the entity.
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      typedSearchAttributes: new TypedSearchAttributes(attributes),
      // The Web UI's summary of the workflow from its start (ids only).
      staticSummary: `${kind} ${reference} of account ${account}: adopted from the registry (tcr import)`,
      // Behind every other workflow task, the import's included: an import starts adoptees faster
      // than a worker runs their first tasks, and at the default key its own next page waited behind
      // them (a 100,000 import stalled at 25,000 on this box). Their registry calls carry their own keys.
      // The cost: an operator's Update on an adoptee rides on its next workflow task, at this key, behind
      // the adoptees' tasks queued before it (server 1.29.1 cannot raise one workflow's key; see
      // src/contracts/priorities.ts).
      priority: { priorityKey: priorityKeys.bulk },
    });
    return workflowId;
  } catch (error) {
    if (error instanceof WorkflowExecutionAlreadyStartedError) return undefined;
    throw error;
  }
}

export function createEstateActivities(
  resolve: RegistryClientResolver,
  options: EstateActivitiesOptions = {},
): EstateActivities {
  const temporal = () => {
    const client = options.temporalClient ?? Context.current().client;
    const signal = attemptCallOptions().signal;
    // Every Temporal call of the attempt (a start per record of a page, its owner lookups) adds a
    // listener to the attempt's signal, which keeps it until the attempt ends and is dropped with it:
    // hundreds for a page of 500, past Node's default of 10 at which it warns of a leak that is not one.
    if (signal) setMaxListeners(0, signal);
    return { client, run: <T>(fn: () => Promise<T>) => (signal ? client.withAbortSignal(signal, fn) : fn()) };
  };
  const taskQueue = options.workflowTaskQueue ?? WORKFLOW_TASK_QUEUE;
  /** One page of the registry's list, and the workflow (if any) of each of its records. */
  const pageWithOwners = async (input: EstatePageInput) => {
    const page = await readPage(resolve, input);
    const { client, run } = temporal();
    const ids = page.records.map((r) => r.registryId);
    const owners = await run(() => ownersOf(client, input.account, input.kind, ids));
    return { page, owners, client, run };
  };

  return {
    sweepPage: (input) =>
      mapRegistryErrors(async () => {
        const { page, owners, client, run } = await pageWithOwners(input);
        const seenAt = new Date().toISOString();
        const result = {
          totalRecords: page.totalRecords,
          records: page.records.length,
          returned: page.returned,
          unchanged: 0,
          changed: 0,
          closed: 0,
          unowned: [] as UnownedEntity[],
        };
        const changed: { owner: Owner; fingerprint: string }[] = [];
        for (const record of page.records) {
          const owner = owners.get(record.registryId);
          if (!owner) result.unowned.push(unownedOf(input.kind, record));
          else if (!owner.open) result.closed++;
          else if (owner.fingerprint === record.fingerprint) result.unchanged++;
          else changed.push({ owner, fingerprint: record.fingerprint });
        }
        await eachAtMost(changed, async ({ owner, fingerprint }) => {
          try {
            await run(() =>
              client.workflow
                .getHandle(owner.workflowId)
                .signal(registryChangedSignal, { fingerprint, seenAt }),
            );
            result.changed++;
          } catch (error) {
            if (!(error instanceof WorkflowNotFoundError)) throw error;
            result.closed++; // it closed since visibility listed it
          }
        });
        return result;
      }),

    importPage: (input) =>
      mapRegistryErrors(async () => {
        const { page, owners, client, run } = await pageWithOwners(input);
        const result = {
          totalRecords: page.totalRecords,
          records: page.records.length,
          returned: page.returned,
          adopted: 0,
          owned: 0,
          wouldAdopt: [] as UnownedEntity[],
        };
        const unowned = page.records.filter((r) => !owners.has(r.registryId));
        result.owned = page.records.length - unowned.length;
        if (input.dryRun) {
          result.wouldAdopt = unowned.map((r) => unownedOf(input.kind, r));
          return result;
        }
        const brandReferences = new Map<string, string>();
        if (input.kind === 'campaign') {
          const brandIds = [...new Set(unowned.flatMap((r) => (r.brandId ? [r.brandId] : [])))];
          const brands = await run(() => ownersOf(client, input.account, 'brand', brandIds));
          for (const [brandId, owner] of brands)
            if (owner.brandReference) brandReferences.set(brandId, owner.brandReference);
        }
        // Paced to the worker (ADOPT_CHUNK): a chunk, then its first tasks, then the next.
        const pending = new Set<string>();
        for (let at = 0; at < unowned.length; at += ADOPT_CHUNK) {
          await eachAtMost(unowned.slice(at, at + ADOPT_CHUNK), async (record) => {
            const started = await run(() =>
              adopt(client, taskQueue, input.account, input.kind, record, brandReferences),
            );
            if (started) {
              result.adopted++;
              pending.add(started);
            } else result.owned++;
          });
          await awaitFirstTasks(client, run, pending);
        }
        return result;
      }),
  };
}
