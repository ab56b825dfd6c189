/**
 * The package's public API for order systems: start brand and campaign orders, wait for a phase,
 * query status, send each operator action, with the input schemas, workflow status types, id
 * helpers, search attribute keys and the registry event schema, so an order system written in
 * TypeScript gets compile-time checks. Importing this module pulls in no workflow code (workflows
 * are referenced by name and type only) and starts nothing.
 *
 *   import { connectOrderClient, startBrandOrder, waitForBrandPhase } from 'tcr-orchestrator';
 *   // TEMPORAL_* (or a temporal.toml profile) as the workers read them; payloads encrypted with the
 *   // keys TCR_PAYLOAD_KEYS_FILE names:
 *   const { client, close } = await connectOrderClient();
 *   // Or your own Connection: new Client({ connection, dataConverter: dataConverter() }).
 */

// Payload encryption: the data converter every Client of an order system passes (docs/operations.md,
// "Data protection"), and the keyring it reads.
export {
  type DataConverterOptions,
  dataConverter,
  EncryptionCodec,
  encryptsPayloads,
  Keyring,
  KeyringError,
  keyringFromEnv,
  readKeyFile,
} from './codec/index.js';
// Signed fee approvals: an approver's key (tcr approvers keygen) for approveCampaignFee's signingKey.
export { readApproverKeyFile } from './config/fee-approvers.js';
// The order system's Temporal client, connected as the worker, the ingress and tcr connect
// (TEMPORAL_* and temporal.toml through @temporalio/envconfig) with the product's data converter.
export { connectOrderClient, type OrderClient, type OrderClientOptions } from './config/order-client.js';
// Workflow contracts (src/contracts): type names, signatures, inputs, status and outcome types.
export type { AuditCause, AuditEntry, AuditSummary, AuditTrail } from './contracts/audit.js';
export type {
  BrandPhase,
  BrandResult,
  BrandStatus,
  BrandWorkflow,
  BrandWorkflowInput,
  BrandWorkflowOptions,
  EnhancedVetPolicy,
  OperatorAction,
  VetState,
  VetStatus,
  WaitingFor,
} from './contracts/brand.js';
export { BRAND_WORKFLOW_TYPE, brandStatusQuery, terminalBrandPhases } from './contracts/brand.js';
export type { BrandOperationOutcome } from './contracts/brand-operations.js';
// Updates and their requests, and the request schemas the edge parses them with.
export {
  type AppealRequest,
  appealUpdate,
  type CancelRequest,
  type CorrectBrandRequest,
  cancelUpdate,
  correctBrandUpdate,
  type ImportVetRequest,
  importVetUpdate,
  type OrderVetRequest,
  orderVetUpdate,
  revetUpdate,
} from './contracts/brand-operations.js';
export {
  AppealRequestSchema,
  CancelRequestSchema,
  CorrectBrandRequestSchema,
  ImportVetRequestSchema,
  OrderVetRequestSchema,
} from './contracts/brand-requests.js';
export type {
  CampaignContent,
  CampaignPhase,
  CampaignResult,
  CampaignStatus,
  CampaignWorkflow,
  CampaignWorkflowInput,
  CampaignWorkflowOptions,
  DcaConfirmation,
  MnoView,
  Nudge,
  ShareAttempt,
  Suspension,
  UpstreamPartnerCheck as CampaignUpstreamPartnerCheck,
} from './contracts/campaign.js';
export { CAMPAIGN_WORKFLOW_TYPE, campaignStatusQuery, terminalCampaignPhases } from './contracts/campaign.js';
export {
  type AcknowledgeRequest,
  type ApproveFeeRequest,
  acknowledgeUpdate,
  approveFeeUpdate,
  type CampaignCancelRequest,
  type ConfirmDcaCompleteRequest,
  cancelCampaignUpdate,
  confirmDcaCompleteUpdate,
  type ResubmitRequest,
  resubmitUpdate,
  type ShareWithRequest,
  shareWithUpdate,
} from './contracts/campaign-operations.js';
export {
  AcknowledgeRequestSchema,
  ApproveFeeRequestSchema,
  CampaignCancelRequestSchema,
  CampaignContentSchema,
  ConfirmDcaCompleteRequestSchema,
  ResubmitRequestSchema,
  ShareWithRequestSchema,
} from './contracts/campaign-requests.js';
// The estate: sweep and import (docs/operations.md, "The estate").
export {
  ESTATE_IMPORT_WORKFLOW_TYPE,
  ESTATE_SWEEP_WORKFLOW_TYPE,
  type EstateImportInput,
  type EstateKind,
  type EstatePaging,
  type EstateSweepInput,
  type ImportStatus,
  importStatusQuery,
  importWorkflowId,
  type SweepStatus,
  sweepScheduleId,
  sweepStatusQuery,
} from './contracts/estate.js';
// Ids, task queues, search attributes.
export {
  brandWorkflowId,
  campaignWorkflowId,
  type EntityKind as WorkflowEntityKind,
  entityWorkflowId,
  legacyEntityWorkflowId,
  type ParkedEntityKind,
  parkedEventsByReferenceWorkflowId,
  parkedEventsWorkflowId,
  referenceFromWorkflowId,
  referencePattern,
  vetWorkflowId,
} from './contracts/ids.js';
export type {
  EntityNotification,
  OrderOutcome,
  Subscriber,
  WaitForPhaseOutcome,
} from './contracts/notifications.js';
export type { OperationOutcome, OperationOutcomeKind, RegistryErrorEntry } from './contracts/operations.js';
export { type ParkedEventsView, parkedEventsQuery } from './contracts/parked-events.js';
export {
  AccountKey,
  allSearchAttributeKeys,
  BrandIdKey,
  BrandReferenceKey,
  CampaignIdKey,
  FingerprintKey,
  NeedsActionKey,
  PhaseKey,
} from './contracts/search-attributes.js';
export type { RegistryEventDelivery } from './contracts/signals.js';
export { WORKFLOW_TASK_QUEUE } from './contracts/task-queues.js';
// Brand orders: schema, validation, start / steer / query / wait.
export {
  acknowledgeBrandAction,
  appealBrand,
  type BrandWorkflowHandle,
  brandHandle,
  cancelBrand,
  correctBrand,
  getBrandStatus,
  importVet,
  orderVet,
  revetBrand,
  type StartedBrandOrder,
  startBrandOrder,
  type VetRequestOptions,
  waitForBrandPhase,
} from './orders/brand-client.js';
export {
  type BrandOrder,
  type BrandOrderInput,
  BrandOrderSchema,
  type FieldError,
  OrderValidationError,
  parseBrandOrder,
  type StartBrandOrderOptions,
} from './orders/brand-order.js';
// Campaign orders.
export {
  type ApproveFeeOptions,
  acknowledgeCampaignAction,
  approveCampaignFee,
  type CampaignFieldError,
  type CampaignOrder,
  type CampaignOrderInput,
  CampaignOrderSchema,
  CampaignOrderValidationError,
  type CampaignWorkflowHandle,
  campaignHandle,
  cancelCampaign,
  confirmCampaignDca,
  getCampaignStatus,
  parseCampaignOrder,
  resubmitCampaign,
  type StartCampaignOrderOptions,
  type StartedCampaignOrder,
  shareCampaignWith,
  signedFeeApproval,
  startCampaignOrder,
  updateCampaign,
  waitForCampaignPhase,
} from './orders/campaign-orders.js';
export { type ImportRequest, importStatus, startImport } from './orders/estate-client.js';
export {
  type SubscribeRequestInput,
  subscribeTo,
  unsubscribeFrom,
  type WaitOptions,
  waitForEntityPhase,
} from './orders/notifications.js';
// Operator requests are parsed at the edge; a bad one is refused before anything is sent.
export { parseRequest, RequestValidationError } from './orders/operator-requests.js';
export { type EntityRef, refName, setOrderAccounts } from './orders/order-client.js';
// Registry events (webhooks) and parked events.
export { KnownEventTypes, type RegistryEvent, RegistryEventSchema } from './registry/events.js';
// Registry input types order files are made of.
export type { BrandRegistration, CampaignCreation } from './registry/schemas.js';
