/** The order-system API: brand order schema and validation, start / steer / query brand workflows. */

export type { BrandPhase, BrandStatus, BrandWorkflowOptions, VetStatus } from '../workflows/brand-types.js';
export * from './brand-client.js';
export * from './brand-order.js';
export * from './operator-requests.js';
