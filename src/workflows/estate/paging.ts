/**
 * What the sweep and the import share: walking the registry's lists page by page within a share of the
 * read budget, continuing as new between batches of pages, and riding out registry faults without
 * failing. Deterministic: workflow APIs and pure code only.
 */
import { ActivityFailure, ApplicationFailure, log, patched, sleep } from '@temporalio/workflow';
import {
  DEFAULT_ESTATE_PAGING,
  ESTATE_KINDS,
  type EstateCursor,
  type EstateKind,
  type EstatePaging,
  pageIntervalMs,
} from '../../contracts/estate.js';
import { afterPage, type PagePosition, pageRequest, startPosition } from '../../registry/paging.js';
import { backoffDelay, MINUTE_MS } from '../entity/wait.js';
import { PATCHES } from '../patches.js';

/** After a page read fails (its retries spent): wait 1 minute doubling to 30, then read it again. */
const PAGE_FAULT_BACKOFF = { initialMs: MINUTE_MS, maxMs: 30 * MINUTE_MS, factor: 2 };

export function estatePaging(paging: EstatePaging | undefined): Required<EstatePaging> {
  return { ...DEFAULT_ESTATE_PAGING, ...paging };
}

export function estateKinds(kinds: EstateKind[] | undefined): EstateKind[] {
  const wanted = kinds && kinds.length > 0 ? kinds : ESTATE_KINDS;
  return ESTATE_KINDS.filter((k) => wanted.includes(k)); // brands first: campaigns name their brand
}

/** What a page read answers: the records handled, those the registry's page held, its totalRecords. */
export interface PageCounts {
  records: number;
  /** Absent in a run before issue 33: then `records`. */
  returned?: number;
  totalRecords: number;
}

/** The read a cursor asks for: the page holding its offset, and the records of it already seen. */
export interface EstatePageRequest {
  kind: EstateKind;
  page: number;
  recordsPerPage: number;
  /** Present (and above 0) only when the page starts before the cursor's offset. */
  skip?: number;
}

/** A cursor's position in its list; an older run's cursor ({kind, page}) at the run's recordsPerPage. */
export function positionOf(cursor: EstateCursor, recordsPerPage: number): PagePosition {
  const size = cursor.size ?? recordsPerPage;
  return {
    offset: cursor.offset ?? (cursor.page - 1) * size,
    size,
    pages: cursor.pages ?? cursor.page - 1,
    ...(cursor.firstTotal !== undefined ? { firstTotal: cursor.firstTotal } : {}),
  };
}

function cursorAt(kind: EstateKind, position: PagePosition): EstateCursor {
  return {
    kind,
    page: pageRequest(position).page,
    offset: position.offset,
    size: position.size,
    pages: position.pages,
    ...(position.firstTotal !== undefined ? { firstTotal: position.firstTotal } : {}),
  };
}

/** The read for `cursor`. */
export function requestOf(cursor: EstateCursor, recordsPerPage: number): EstatePageRequest {
  const { page, recordsPerPage: size, skip } = pageRequest(positionOf(cursor, recordsPerPage));
  return { kind: cursor.kind, page, recordsPerPage: size, ...(skip > 0 ? { skip } : {}) };
}

/** Where a walk goes after a page: the next cursor (none when every list is done), and a list it cut. */
export interface Advance {
  cursor: EstateCursor | undefined;
  /** The list ended at its page bound, not by its total or an empty page: what to tell the operator. */
  cut?: string;
}

/**
 * The cursor after a page (src/registry/paging.ts): the same list from the offset reached, at the
 * size the registry gave when a page came back short; or the next list when this one is done
 * (offset ≥ totalRecords as this page said it, an empty page, or the page bound).
 */
export function nextCursor(
  cursor: EstateCursor,
  page: PageCounts,
  recordsPerPage: number,
  kinds: readonly EstateKind[],
): Advance {
  const position = positionOf(cursor, recordsPerPage);
  const returned = page.returned ?? page.records + (requestOf(cursor, recordsPerPage).skip ?? 0);
  const step = afterPage(position, { returned, totalRecords: page.totalRecords });
  if (!step.done) return { cursor: cursorAt(cursor.kind, step.next) };
  const next = kinds[kinds.indexOf(cursor.kind) + 1];
  return {
    cursor: next ? cursorAt(next, startPosition(recordsPerPage)) : undefined,
    ...(step.why === 'bound'
      ? {
          cut: `${cursor.kind} list stopped after ${position.pages + 1} pages at offset ${position.offset + step.fresh} of totalRecords ${page.totalRecords} (${position.firstTotal ?? page.totalRecords} on its first page)`,
        }
      : {}),
  };
}

/** The cursor after a page, as runs before issue 33 decided it (replayed histories only). */
function legacyNextCursor(
  cursor: EstateCursor,
  page: PageCounts,
  recordsPerPage: number,
  kinds: readonly EstateKind[],
): Advance {
  const more = page.records >= recordsPerPage && cursor.page * recordsPerPage < page.totalRecords;
  if (more) return { cursor: { kind: cursor.kind, page: cursor.page + 1 } };
  const next = kinds[kinds.indexOf(cursor.kind) + 1];
  return { cursor: next ? { kind: next, page: 1 } : undefined };
}

export interface PageWalk<T> {
  paging: Required<EstatePaging>;
  kinds: readonly EstateKind[];
  cursor: EstateCursor;
  /** Reads and handles one page (an activity). */
  read(request: EstatePageRequest): Promise<T & PageCounts>;
  /** Records a page's result in the progress. */
  record(cursor: EstateCursor, page: T & PageCounts): void;
  /** Called with the cursor to go on from, each time it moves; `lastError` while a read keeps failing. */
  moved(cursor: EstateCursor | undefined, lastError?: string): void;
  /** A list ended at its page bound (the registry's list did not end): `note` says where. */
  cut(note: string): void;
  /** Continues as new from `cursor` (the run read its batch of pages). */
  continueAsNew(cursor: EstateCursor): Promise<never>;
}

function failureMessage(error: unknown): string {
  const cause = error instanceof ActivityFailure ? error.cause : error;
  if (cause instanceof ApplicationFailure) return `${cause.type ?? 'failure'}: ${cause.message}`;
  return cause instanceof Error ? cause.message : String(cause);
}

/**
 * Reads pages from `cursor` until every list is done, one at a time and at most one every
 * pageIntervalMs; continues as new after `pagesPerRun` pages. A page whose read fails is read again
 * after a backoff (the workflow never fails on a registry answer).
 */
export async function walkPages<T>(walk: PageWalk<T>): Promise<void> {
  const interval = pageIntervalMs(walk.paging);
  // Runs before issue 33 read by page number and stopped a list at a page shorter than asked.
  const byTotal = patched(PATCHES.estatePagingByTotal);
  const { recordsPerPage } = walk.paging;
  let cursor: EstateCursor | undefined = walk.cursor;
  let pages = 0;
  let faults = 0;
  while (cursor) {
    if (pages >= walk.paging.pagesPerRun) await walk.continueAsNew(cursor);
    const startedAt = Date.now();
    let page: (T & PageCounts) | undefined;
    try {
      page = await walk.read(
        byTotal
          ? requestOf(cursor, recordsPerPage)
          : { kind: cursor.kind, page: cursor.page, recordsPerPage },
      );
    } catch (error) {
      if (!(error instanceof ActivityFailure)) throw error;
      walk.moved(cursor, failureMessage(error));
      await sleep(backoffDelay(PAGE_FAULT_BACKOFF, faults++));
      continue;
    }
    faults = 0;
    pages++;
    walk.record(cursor, page);
    const advance = (byTotal ? nextCursor : legacyNextCursor)(cursor, page, recordsPerPage, walk.kinds);
    if (advance.cut) walk.cut(advance.cut);
    cursor = advance.cursor;
    walk.moved(cursor);
    const wait = startedAt + interval - Date.now();
    if (cursor && wait > 0) await sleep(wait);
  }
}

/** The `moved` of a walk whose status keeps the cursor and the last error; `show` publishes it. */
export function movedInto(
  status: { cursor: EstateCursor; lastError?: string },
  show: () => void,
): PageWalk<unknown>['moved'] {
  return (cursor, lastError) => {
    if (cursor) status.cursor = cursor;
    if (lastError) status.lastError = lastError;
    else delete status.lastError;
    show();
  };
}

/** The `cut` of a walk whose status lists the lists it cut; the cut is logged as a warning with `line`. */
export function cutInto(status: { cut?: string[] }, line: () => string): PageWalk<unknown>['cut'] {
  return (note) => {
    status.cut = [...(status.cut ?? []), note];
    log.warn(`estate walk cut a list at its page bound: ${line()}`);
  };
}
