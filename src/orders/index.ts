/** The order-system API: brand order schema and validation, start / steer / query brand workflows. */

export type { BrandPhase, BrandStatus, BrandWorkflowOptions, VetStatus } from '../contracts/brand.js';
export type { BrandOperationOutcome } from '../contracts/brand-operations.js';
export type { OperationOutcome } from '../contracts/operations.js';
export * from './brand-client.js';
export * from './brand-order.js';
export * from './notifications.js';
export * from './operator-requests.js';
export { type EntityRef, refName, type SteeringOptions, setOrderAccounts } from './order-client.js';
