/**
 * The Nexus service handlers (contract: src/contracts/nexus-service.ts), registered on the worker of
 * `tcr-workflows` (src/workers/create-workers.ts). Every input is parsed at the edge with the order
 * API's strict schemas (src/orders): a bad one is a BAD_REQUEST handler error naming every field at
 * fault, and nothing is started or sent.
 *
 * Ordering (orderBrand, orderCampaign) first makes the order API's idempotent start (the same
 * reference again attaches to its workflow: nothing registered or billed twice), then starts the
 * outcome workflow (src/workflows/nexus/order-outcome.ts) as the operation's backing run. Its id
 * carries the Nexus request id: a retried start attaches to it (conflict policy USE_EXISTING, the
 * completion callback attached), so the order system hears the outcome once. orderVet sends the
 * brand's orderVet update with an idempotency key (the caller's, default the request id), then waits
 * for that vet. Steering operations and `status` answer at once.
 */
import type { Client } from '@temporalio/client';
import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import {
  getClient,
  type WorkflowHandle as NexusWorkflowHandle,
  operationInfo,
  startWorkflow,
  WorkflowRunOperationHandler,
} from '@temporalio/nexus';
import * as nexus from 'nexus-rpc';
import { z } from 'zod';
import { messageOf } from '../common/error-message.js';
import {
  type NexusBrandOrder,
  type NexusCampaignOrder,
  type NexusVetOrder,
  ORDER_OUTCOME_WORKFLOW_TYPE,
  type OrderOutcomeInput,
  type OrderResult,
  orderOutcomeWorkflowId,
  orderSystemService,
  type RegistrationRef,
  type VetResult,
} from '../contracts/nexus-service.js';
import { accountNamePattern } from '../contracts/task-queues.js';
import {
  acknowledgeCampaignAction,
  approveCampaignFee,
  CampaignOrderValidationError,
  cancelCampaign,
  confirmCampaignDca,
  resubmitCampaign,
  shareCampaignWith,
  startCampaignOrder,
} from '../orders/campaign-orders.js';
import {
  acknowledgeBrandAction,
  appealBrand,
  cancelBrand,
  correctBrand,
  OrderValidationError,
  orderVet,
  RequestValidationError,
  revetBrand,
  startBrandOrder,
} from '../orders/index.js';
import { parseRequest } from '../orders/operator-requests.js';
import {
  IdempotencyKeySchema,
  StrictAcknowledgeRequestSchema,
  StrictAppealRequestSchema,
  StrictApproveFeeRequestSchema,
  StrictCampaignCancelRequestSchema,
  StrictCancelRequestSchema,
  StrictConfirmDcaCompleteRequestSchema,
  StrictCorrectBrandRequestSchema,
  StrictOrderVetRequestSchema,
  StrictResubmitRequestSchema,
  StrictShareWithRequestSchema,
} from '../orders/request-schemas.js';
import { ReferenceIdSchema } from '../registry/schemas.js';
import { readStatus } from './status.js';

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** An order system's mistake, as Nexus says it: BAD_REQUEST (not retried), or NOT_FOUND. */
function edgeError(error: unknown): unknown {
  if (
    error instanceof OrderValidationError ||
    error instanceof CampaignOrderValidationError ||
    error instanceof RequestValidationError
  )
    return new nexus.HandlerError('BAD_REQUEST', error.message, { retryableOverride: false });
  if (error instanceof WorkflowNotFoundError)
    return new nexus.HandlerError('NOT_FOUND', messageOf(error), { retryableOverride: false });
  // The workflow's own check refused the update (its validator): the request, not the service.
  if (error instanceof WorkflowUpdateFailedError)
    return new nexus.HandlerError('BAD_REQUEST', messageOf(error.cause ?? error), {
      retryableOverride: false,
    });
  return error;
}

async function atEdge<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw edgeError(error);
  }
}

const RefSchema = z.object({
  account: z.string().regex(accountNamePattern, 'account must be a configured CSP account name'),
  reference: ReferenceIdSchema,
});

/** `{account, reference, ...request}`: the ref checked, the rest parsed with the request's strict schema. */
function splitRef<S extends z.ZodType>(
  what: string,
  schema: S,
  input: unknown,
): [RegistrationRef, z.output<S>] {
  if (!isObject(input))
    throw new RequestValidationError(what, [{ path: '(input)', message: 'expected an object' }]);
  const { account, reference, ...request } = input;
  const ref = parseRequest(what, RefSchema, { account, reference });
  return [ref, parseRequest(what, schema, request)];
}

function steer<R>(
  what: string,
  schema: z.ZodType,
  run: (client: Client, ref: RegistrationRef, request: never) => Promise<R>,
): nexus.SyncOperationHandler<RegistrationRef, R> {
  return (_ctx, input) =>
    atEdge(async () => {
      const [reference, request] = splitRef(what, schema, input);
      return run(getClient(), reference, request as never);
    });
}

const StatusRequestSchema = RefSchema.extend({ entity: z.enum(['brand', 'campaign']) }).strict();
const VetOrderSchema = z.object({
  account: RefSchema.shape.account,
  brandReference: ReferenceIdSchema,
  idempotencyKey: IdempotencyKeySchema.optional(),
});

/** Starts the outcome workflow backing an order operation (its id from the Nexus request id). */
function startOutcome<T extends OrderResult | VetResult>(
  ctx: nexus.StartOperationContext,
  input: OrderOutcomeInput,
): Promise<NexusWorkflowHandle<T>> {
  return startWorkflow(ctx, ORDER_OUTCOME_WORKFLOW_TYPE, {
    workflowId: orderOutcomeWorkflowId(input.kind, ctx.requestId),
    args: [input],
    workflowIdConflictPolicy: 'USE_EXISTING',
    workflowIdReusePolicy: 'ALLOW_DUPLICATE',
  }) as Promise<NexusWorkflowHandle<never>>;
}

export const orderSystemServiceHandler = nexus.serviceHandler(orderSystemService, {
  orderBrand: new WorkflowRunOperationHandler<NexusBrandOrder, OrderResult>(async (ctx, input) => {
    const { order } = await atEdge(() =>
      startBrandOrder(getClient(), input, { taskQueue: operationInfo().taskQueue }),
    );
    return startOutcome(ctx, { kind: 'brand', account: order.account, reference: order.reference });
  }),
  orderCampaign: new WorkflowRunOperationHandler<NexusCampaignOrder, OrderResult>(async (ctx, input) => {
    const { order } = await atEdge(() =>
      startCampaignOrder(getClient(), input, { taskQueue: operationInfo().taskQueue }),
    );
    return startOutcome(ctx, { kind: 'campaign', account: order.account, reference: order.reference });
  }),
  orderVet: new WorkflowRunOperationHandler<NexusVetOrder, VetResult>(async (ctx, input) => {
    const what = 'vet order';
    const ordered = await atEdge(async () => {
      if (!isObject(input))
        throw new RequestValidationError(what, [{ path: '(input)', message: 'expected an object' }]);
      const { account, brandReference, idempotencyKey, ...request } = input;
      const ref = parseRequest(what, VetOrderSchema, { account, brandReference, idempotencyKey });
      const valid = parseRequest(what, StrictOrderVetRequestSchema, request);
      const brand = { account: ref.account, reference: ref.brandReference };
      const outcome = await orderVet(getClient(), brand, valid, {
        idempotencyKey: ref.idempotencyKey ?? `nexus-${ctx.requestId}`,
      });
      return { ...ref, outcome };
    });
    const { vetSeq, vetWorkflowId } = ordered.outcome.ids ?? {};
    if (vetSeq === undefined || vetWorkflowId === undefined)
      throw new nexus.OperationError(
        'failed',
        `vet not ordered (${ordered.outcome.outcome}): ${ordered.outcome.detail ?? 'no detail'}`,
      );
    return startOutcome(ctx, {
      kind: 'vet',
      account: ordered.account,
      brandReference: ordered.brandReference,
      vetSeq: Number(vetSeq),
      vetWorkflowId,
    });
  }),
  status: (_ctx, input) =>
    atEdge(async () => {
      const request = parseRequest('status request', StatusRequestSchema, input);
      return readStatus(getClient(), request.entity, request.account, request.reference);
    }),
  correctBrand: steer('correctBrand request', StrictCorrectBrandRequestSchema, correctBrand),
  revetBrand: steer('revet request', z.strictObject({}), (client, reference) =>
    revetBrand(client, reference),
  ),
  appealBrand: steer('appeal', StrictAppealRequestSchema, appealBrand),
  cancelBrand: steer(
    'cancel request',
    StrictCancelRequestSchema,
    (client, reference, r: { reason: string }) => cancelBrand(client, reference, r.reason),
  ),
  acknowledgeBrand: steer(
    'acknowledge request',
    StrictAcknowledgeRequestSchema,
    (client, reference, r: { key: string }) => acknowledgeBrandAction(client, reference, r.key),
  ),
  approveFee: steer('approveFee request', StrictApproveFeeRequestSchema, approveCampaignFee),
  resubmitCampaign: steer('resubmit request', StrictResubmitRequestSchema, resubmitCampaign),
  shareCampaignWith: steer(
    'shareWith request',
    StrictShareWithRequestSchema,
    (client, reference, r: { upstreamCnpId: string }) =>
      shareCampaignWith(client, reference, r.upstreamCnpId),
  ),
  confirmCampaignDca: steer(
    'confirmDcaComplete request',
    StrictConfirmDcaCompleteRequestSchema,
    confirmCampaignDca,
  ),
  cancelCampaign: steer(
    'cancel request',
    StrictCampaignCancelRequestSchema,
    (client, reference, r: { reason: string }) => cancelCampaign(client, reference, r.reason),
  ),
  acknowledgeCampaign: steer(
    'acknowledge request',
    StrictAcknowledgeRequestSchema,
    (client, reference, r: { key: string }) => acknowledgeCampaignAction(client, reference, r.key),
  ),
});
