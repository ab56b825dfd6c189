/**
 * The estate walk's paging (src/workflows/estate/paging.ts over src/registry/paging.ts), pure: a list
 * is read until the offset reached covers totalRecords (as each page says it) or a page is empty, never
 * judged by the size asked. Fake registries cap pages at 40 while 500 are asked, under both readings of
 * a capped page: page p starts at (p - 1) × the size asked, or at (p - 1) × the capped size.
 * Seen failing first against the page-number cursor: 40 of 130 records read under both readings.
 */
import { describe, expect, it } from 'vitest';
import type { EstateCursor, EstateKind } from '../../src/contracts/estate.js';
import { nextCursor, requestOf } from '../../src/workflows/estate/paging.js';

type Reading = 'asked' | 'capped';

/** A list of `n` records served at most `cap` a page; `after(readNumber, ids)` may change it mid-read. */
function registry(n: number, cap: number, reading: Reading, after?: (read: number, ids: string[]) => void) {
  const ids = Array.from({ length: n }, (_, i) => `r${i}`);
  let reads = 0;
  return {
    ids,
    read(page: number, asked: number) {
      const size = Math.min(asked, cap);
      const offset = (page - 1) * (reading === 'asked' ? asked : size);
      const records = ids.slice(offset, offset + size);
      after?.(++reads, ids); // the list changes between the page's records and its count
      return { records, totalRecords: ids.length };
    },
  };
}

/** Walks the brand list as the workflow does (the activity drops `skip` records); the ids read, in order. */
function walk(
  source: ReturnType<typeof registry>,
  recordsPerPage = 500,
  start: EstateCursor = { kind: 'brand', page: 1 },
  kinds: EstateKind[] = ['brand'],
) {
  let cursor: EstateCursor | undefined = start;
  const seen: string[] = [];
  const requests: string[] = [];
  const cuts: string[] = [];
  let pages = 0;
  while (cursor && cursor.kind === 'brand') {
    if (++pages > 10_000) throw new Error('the walk did not end');
    const request = requestOf(cursor, recordsPerPage);
    requests.push(`${request.page}x${request.recordsPerPage}${request.skip ? `-${request.skip}` : ''}`);
    const page = source.read(request.page, request.recordsPerPage);
    const handled = page.records.slice(request.skip ?? 0);
    seen.push(...handled);
    const advance = nextCursor(
      cursor,
      { records: handled.length, returned: page.records.length, totalRecords: page.totalRecords },
      recordsPerPage,
      kinds,
    );
    if (advance.cut) cuts.push(advance.cut);
    cursor = advance.cursor;
  }
  return { seen, requests, cuts, next: cursor };
}

describe.each<Reading>(['asked', 'capped'])(
  'pages capped at 40 while 500 are asked (offset by the %s size)',
  (reading) => {
    it('reads all 130 records, each once, then goes on to the next list', () => {
      const source = registry(130, 40, reading);
      const { seen, requests, cuts, next } = walk(source, 500, { kind: 'brand', page: 1 }, [
        'brand',
        'campaign',
      ]);
      expect(seen).toEqual(source.ids);
      expect(requests).toEqual(['1x500', '2x40', '3x40', '4x40']);
      expect(cuts).toEqual([]);
      expect(next).toMatchObject({ kind: 'campaign', page: 1, offset: 0, size: 500 });
    });

    it('reads records added while it pages (totalRecords is read again on every page)', () => {
      const source = registry(130, 40, reading, (read, ids) => {
        if (read === 2) ids.push(...Array.from({ length: 25 }, (_, i) => `added${i}`));
      });
      const { seen } = walk(source);
      expect(seen).toEqual(source.ids);
      expect(seen).toHaveLength(155);
    });

    it('stops at an empty page whatever totalRecords says', () => {
      const source = registry(130, 40, reading);
      const lying = {
        ...source,
        read: (page: number, asked: number) => ({ ...source.read(page, asked), totalRecords: 10_000 }),
      };
      const { seen, cuts } = walk(lying);
      expect(seen).toEqual(source.ids);
      expect(cuts).toEqual([]);
    });

    it('stops when totalRecords shrinks below the offset reached', () => {
      const source = registry(130, 40, reading, (read, ids) => {
        if (read === 1) ids.splice(70); // 60 records deleted while page 1 was handled
      });
      const { seen } = walk(source);
      expect(seen).toEqual(source.ids);
      expect(seen).toHaveLength(70);
    });

    it('ends a list that never ends at its page bound, and says so', () => {
      const source = registry(130, 40, reading, (_read, ids) => {
        ids.push(...Array.from({ length: 100 }, (_, i) => `more${ids.length + i}`));
      });
      const { requests, cuts } = walk(source);
      // 2 × ceil(230 / 40) + 10 pages at most (230: the total the first page said).
      expect(requests).toHaveLength(22);
      expect(cuts).toHaveLength(1);
      expect(cuts[0]).toMatch(/brand list stopped after 22 pages/);
    });
  },
);

describe('the estate cursor', () => {
  it('reads an uncapped registry page by page at the size asked, as before', () => {
    const source = registry(1200, 1000, 'asked');
    const { seen, requests } = walk(source);
    expect(seen).toEqual(source.ids);
    expect(requests).toEqual(['1x500', '2x500', '3x500']);
  });

  it("carries on from an older run's cursor ({kind, page}) at the run's page size", () => {
    const source = registry(130, 1000, 'asked');
    const { seen, requests } = walk(source, 40, { kind: 'brand', page: 2 });
    expect(seen).toEqual(source.ids.slice(40));
    expect(requests).toEqual(['2x40', '3x40', '4x40']);
  });

  it('switches to a page size that does not divide the offset reached: the page holding it, its head skipped', () => {
    // 127 records at 40 a page; 20 more arrive while the short fourth page (7 records) is answered.
    const source = registry(127, 40, 'asked', (read, ids) => {
      if (read === 4) ids.push(...Array.from({ length: 20 }, (_, i) => `late${i}`));
    });
    const { seen, requests } = walk(source, 40);
    expect(seen).toEqual(source.ids);
    expect(requests).toEqual(['1x40', '2x40', '3x40', '4x40', '19x7-1', '20x7', '21x7']);
  });
});
