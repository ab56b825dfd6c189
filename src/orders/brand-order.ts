/**
 * A brand order from an order system, validated at the edge (design principle 6): the CSP's
 * reference, the CSP account to register under, and the registration fields, checked with the
 * registry client's BrandRegistrationSchema (entity-type rules included). A bad order is refused with
 * every field error before any workflow starts.
 */
import { z } from 'zod';
import { type BrandRegistration, BrandRegistrationSchema, ReferenceIdSchema } from '../registry/schemas.js';
import type { BrandWorkflowOptions } from '../workflows/brand-types.js';
import { accountNamePattern } from '../workflows/task-queues.js';
import { describeFieldErrors, type FieldError, fieldErrorsOf } from './field-errors.js';

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export const BrandOrderSchema = z
  .object({
    reference: ReferenceIdSchema,
    account: z.string().regex(accountNamePattern, 'account must be a configured CSP account name'),
    /** Registration fields (spec, POST /brand/nonBlocking); `referenceId` is set from `reference`. */
    brand: z.record(z.string(), z.unknown()),
  })
  .superRefine(
    (order, ctx) => {
      const parsed = BrandRegistrationSchema.safeParse({ ...order.brand, referenceId: order.reference });
      for (const issue of parsed.success ? [] : parsed.error.issues) {
        // referenceId errors are the reference's, reported on `reference` already.
        if (issue.path[0] === 'referenceId') continue;
        ctx.addIssue({ code: 'custom', path: ['brand', ...issue.path.map(String)], message: issue.message });
      }
    },
    // The brand's fields are checked even when `reference` or `account` failed: every error at once.
    { when: (payload) => isObject(payload.value) && isObject(payload.value.brand) },
  )
  .transform((order) => ({
    reference: order.reference,
    account: order.account,
    registration: BrandRegistrationSchema.parse({ ...order.brand, referenceId: order.reference }),
  }));

export interface BrandOrder {
  reference: string;
  account: string;
  registration: BrandRegistration;
}
export type BrandOrderInput = z.input<typeof BrandOrderSchema>;

export type { FieldError } from './field-errors.js';

/** A refused order: every field error, nothing started. */
export class OrderValidationError extends Error {
  override readonly name = 'OrderValidationError';
  constructor(readonly errors: FieldError[]) {
    super(`invalid brand order: ${describeFieldErrors(errors)}`);
  }
}

export function parseBrandOrder(order: unknown): BrandOrder {
  const parsed = BrandOrderSchema.safeParse(order);
  if (!parsed.success) throw new OrderValidationError(fieldErrorsOf(parsed.error));
  return parsed.data;
}

export interface StartBrandOrderOptions {
  /** Workflow task queue (default `tcr-workflows`). */
  taskQueue?: string;
  /** Workflow tuning (poll intervals, vet grace, enhanced-vet policy, continue-as-new threshold). */
  workflowOptions?: BrandWorkflowOptions;
}
