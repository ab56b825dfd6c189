/**
 * Operator requests are validated here, at the edge, before the update is sent: the typed API parses
 * each request with its zod schema (src/contracts/brand-requests.ts, campaign-requests.ts) and sends
 * the parsed value. Inside the workflow, lighter checks without zod refuse what a raw Temporal client
 * could still send (src/workflows/request-checks.ts). The typed API parses with the strict versions of
 * ./request-schemas.ts: an unknown field is refused by name.
 */
import type { z } from 'zod';
import { describeFieldErrors, type FieldError, fieldErrorsOf } from '../registry/field-errors.js';

/** A refused operator request: every field error, nothing sent. */
export class RequestValidationError extends Error {
  override readonly name = 'RequestValidationError';
  constructor(
    readonly request: string,
    readonly errors: FieldError[],
  ) {
    super(`invalid ${request}: ${describeFieldErrors(errors)}`);
  }
}

/** The request parsed by `schema`, or a RequestValidationError naming every field at fault. */
export function parseRequest<S extends z.ZodType>(request: string, schema: S, value: unknown): z.output<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new RequestValidationError(request, fieldErrorsOf(parsed.error, schema));
  return parsed.data;
}
