/**
 * The order-system API of campaign workflows: the campaign order schema (validated at the edge,
 * before any workflow starts), start, steer (typed wrappers of the Updates), query and wait.
 * Uses a Temporal `Client`; the workflow is referenced by the name and signature of its contract
 * (src/contracts/campaign.ts) only.
 */
import type { KeyObject } from 'node:crypto';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { z } from 'zod';
import { accountRequired, resolveBare } from '../config/entity-lookup.js';
import { signFeeApproval } from '../config/fee-approvers.js';
import {
  CAMPAIGN_WORKFLOW_TYPE,
  type CampaignContent,
  type CampaignPhase,
  type CampaignStatus,
  type CampaignWorkflow,
  type CampaignWorkflowOptions,
  campaignStatusQuery,
} from '../contracts/campaign.js';
import {
  type ApproveFeeRequest,
  acknowledgeUpdate,
  approveFeeUpdate,
  type CampaignOperationOutcome,
  type ConfirmDcaCompleteRequest,
  cancelCampaignUpdate,
  confirmDcaCompleteUpdate,
  type ResubmitRequest,
  resubmitUpdate,
  shareWithUpdate,
  type UpdateCampaignRequest,
  updateCampaignUpdate,
} from '../contracts/campaign-operations.js';
import { CampaignContentSchema } from '../contracts/campaign-requests.js';
import { referenceFromWorkflowId } from '../contracts/ids.js';
import type { Subscriber } from '../contracts/notifications.js';
import { AccountKey, BrandReferenceKey, PhaseKey } from '../contracts/search-attributes.js';
import { accountNamePattern } from '../contracts/task-queues.js';
import { describeFieldErrors, fieldErrorsOf } from '../registry/field-errors.js';
import { ReferenceIdSchema } from '../registry/schemas.js';
import { checkNotifyOption, subscribeAfterStart, type WaitOptions, waitForStatus } from './notifications.js';
import { type EntityRef, entityOrders, type SteeringOptions } from './order-client.js';
import {
  StrictAcknowledgeRequestSchema,
  StrictApproveFeeRequestSchema,
  StrictCampaignCancelRequestSchema,
  StrictConfirmDcaCompleteRequestSchema,
  StrictResubmitRequestSchema,
  StrictShareWithRequestSchema,
  StrictUpdateCampaignRequestSchema,
} from './request-schemas.js';

export const CampaignOrderSchema = z.strictObject({
  /** The CSP's reference: workflow id `campaign/{reference}`, sent to the registry as referenceId. */
  reference: ReferenceIdSchema,
  account: z.string().regex(accountNamePattern, 'account must be a configured CSP account name'),
  /** The brand's reference (its workflow `brand/{brandReference}`). */
  brandReference: ReferenceIdSchema,
  /** The upstream partner to share with: another CSP or a DCA (GET /enum/cnp). */
  upstreamCnpId: z.string().min(1, 'upstreamCnpId is required').max(100),
  /** Wait for an operator's approveFee before the billed creation call. */
  requireFeeApproval: z.boolean().optional(),
  /**
   * Campaign fields of POST /campaignBuilder except brandId and referenceId (set by the workflow); no
   * others: an unknown field is refused by name.
   */
  campaign: CampaignContentSchema.strict(),
});
export type CampaignOrderInput = z.input<typeof CampaignOrderSchema>;

export interface CampaignOrder {
  reference: string;
  account: string;
  brandReference: string;
  upstreamCnpId: string;
  requireFeeApproval: boolean;
  campaign: CampaignContent;
}

export interface CampaignFieldError {
  /** Dotted path, e.g. `campaign.description`. */
  path: string;
  message: string;
}

/** A refused campaign order: every field error, nothing started. */
export class CampaignOrderValidationError extends Error {
  override readonly name = 'CampaignOrderValidationError';
  constructor(readonly errors: CampaignFieldError[]) {
    super(`invalid campaign order: ${describeFieldErrors(errors)}`);
  }
}

export function parseCampaignOrder(order: unknown): CampaignOrder {
  const parsed = CampaignOrderSchema.safeParse(order);
  if (!parsed.success)
    throw new CampaignOrderValidationError(fieldErrorsOf(parsed.error, CampaignOrderSchema));
  return { ...parsed.data, requireFeeApproval: parsed.data.requireFeeApproval ?? false };
}

export interface StartCampaignOrderOptions {
  /** Workflow task queue (default `tcr-workflows`). */
  taskQueue?: string;
  workflowOptions?: CampaignWorkflowOptions;
  /** Subscribe this order system to the campaign's notifications right after the start (id `order-notify`; src/orders/notifications.ts). */
  notify?: Subscriber;
}

export type CampaignWorkflowHandle = WorkflowHandle<CampaignWorkflow>;

export interface StartedCampaignOrder {
  handle: CampaignWorkflowHandle;
  order: CampaignOrder;
  /**
   * False when a closed workflow for this reference exists that may not run again (it completed:
   * nothing started). A running one is returned with true (USE_EXISTING; the server does not say which).
   */
  started: boolean;
}

const campaigns = entityOrders<CampaignWorkflow, CampaignStatus>({
  workflowType: CAMPAIGN_WORKFLOW_TYPE,
  kind: 'campaign',
  statusQuery: campaignStatusQuery,
});

/**
 * Validates `order` (throws CampaignOrderValidationError naming every bad field, starting nothing)
 * and starts `campaign/{reference}`. Starting the same order again returns the running workflow
 * (conflict policy USE_EXISTING). A workflow that failed or was terminated can be ordered again
 * (reuse policy ALLOW_DUPLICATE_FAILED_ONLY): the new run finds the registry's campaign by
 * referenceId and adopts it, so an order is never created or billed twice. A completed one
 * (expired, cancelled, deactivated) stays closed: its handle is returned.
 */
export async function startCampaignOrder(
  client: Client,
  order: unknown,
  opts: StartCampaignOrderOptions = {},
): Promise<StartedCampaignOrder> {
  const parsed = parseCampaignOrder(order);
  const notify = checkNotifyOption(opts.notify);
  const { handle, started } = await campaigns.start(client, {
    taskQueue: opts.taskQueue,
    input: {
      reference: parsed.reference,
      account: parsed.account,
      brandReference: parsed.brandReference,
      upstreamCnpId: parsed.upstreamCnpId,
      requireFeeApproval: parsed.requireFeeApproval,
      campaign: parsed.campaign,
      ...(opts.workflowOptions ? { options: opts.workflowOptions } : {}),
    },
    searchAttributes: [
      { key: BrandReferenceKey, value: parsed.brandReference },
      { key: AccountKey, value: parsed.account },
      { key: PhaseKey, value: 'awaiting-brand' },
    ],
  });
  await subscribeAfterStart(
    client,
    'campaign',
    { account: parsed.account, reference: parsed.reference },
    notify,
  );
  return { handle, order: parsed, started };
}

export function campaignHandle(client: Client, reference: EntityRef): CampaignWorkflowHandle {
  return campaigns.handle(client, reference);
}

export function getCampaignStatus(client: Client, reference: EntityRef): Promise<CampaignStatus> {
  return campaigns.status(client, reference);
}

export interface ApproveFeeOptions extends SteeringOptions {
  /**
   * The approver's private key (Ed25519, `tcr approvers keygen`; readApproverKeyFile reads one): the
   * request is signed for this campaign (src/config/fee-approvers.ts). Required when the workers have
   * an approvers file (TCR_FEE_APPROVERS_FILE); without one an approval is self-declared.
   */
  signingKey?: KeyObject;
}

/**
 * Approves the billed creation of a campaign waiting in awaiting-fee-approval. With
 * `opts.signingKey` the request carries the approver's signature over this campaign's statement
 * (account, reference, approvedBy, maxMonthlyFee, issuedAt, nonce), valid 15 minutes and once.
 */
export async function approveCampaignFee(
  client: Client,
  reference: EntityRef,
  request: ApproveFeeRequest,
  opts: ApproveFeeOptions = {},
): Promise<CampaignOperationOutcome> {
  const what = 'approveFee request';
  const schema = StrictApproveFeeRequestSchema;
  const { signingKey, ...steering } = opts;
  const sent = signingKey ? await signedFeeApproval(client, reference, request, signingKey) : request;
  return campaigns.update(client, reference, approveFeeUpdate, what, schema, sent, steering);
}

/** `request` with the approver's signature for the campaign `reference` (its account resolved first). */
export async function signedFeeApproval(
  client: Client,
  reference: EntityRef,
  request: ApproveFeeRequest,
  key: KeyObject,
  now?: Date,
): Promise<ApproveFeeRequest> {
  const { account, reference: ref } = await campaignRefOf(client, reference);
  const signedApproval = signFeeApproval({
    account,
    reference: ref,
    approvedBy: request.approvedBy,
    maxMonthlyFee: request.maxMonthlyFee,
    key,
    ...(now ? { now } : {}),
  });
  return { ...request, signedApproval };
}

/** The account and reference of a campaign: given, or resolved as the update resolves a bare reference. */
async function campaignRefOf(
  client: Client,
  reference: EntityRef,
): Promise<{ account: string; reference: string }> {
  if (typeof reference !== 'string') return reference;
  const workflowId = await resolveBare(client, 'campaign', reference);
  const parsed = referenceFromWorkflowId(workflowId);
  if (parsed?.account !== undefined) return { account: parsed.account, reference };
  // A legacy id (`campaign/{reference}`): its account is its TcrAccount search attribute.
  const description = await client.workflow.getHandle(workflowId).describe();
  const account = description.typedSearchAttributes.get(AccountKey);
  if (!account) throw accountRequired('campaign', reference, 'the workflow names no account');
  return { account, reference };
}
export function resubmitCampaign(
  client: Client,
  reference: EntityRef,
  request: ResubmitRequest,
  opts: SteeringOptions = {},
): Promise<CampaignOperationOutcome> {
  const what = 'resubmit request';
  const schema = StrictResubmitRequestSchema;
  return campaigns.update(client, reference, resubmitUpdate, what, schema, request, opts);
}
/**
 * Changes a created campaign at the registry (PUT /campaign/{id}), `autoRenewal` included; `answers`
 * names the needs-action entry (a nudge or suspension) it answers. No re-share (resubmit re-shares).
 */
export function updateCampaign(
  client: Client,
  reference: EntityRef,
  request: UpdateCampaignRequest,
  opts: SteeringOptions = {},
): Promise<CampaignOperationOutcome> {
  const what = 'update request';
  const schema = StrictUpdateCampaignRequestSchema;
  return campaigns.update(client, reference, updateCampaignUpdate, what, schema, request, opts);
}
export function shareCampaignWith(
  client: Client,
  reference: EntityRef,
  upstreamCnpId: string,
  opts: SteeringOptions = {},
): Promise<CampaignOperationOutcome> {
  const what = 'shareWith request';
  const schema = StrictShareWithRequestSchema;
  return campaigns.update(client, reference, shareWithUpdate, what, schema, { upstreamCnpId }, opts);
}
export function cancelCampaign(
  client: Client,
  reference: EntityRef,
  reason: string,
  opts: SteeringOptions = {},
): Promise<CampaignOperationOutcome> {
  const what = 'cancel request';
  const schema = StrictCampaignCancelRequestSchema;
  return campaigns.update(client, reference, cancelCampaignUpdate, what, schema, { reason }, opts);
}
export function acknowledgeCampaignAction(
  client: Client,
  reference: EntityRef,
  key: string,
  opts: SteeringOptions = {},
): Promise<CampaignOperationOutcome> {
  const what = 'acknowledge request';
  const schema = StrictAcknowledgeRequestSchema;
  return campaigns.update(client, reference, acknowledgeUpdate, what, schema, { key }, opts);
}

/**
 * awaiting-dca: the operator saw in the registry portal that the DCA accepted the campaign (its
 * CAMPAIGN_DCA_COMPLETE did not come). The workflow reads the share (still ACCEPTED) and runs it; a
 * second call changes nothing and names the first confirmation.
 */
export function confirmCampaignDca(
  client: Client,
  reference: EntityRef,
  request: ConfirmDcaCompleteRequest,
  opts: SteeringOptions = {},
): Promise<CampaignOperationOutcome> {
  const what = 'confirmDcaComplete request';
  const schema = StrictConfirmDcaCompleteRequestSchema;
  return campaigns.update(client, reference, confirmDcaCompleteUpdate, what, schema, request, opts);
}

/**
 * Waits until the campaign is in one of `phases` through the workflow's `waitForPhase` update (no
 * polling), for `timeoutMs`. Returns the status; throws when it ends in another final phase or time
 * runs out. The fifth argument, once the poll interval, may name the wait (`waitId`): a restarted
 * client waiting under the same id re-attaches to the same update.
 */
export async function waitForCampaignPhase(
  client: Client,
  reference: EntityRef,
  phases: CampaignPhase | CampaignPhase[],
  timeoutMs: number,
  opts?: number | WaitOptions,
): Promise<CampaignStatus> {
  return waitForStatus<CampaignStatus>(
    client,
    'campaign',
    reference,
    Array.isArray(phases) ? phases : [phases],
    timeoutMs,
    typeof opts === 'object' ? opts : {},
  );
}

export type { CampaignPhase, CampaignStatus, CampaignWorkflowOptions } from '../contracts/campaign.js';
export type { CampaignOperationOutcome } from '../contracts/campaign-operations.js';
