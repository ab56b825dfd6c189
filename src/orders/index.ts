/** The order-system API: brand order schema and validation, start / steer / query brand workflows. */

export type { BrandOperationOutcome } from '../workflows/brand-definitions.js';
export type { BrandPhase, BrandStatus, BrandWorkflowOptions, VetStatus } from '../workflows/brand-types.js';
export type { OperationOutcome } from '../workflows/entity/operations.js';
export * from './brand-client.js';
export * from './brand-order.js';
export * from './operator-requests.js';
