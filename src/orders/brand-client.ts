/**
 * The order-system API of brand workflows: start, steer (typed wrappers of the Updates), query.
 * Uses a Temporal `Client`; the workflow is referenced by the name and signature of its contract
 * (src/contracts/brand.ts) only, so importing this module pulls no workflow code into the caller.
 */
import type { Client, WorkflowHandle } from '@temporalio/client';
import {
  BRAND_WORKFLOW_TYPE,
  type BrandPhase,
  type BrandStatus,
  type BrandWorkflow,
  brandStatusQuery,
} from '../contracts/brand.js';
import {
  type AppealRequest,
  acknowledgeBrandUpdate,
  appealUpdate,
  type BrandOperationOutcome,
  type CorrectBrandRequest,
  cancelUpdate,
  correctBrandUpdate,
  type ImportVetRequest,
  importVetUpdate,
  type OrderVetRequest,
  orderVetUpdate,
  revetUpdate,
} from '../contracts/brand-operations.js';
import { AccountKey, BrandReferenceKey, PhaseKey } from '../contracts/search-attributes.js';
import { type BrandOrder, parseBrandOrder, type StartBrandOrderOptions } from './brand-order.js';
import { checkNotifyOption, subscribeAfterStart, type WaitOptions, waitForStatus } from './notifications.js';
import { parseRequest } from './operator-requests.js';
import { type EntityRef, entityOrders, type SteeringOptions, steeringUpdateOptions } from './order-client.js';
import {
  StrictAcknowledgeRequestSchema,
  StrictAppealRequestSchema,
  StrictCancelRequestSchema,
  StrictCorrectBrandRequestSchema,
  StrictImportVetRequestSchema,
  StrictOrderVetRequestSchema,
} from './request-schemas.js';

export type BrandWorkflowHandle = WorkflowHandle<BrandWorkflow>;

export interface StartedBrandOrder {
  handle: BrandWorkflowHandle;
  order: BrandOrder;
  /** False when a workflow for this reference already existed (nothing was started). */
  started: boolean;
}

const brands = entityOrders<BrandWorkflow, BrandStatus>({
  workflowType: BRAND_WORKFLOW_TYPE,
  kind: 'brand',
  statusQuery: brandStatusQuery,
});

/**
 * Validates `order` (throws OrderValidationError with every field error, starting nothing) and
 * starts `brand/{reference}`. Starting the same order again returns the existing workflow: the
 * workflow id is the reference (conflict policy USE_EXISTING). A workflow that failed or was
 * terminated can be ordered again (reuse policy ALLOW_DUPLICATE_FAILED_ONLY); registration is
 * idempotent by referenceId at the registry, so the new run adopts the brand without a second fee.
 * A completed one (deleted, cancelled) stays closed: its handle is returned.
 */
export async function startBrandOrder(
  client: Client,
  order: unknown,
  opts: StartBrandOrderOptions = {},
): Promise<StartedBrandOrder> {
  const parsed = parseBrandOrder(order, opts.now ? { now: opts.now } : {});
  const notify = checkNotifyOption(opts.notify);
  const { handle, started } = await brands.start(client, {
    taskQueue: opts.taskQueue,
    input: {
      reference: parsed.reference,
      account: parsed.account,
      registration: parsed.registration,
      ...(opts.workflowOptions ? { options: opts.workflowOptions } : {}),
    },
    searchAttributes: [
      { key: BrandReferenceKey, value: parsed.reference },
      { key: AccountKey, value: parsed.account },
      { key: PhaseKey, value: 'registering' },
    ],
  });
  await subscribeAfterStart(
    client,
    'brand',
    { account: parsed.account, reference: parsed.reference },
    notify,
  );
  return { handle, order: parsed, started };
}

export function brandHandle(client: Client, reference: EntityRef): BrandWorkflowHandle {
  return brands.handle(client, reference);
}

export function getBrandStatus(client: Client, reference: EntityRef): Promise<BrandStatus> {
  return brands.status(client, reference);
}

export type { SteeringOptions } from './order-client.js';

export function correctBrand(
  client: Client,
  reference: EntityRef,
  request: CorrectBrandRequest,
  opts: SteeringOptions = {},
): Promise<BrandOperationOutcome> {
  const what = 'correctBrand request';
  const schema = StrictCorrectBrandRequestSchema;
  return brands.update(client, reference, correctBrandUpdate, what, schema, request, opts);
}
export async function revetBrand(
  client: Client,
  reference: EntityRef,
  opts: SteeringOptions = {},
): Promise<BrandOperationOutcome> {
  const { updateId } = steeringUpdateOptions('revet request', undefined, opts);
  return brands.withHandle(client, reference, (h) =>
    h.executeUpdate(revetUpdate, updateId !== undefined ? { updateId } : {}),
  );
}
export function appealBrand(
  client: Client,
  reference: EntityRef,
  request: AppealRequest,
  opts: SteeringOptions = {},
): Promise<BrandOperationOutcome> {
  return brands.update(client, reference, appealUpdate, 'appeal', StrictAppealRequestSchema, request, opts);
}
/** Options of a billed vet request: the caller's idempotency key (see `SteeringOptions`). */
export type VetRequestOptions = SteeringOptions;
const vetUpdateOptions = steeringUpdateOptions;

export async function orderVet(
  client: Client,
  reference: EntityRef,
  request: OrderVetRequest,
  opts: VetRequestOptions = {},
): Promise<BrandOperationOutcome> {
  const valid = parseRequest('vet order', StrictOrderVetRequestSchema, request);
  const options = vetUpdateOptions('vet order', valid, opts);
  return brands.withHandle(client, reference, (h) => h.executeUpdate(orderVetUpdate, options));
}
export async function importVet(
  client: Client,
  reference: EntityRef,
  request: ImportVetRequest,
  opts: VetRequestOptions = {},
): Promise<BrandOperationOutcome> {
  const valid = parseRequest('vet import', StrictImportVetRequestSchema, request);
  const options = vetUpdateOptions('vet import', valid, opts);
  return brands.withHandle(client, reference, (h) => h.executeUpdate(importVetUpdate, options));
}
export function cancelBrand(
  client: Client,
  reference: EntityRef,
  reason: string,
  opts: SteeringOptions = {},
): Promise<BrandOperationOutcome> {
  const what = 'cancel request';
  return brands.update(client, reference, cancelUpdate, what, StrictCancelRequestSchema, { reason }, opts);
}

/**
 * Clears a wait's overdue needs-action (`contact-verification-overdue`,
 * `sole-proprietor-verification-overdue`, `appeal-overdue`) the operator has handled: the wait's
 * deadline moves a full period, so it is raised again only if the wait lasts that much longer.
 */
export function acknowledgeBrandAction(
  client: Client,
  reference: EntityRef,
  key: string,
  opts: SteeringOptions = {},
): Promise<BrandOperationOutcome> {
  const what = 'acknowledge request';
  const schema = StrictAcknowledgeRequestSchema;
  return brands.update(client, reference, acknowledgeBrandUpdate, what, schema, { key }, opts);
}

/**
 * Waits until the brand is in `phase` through the workflow's `waitForPhase` update (no polling),
 * for `timeoutMs`. Returns the status; throws when the brand ends in another final phase or time runs
 * out. The fifth argument, once the poll interval, may name the wait (`waitId`): a restarted client
 * waiting under the same id re-attaches to the same update.
 */
export async function waitForBrandPhase(
  client: Client,
  reference: EntityRef,
  phase: BrandPhase,
  timeoutMs: number,
  opts?: number | WaitOptions,
): Promise<BrandStatus> {
  return waitForStatus<BrandStatus>(
    client,
    'brand',
    reference,
    [phase],
    timeoutMs,
    typeof opts === 'object' ? opts : {},
  );
}
