/**
 * What the sweep and the import share: walking the registry's lists page by page within a share of the
 * read budget, continuing as new between batches of pages, and riding out registry faults without
 * failing. Deterministic: workflow APIs and pure code only.
 */
import { ActivityFailure, ApplicationFailure, sleep } from '@temporalio/workflow';
import {
  DEFAULT_ESTATE_PAGING,
  ESTATE_KINDS,
  type EstateCursor,
  type EstateKind,
  type EstatePaging,
  pageIntervalMs,
} from '../../contracts/estate.js';
import { backoffDelay, MINUTE_MS } from '../entity/wait.js';

/** After a page read fails (its retries spent): wait 1 minute doubling to 30, then read it again. */
const PAGE_FAULT_BACKOFF = { initialMs: MINUTE_MS, maxMs: 30 * MINUTE_MS, factor: 2 };

export function estatePaging(paging: EstatePaging | undefined): Required<EstatePaging> {
  return { ...DEFAULT_ESTATE_PAGING, ...paging };
}

export function estateKinds(kinds: EstateKind[] | undefined): EstateKind[] {
  const wanted = kinds && kinds.length > 0 ? kinds : ESTATE_KINDS;
  return ESTATE_KINDS.filter((k) => wanted.includes(k)); // brands first: campaigns name their brand
}

/** The cursor after a page: the next page, the next list, or undefined when every list is done. */
export function nextCursor(
  cursor: EstateCursor,
  page: { records: number; totalRecords: number },
  recordsPerPage: number,
  kinds: readonly EstateKind[],
): EstateCursor | undefined {
  const more = page.records >= recordsPerPage && cursor.page * recordsPerPage < page.totalRecords;
  if (more) return { kind: cursor.kind, page: cursor.page + 1 };
  const next = kinds[kinds.indexOf(cursor.kind) + 1];
  return next ? { kind: next, page: 1 } : undefined;
}

export interface PageWalk<T> {
  paging: Required<EstatePaging>;
  kinds: readonly EstateKind[];
  cursor: EstateCursor;
  /** Reads and handles one page (an activity). */
  read(cursor: EstateCursor): Promise<T & { records: number; totalRecords: number }>;
  /** Records a page's result in the progress. */
  record(cursor: EstateCursor, page: T & { records: number; totalRecords: number }): void;
  /** Called with the cursor to go on from, each time it moves; `lastError` while a read keeps failing. */
  moved(cursor: EstateCursor | undefined, lastError?: string): void;
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
  let cursor: EstateCursor | undefined = walk.cursor;
  let pages = 0;
  let faults = 0;
  while (cursor) {
    if (pages >= walk.paging.pagesPerRun) await walk.continueAsNew(cursor);
    const startedAt = Date.now();
    let page: (T & { records: number; totalRecords: number }) | undefined;
    try {
      page = await walk.read(cursor);
    } catch (error) {
      if (!(error instanceof ActivityFailure)) throw error;
      walk.moved(cursor, failureMessage(error));
      await sleep(backoffDelay(PAGE_FAULT_BACKOFF, faults++));
      continue;
    }
    faults = 0;
    pages++;
    walk.record(cursor, page);
    cursor = nextCursor(cursor, page, walk.paging.recordsPerPage, walk.kinds);
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
