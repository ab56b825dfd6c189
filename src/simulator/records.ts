/**
 * Shared by the simulator's brand, vetting and campaign handlers: request parsing, brand lookup,
 * paging and calendar months. (Kept apart from ./brands.ts so ./vetting.ts need not import it back.)
 */
import { z } from 'zod';
import type { SimContext } from './context.js';
import { notFound, validationError } from './errors.js';
import type { BrandRecord } from './state.js';

export function parse<T>(schema: z.ZodType<T>, body: unknown): T {
  const result = schema.safeParse(body ?? {});
  if (!result.success) throw validationError(result.error.issues);
  return result.data;
}

export function findBrand(ctx: SimContext, cspId: string, brandId: string): BrandRecord {
  const brand = ctx.store.account(cspId).brands[brandId];
  if (!brand) throw notFound('brand', brandId, 'brandId');
  return brand;
}

export function paginate<T>(
  records: T[],
  query: URLSearchParams,
): { page: number; totalRecords: number; records: T[] } {
  const parsed = z
    .object({
      page: z.coerce.number().int().min(1).default(1),
      recordsPerPage: z.coerce.number().int().min(1).max(500).default(10),
    })
    .safeParse({
      page: query.get('page') ?? undefined,
      recordsPerPage: query.get('recordsPerPage') ?? undefined,
    });
  if (!parsed.success) throw validationError(parsed.error.issues);
  const { page, recordsPerPage } = parsed.data;
  return {
    page,
    totalRecords: records.length,
    records: records.slice((page - 1) * recordsPerPage, page * recordsPerPage),
  };
}

export function addMonths(date: Date, months: number): Date {
  const d = new Date(date.getTime());
  const day = d.getUTCDate();
  d.setUTCDate(1);
  d.setUTCMonth(d.getUTCMonth() + months);
  const last = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate();
  d.setUTCDate(Math.min(day, last));
  return d;
}
