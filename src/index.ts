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
// The order system's Temporal client, connected as the worker, the ingress and tcr connect
// (TEMPORAL_* and temporal.toml through @temporalio/envconfig) with the product's data converter.
export { connectOrderClient, type OrderClient, type OrderClientOptions } from './config/order-client.js';
// Ids, task queues, search attributes.
export {
  brandWorkflowId,
  campaignWorkflowId,
  type ParkedEntityKind,
  parkedEventsByReferenceWorkflowId,
  parkedEventsWorkflowId,
  referenceFromWorkflowId,
  referencePattern,
  vetWorkflowId,
} from './contracts/ids.js';
export { type ParkedEventsView, parkedEventsQuery } from './contracts/parked-events.js';
export {
  AccountKey,
  allSearchAttributeKeys,
  BrandIdKey,
  BrandReferenceKey,
  CampaignIdKey,
  NeedsActionKey,
  PhaseKey,
} from './contracts/search-attributes.js';
export type { RegistryEventDelivery } from './contracts/signals.js';
export { WORKFLOW_TASK_QUEUE } from './contracts/task-queues.js';
// Brand orders: schema, validation, start / steer / query / wait.
export {
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
  getCampaignStatus,
  parseCampaignOrder,
  resubmitCampaign,
  type StartCampaignOrderOptions,
  type StartedCampaignOrder,
  shareCampaignWith,
  startCampaignOrder,
  waitForCampaignPhase,
} from './orders/campaign-orders.js';
// Operator requests are parsed at the edge; a bad one is refused before anything is sent.
export { parseRequest, RequestValidationError } from './orders/operator-requests.js';
// Registry events (webhooks) and parked events.
export { KnownEventTypes, type RegistryEvent, RegistryEventSchema } from './registry/events.js';
// Registry input types order files are made of.
export type { BrandRegistration, CampaignCreation } from './registry/schemas.js';
export type { BrandOperationOutcome } from './workflows/brand-definitions.js';
// Request schemas and message definitions (the same ones the workflows' update validators use).
export {
  type AppealRequest,
  AppealRequestSchema,
  appealUpdate,
  brandStatusQuery,
  type CancelRequest,
  CancelRequestSchema,
  type CorrectBrandRequest,
  CorrectBrandRequestSchema,
  cancelUpdate,
  correctBrandUpdate,
  type ImportVetRequest,
  ImportVetRequestSchema,
  importVetUpdate,
  type OrderVetRequest,
  OrderVetRequestSchema,
  orderVetUpdate,
  revetUpdate,
} from './workflows/brand-messages.js';
export type {
  BrandPhase,
  BrandResult,
  BrandStatus,
  BrandWorkflowInput,
  BrandWorkflowOptions,
  EnhancedVetPolicy,
  OperatorAction,
  VetState,
  VetStatus,
  WaitingFor,
} from './workflows/brand-types.js';
export { terminalBrandPhases } from './workflows/brand-types.js';
export {
  type AcknowledgeRequest,
  AcknowledgeRequestSchema,
  type ApproveFeeRequest,
  ApproveFeeRequestSchema,
  acknowledgeUpdate,
  approveFeeUpdate,
  type CampaignCancelRequest,
  CampaignCancelRequestSchema,
  CampaignContentSchema,
  campaignStatusQuery,
  cancelCampaignUpdate,
  type ResubmitRequest,
  ResubmitRequestSchema,
  resubmitUpdate,
  type ShareWithRequest,
  ShareWithRequestSchema,
  shareWithUpdate,
} from './workflows/campaign-messages.js';
export type {
  CampaignContent,
  CampaignPhase,
  CampaignResult,
  CampaignStatus,
  CampaignWorkflowInput,
  CampaignWorkflowOptions,
  MnoView,
  Nudge,
  ShareAttempt,
  Suspension,
} from './workflows/campaign-types.js';
export { terminalCampaignPhases } from './workflows/campaign-types.js';
// Workflow and status types.
export type { AuditCause, AuditEntry, AuditSummary, AuditTrail } from './workflows/entity/audit.js';
export type { OperationOutcome, OperationOutcomeKind } from './workflows/entity/operations.js';
