/** Field errors of a refused order or request: the shape every edge of the product reports. */
import type { z } from 'zod';

export interface FieldError {
  /** Dotted path, e.g. `brand.businessContactEmail`. */
  path: string;
  message: string;
}

/** Every issue of a zod parse as a field error. */
export function fieldErrorsOf(error: z.ZodError): FieldError[] {
  return error.issues.map((i) => ({ path: i.path.map(String).join('.'), message: i.message }));
}

/** `path: message` for each error, `(root)` for the whole value, joined with `; `. */
export function describeFieldErrors(errors: readonly FieldError[]): string {
  return errors.map((e) => `${e.path || '(root)'}: ${e.message}`).join('; ');
}
