/**
 * How a walk of one of the registry's lists (`GET /brand`, `GET /campaign`) decides where to read next
 * and when it is done (issue 33). Pure and import-free: the registry client's iterators and the estate
 * workflows (deterministic code) share it.
 *
 * The spec documents `page`, `recordsPerPage` and `totalRecords` but shows no maximum
 * `recordsPerPage`: a registry may answer fewer records than asked on any page. So "more" is decided
 * from `totalRecords` (read again on every page: records are added while we page) and the records a
 * page actually held, never from the size asked. A capped page is ambiguous past page 1: the registry
 * may place page p at (p - 1) × the size asked, or at (p - 1) × its capped size. Both readings agree
 * on page 1 and whenever the size asked is no more than the cap; so when a page comes back shorter than
 * asked and the list is not done, the walk asks from then on for the size it got, from the offset it
 * reached (the page that holds that offset, skipping the records before it that it already saw).
 *
 * A bound, fixed by the list's first totalRecords and the size asked, ends a walk that a misbehaving
 * registry would never end (a totalRecords that keeps growing, pages that never come back empty):
 * twice the pages the first total needs, plus a margin, far above what a list that grows while it is
 * read needs.
 */

/** Where a walk of one list is. */
export interface PagePosition {
  /** Records of the list walked past: the 0-based offset of the next record to read. */
  offset: number;
  /** Records per page asked (it only ever shrinks, to the size a short page held). */
  size: number;
  /** Pages of this list read so far. */
  pages: number;
  /** The list's totalRecords on the first page read (it fixes the bound); unset before it. */
  firstTotal?: number;
}

/** The read that continues a walk: `skip` records of the page were seen already. */
export interface PageRequest {
  page: number;
  recordsPerPage: number;
  skip: number;
}

/** What a page said: the records it held (the skipped ones included) and its totalRecords. */
export interface PageAnswer {
  returned: number;
  totalRecords: number;
}

export type PageStep =
  | { done: false; next: PagePosition; fresh: number }
  | { done: true; why: 'total' | 'empty' | 'bound'; fresh: number };

/** Pages beyond those the first total needs, whatever it is. */
const BOUND_MARGIN = 10;

/** A walk starting at `page` (1-based) of `size` records. */
export function startPosition(size: number, page = 1): PagePosition {
  return { offset: Math.max(0, page - 1) * size, size, pages: 0 };
}

/** The page to read next: the one holding `offset` at the size asked. */
export function pageRequest(position: PagePosition): PageRequest {
  const page = Math.floor(position.offset / position.size) + 1;
  return { page, recordsPerPage: position.size, skip: position.offset - (page - 1) * position.size };
}

/** The most pages a list may take: twice what its first total needs at `size`, plus a margin. */
export function pageBound(firstTotal: number, size: number): number {
  return 2 * Math.ceil(Math.max(firstTotal, 1) / size) + BOUND_MARGIN;
}

/**
 * The walk after a page: done (why), or the next position. `fresh` is the number of records of the
 * page not seen before (the page's records after the skipped ones).
 */
export function afterPage(position: PagePosition, answer: PageAnswer): PageStep {
  const { skip } = pageRequest(position);
  const returned = Math.max(0, Math.floor(answer.returned));
  const fresh = Math.max(0, returned - skip);
  const offset = position.offset + fresh;
  const pages = position.pages + 1;
  const firstTotal = position.firstTotal ?? answer.totalRecords;
  if (returned === 0) return { done: true, why: 'empty', fresh };
  if (offset >= answer.totalRecords) return { done: true, why: 'total', fresh };
  // A short page of a list not done: the registry's page size, from here on.
  const size = Math.min(returned, position.size);
  if (pages >= pageBound(firstTotal, size)) return { done: true, why: 'bound', fresh };
  return { done: false, next: { offset, size, pages, firstTotal }, fresh };
}
