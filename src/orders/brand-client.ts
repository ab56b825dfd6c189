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
import { parseRequest } from './operator-requests.js';
import { type EntityRef, entityOrders, refName } from './order-client.js';
import {
  IdempotencyKeySchema,
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
  const { handle, started } = await brands.start(client, {
    account: parsed.account,
    reference: parsed.reference,
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
  return { handle, order: parsed, started };
}

export function brandHandle(client: Client, reference: EntityRef): BrandWorkflowHandle {
  return brands.handle(client, reference);
}

export function getBrandStatus(client: Client, reference: EntityRef): Promise<BrandStatus> {
  return brands.status(client, reference);
}

export function correctBrand(
  client: Client,
  reference: EntityRef,
  request: CorrectBrandRequest,
): Promise<BrandOperationOutcome> {
  const what = 'correctBrand request';
  return brands.update(client, reference, correctBrandUpdate, what, StrictCorrectBrandRequestSchema, request);
}
export function revetBrand(client: Client, reference: EntityRef): Promise<BrandOperationOutcome> {
  return brands.withHandle(client, reference, (h) => h.executeUpdate(revetUpdate));
}
export function appealBrand(
  client: Client,
  reference: EntityRef,
  request: AppealRequest,
): Promise<BrandOperationOutcome> {
  return brands.update(client, reference, appealUpdate, 'appeal', StrictAppealRequestSchema, request);
}
/** Options of a billed vet request: the caller's idempotency key (see `IdempotencyKeySchema`). */
export interface VetRequestOptions {
  /**
   * Sent as the Temporal update id: the same key asked again (a retry after a timeout, a double click)
   * is answered with the first request's outcome, and nothing is ordered twice. Without one, the
   * client makes a fresh id per call (an identical request in progress is still answered once).
   */
  idempotencyKey?: string;
}

function vetUpdateOptions<R>(what: string, request: R, opts: VetRequestOptions) {
  if (opts.idempotencyKey === undefined) return { args: [request] as [R] };
  const key = parseRequest(`${what} idempotency key`, IdempotencyKeySchema, opts.idempotencyKey);
  return { args: [request] as [R], updateId: key };
}

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
): Promise<BrandOperationOutcome> {
  return brands.update(client, reference, cancelUpdate, 'cancel request', StrictCancelRequestSchema, {
    reason,
  });
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
): Promise<BrandOperationOutcome> {
  const what = 'acknowledge request';
  return brands.update(client, reference, acknowledgeBrandUpdate, what, StrictAcknowledgeRequestSchema, {
    key,
  });
}

/**
 * Polls the status query until the brand reaches `phase` (or a final phase), or `timeoutMs` passes.
 * Returns the status; throws on timeout with the last phase seen.
 */
export async function waitForBrandPhase(
  client: Client,
  reference: EntityRef,
  phase: BrandPhase,
  timeoutMs: number,
  pollMs = 200,
): Promise<BrandStatus> {
  const deadline = Date.now() + timeoutMs;
  let last: BrandStatus | undefined;
  for (;;) {
    try {
      last = await getBrandStatus(client, reference);
      if (last.phase === phase) return last;
      if (last.phase === 'deleted' || last.phase === 'cancelled')
        throw new Error(
          `brand ${refName(reference)} ended in phase ${last.phase} while waiting for ${phase}`,
        );
    } catch (error) {
      if (error instanceof Error && error.message.startsWith(`brand ${refName(reference)} ended`))
        throw error;
    }
    if (Date.now() >= deadline)
      throw new Error(
        `brand ${refName(reference)} did not reach phase ${phase} within ${timeoutMs} ms (last: ${last?.phase ?? 'none'})`,
      );
    await new Promise((r) => setTimeout(r, pollMs));
  }
}
