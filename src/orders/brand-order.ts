/**
 * A brand order from an order system, validated at the edge (design principle 6): the CSP's
 * reference, the CSP account to register under, and the registration fields, checked with the
 * registry client's BrandRegistrationSchema (entity-type rules included). A bad order is refused with
 * every field error before any workflow starts. Unknown fields are refused, at the top and in
 * `brand`, each named (`brand.webSite: unknown field (did you mean website?)`): a misspelled optional
 * field is never dropped without a word. Lists and records are capped (src/registry/request-limits.ts).
 */

import { z } from 'zod';
import type { BrandWorkflowOptions } from '../contracts/brand.js';
import type { Subscriber } from '../contracts/notifications.js';
import { accountNamePattern } from '../contracts/task-queues.js';
import {
  describeFieldErrors,
  type FieldError,
  fieldErrorsOf,
  unknownFieldErrors,
} from '../registry/field-errors.js';
import { datedContactEmailIssues } from '../registry/rules.js';
import { type BrandRegistration, BrandRegistrationSchema, ReferenceIdSchema } from '../registry/schemas.js';

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The registration fields an order's `brand` may hold: no others. */
const StrictRegistrationSchema = BrandRegistrationSchema.strict();
const registrationFields = Object.keys(StrictRegistrationSchema.shape).filter((k) => k !== 'referenceId');
const referenceIdInBrand = 'unknown field (the order reference is sent as referenceId)';

export const BrandOrderSchema = z
  .strictObject({
    reference: ReferenceIdSchema,
    account: z.string().regex(accountNamePattern, 'account must be a configured CSP account name'),
    /** Registration fields (spec, POST /brand/nonBlocking); `referenceId` is set from `reference`. */
    // Any object here: its fields are judged in the refinement below (no pass over its keys first).
    brand: z.custom<Record<string, unknown>>(isObject, 'expected an object'),
  })
  .superRefine(
    (order, ctx) => {
      const fields = Object.keys(order.brand);
      if (fields.length > registrationFields.length) {
        // More fields than a brand has: name the unknown ones and judge nothing else (a hostile
        // order with 10,000 keys costs one pass over its names, not a copy and a parse).
        const unknown = fields.filter((f) => f !== 'referenceId' && !registrationFields.includes(f));
        for (const e of unknownFieldErrors(['brand'], unknown, registrationFields))
          ctx.addIssue({ code: 'custom', ...e });
        if (Object.hasOwn(order.brand, 'referenceId'))
          ctx.addIssue({ code: 'custom', path: ['brand', 'referenceId'], message: referenceIdInBrand });
        return;
      }
      // `referenceId` is the order's `reference`: in `brand` it is an unknown field like any other.
      const { referenceId: _, ...brand } = order.brand;
      const parsed = StrictRegistrationSchema.safeParse({ ...brand, referenceId: order.reference });
      for (const issue of parsed.success ? [] : parsed.error.issues) {
        // referenceId errors are the reference's, reported on `reference` already.
        if (issue.path[0] === 'referenceId') continue;
        const path = ['brand', ...issue.path.map(String)];
        if (issue.code !== 'unrecognized_keys')
          ctx.addIssue({ code: 'custom', path, message: issue.message });
        else
          for (const e of unknownFieldErrors(path, issue.keys, registrationFields))
            ctx.addIssue({ code: 'custom', ...e });
      }
      if (Object.hasOwn(order.brand, 'referenceId'))
        ctx.addIssue({ code: 'custom', path: ['brand', 'referenceId'], message: referenceIdInBrand });
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

export type { FieldError } from '../registry/field-errors.js';

/** A refused order: every field error, nothing started. */
export class OrderValidationError extends Error {
  override readonly name = 'OrderValidationError';
  constructor(readonly errors: FieldError[]) {
    super(`invalid brand order: ${describeFieldErrors(errors)}`);
  }
}

export interface ParseBrandOrderOptions {
  /**
   * The clock dated rules are decided by (default the real clock): from 2027-01-21 a GOVERNMENT order
   * needs `businessContactEmail` (src/registry/rules.ts, the rule the workflow and the simulator apply).
   */
  now?: Date;
}

/** The dated rules' errors of an order whose `brand` is an object (none otherwise: the schema names it). */
function datedRuleErrors(order: unknown, now: Date): FieldError[] {
  if (!isObject(order) || !isObject(order.brand)) return [];
  const brand = order.brand;
  const entityType = typeof brand.entityType === 'string' ? brand.entityType : undefined;
  return datedContactEmailIssues({ entityType, businessContactEmail: brand.businessContactEmail }, now).map(
    (issue) => ({ path: ['brand', ...issue.path].join('.'), message: issue.message }),
  );
}

export function parseBrandOrder(order: unknown, opts: ParseBrandOrderOptions = {}): BrandOrder {
  const parsed = BrandOrderSchema.safeParse(order);
  const errors = parsed.success ? [] : fieldErrorsOf(parsed.error, BrandOrderSchema);
  // Every error at once: the dated rule beside the schema's, named once.
  for (const e of datedRuleErrors(order, opts.now ?? new Date()))
    if (!errors.some((known) => known.path === e.path)) errors.push(e);
  if (!parsed.success || errors.length > 0) throw new OrderValidationError(errors);
  return parsed.data;
}

export interface StartBrandOrderOptions {
  /** Workflow task queue (default `tcr-workflows`). */
  taskQueue?: string;
  /** Workflow tuning (poll intervals, vet grace, enhanced-vet policy, continue-as-new threshold). */
  workflowOptions?: BrandWorkflowOptions;
  /** The clock the order's dated rules are decided by (default the real clock): ParseBrandOrderOptions. */
  now?: Date;
  /** Subscribe this order system to the brand's notifications right after the start (id `order-notify`; src/orders/notifications.ts). */
  notify?: Subscriber;
}
