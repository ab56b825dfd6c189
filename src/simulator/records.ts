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

/** Largest `recordsPerPage` the list endpoints accept (the spec states none; see docs/simulator.md). */
export const MAX_RECORDS_PER_PAGE = 500;
export const DEFAULT_RECORDS_PER_PAGE = 10;

const pageQuery = (max: number) =>
  z.object({
    page: z.coerce.number().int().min(1).default(1),
    recordsPerPage: z.coerce.number().int().min(1).max(max).default(DEFAULT_RECORDS_PER_PAGE),
  });
const PageQuery = pageQuery(MAX_RECORDS_PER_PAGE);
/** Under a cap any positive size may be asked; the cap decides the page. */
const CappedPageQuery = pageQuery(Number.MAX_SAFE_INTEGER);

/**
 * One page of `records` (already in list order), keeping those that pass `keep`. Without a filter the
 * page is a slice; with one, a single pass counts the matches and copies only the page's.
 *
 * `cap` (the simulator's `maxRecordsPerPage`) is the registry's right to answer a page smaller than
 * asked: the effective page size is min(asked, cap) and `page` counts pages of that size. With a cap,
 * an asked size above MAX_RECORDS_PER_PAGE is capped; without one it is refused, as before.
 */
export function paginate<T>(
  records: readonly T[],
  query: URLSearchParams,
  keep?: (record: T) => boolean,
  cap?: number,
): { page: number; totalRecords: number; records: T[] } {
  const parsed = (cap === undefined ? PageQuery : CappedPageQuery).safeParse({
    page: query.get('page') ?? undefined,
    recordsPerPage: query.get('recordsPerPage') ?? undefined,
  });
  if (!parsed.success) throw validationError(parsed.error.issues);
  const { page } = parsed.data;
  const recordsPerPage = Math.min(parsed.data.recordsPerPage, cap ?? MAX_RECORDS_PER_PAGE);
  const from = (page - 1) * recordsPerPage;
  const to = page * recordsPerPage;
  if (!keep) return { page, totalRecords: records.length, records: records.slice(from, to) };
  const selected: T[] = [];
  let totalRecords = 0;
  for (const record of records) {
    if (!keep(record)) continue;
    if (totalRecords >= from && totalRecords < to) selected.push(record);
    totalRecords += 1;
  }
  return { page, totalRecords, records: selected };
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
