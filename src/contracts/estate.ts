/**
 * The estate's contract (issue 19): the sweep that compares the registry's lists with what each
 * workflow last saw, and the import that adopts what the registry has and no workflow owns. One of
 * each per CSP account. Their ids, inputs, settings, status queries and the activities they call.
 * Zod-free and type-only apart from the query definitions, so workflow code may import it.
 */
import { defineQuery } from '@temporalio/workflow';
import { referencePattern } from './ids.js';

export const ESTATE_SWEEP_WORKFLOW_TYPE = 'estateSweepWorkflow';
export const ESTATE_IMPORT_WORKFLOW_TYPE = 'estateImportWorkflow';

/** What the registry lists: `GET /brand` and `GET /campaign`. */
export type EstateKind = 'brand' | 'campaign';
export const ESTATE_KINDS: readonly EstateKind[] = ['brand', 'campaign'];

/** The sweep of an account. A Schedule of the same id starts it (one run at a time). */
export function sweepWorkflowId(account: string): string {
  return `sweep/${account}`;
}

/** The Schedule that starts an account's sweep (hourly by default). */
export function sweepScheduleId(account: string): string {
  return `sweep/${account}`;
}

/** The import of an account: one at a time; `tcr import` again attaches to the running one. */
export function importWorkflowId(account: string): string {
  return `import/${account}`;
}

export interface EstatePaging {
  /** Records per list page (default 500). */
  recordsPerPage?: number;
  /** Pages one run reads before it continues as new (default 25). */
  pagesPerRun?: number;
  /**
   * Share of the account's read budget the pages may use (default 0.1): one page read at most every
   * 1 / (share × readsPerSecond) seconds.
   */
  readShare?: number;
  /** The account's read budget (default 20 per second, the spec's). */
  readsPerSecond?: number;
}

export const DEFAULT_ESTATE_PAGING: Required<EstatePaging> = {
  recordsPerPage: 500,
  pagesPerRun: 25,
  readShare: 0.1,
  readsPerSecond: 20,
};

/** What a sweep or an import accepts: a read share above 0 and at most `maxReadShare`; 1 to `maxRecordsPerPage` records a page. */
export const ESTATE_PAGING_LIMITS = { maxReadShare: 0.5, maxRecordsPerPage: 1000 } as const;

/** Whether `share` is a read share a sweep or an import accepts. */
export function validReadShare(share: number): boolean {
  return share > 0 && share <= ESTATE_PAGING_LIMITS.maxReadShare;
}

/** Whether `n` is a page size a sweep or an import accepts. */
export function validRecordsPerPage(n: number): boolean {
  return Number.isSafeInteger(n) && n >= 1 && n <= ESTATE_PAGING_LIMITS.maxRecordsPerPage;
}

/** The time between two page reads that keeps them within the read share. */
export function pageIntervalMs(paging: Required<EstatePaging>): number {
  return Math.ceil(1000 / (paging.readShare * paging.readsPerSecond));
}

/**
 * Where a sweep or an import is: the list and the position in it (src/registry/paging.ts). A cursor
 * carried by an older run has `kind` and `page` only: it stands for offset (page - 1) × the run's
 * recordsPerPage at that size.
 */
export interface EstateCursor {
  kind: EstateKind;
  /** The next page to read (1-based), at `size` records a page. */
  page: number;
  /** Records of the list walked past (the offset of the next record). */
  offset?: number;
  /** Records per page asked: recordsPerPage until a short page of an unfinished list sets it lower. */
  size?: number;
  /** Pages of this list read so far. */
  pages?: number;
  /** The list's totalRecords on its first page read (bounds the walk). */
  firstTotal?: number;
}

/** An entity the registry lists and no workflow owns (ids only). */
export interface UnownedEntity {
  kind: EstateKind;
  registryId: string;
  referenceId?: string;
}

/** Unowned entities a status lists by id (the count is always whole). */
export const UNOWNED_SAMPLE_LIMIT = 50;

export interface SweepCounts {
  pages: number;
  records: number;
  /** Records whose workflow is open and whose fingerprint matched. */
  unchanged: number;
  /** Records whose workflow's fingerprint differed: each was signalled. */
  changed: number;
  /** Records owned by a closed workflow (cancelled, deleted): left alone. */
  closed: number;
  unowned: number;
}

export interface EstateSweepInput {
  account: string;
  kinds?: EstateKind[];
  paging?: EstatePaging;
  /** A continue-as-new run: where the sweep is and what it found. */
  carried?: SweepProgress;
}

export interface SweepProgress {
  cursor: EstateCursor;
  startedAt: string;
  counts: SweepCounts;
  /** Total records per list, as the registry's last page said. */
  totals: Partial<Record<EstateKind, number>>;
  unownedSample: UnownedEntity[];
  runs: number;
  /** Lists the walk stopped reading at their page bound (a registry whose list did not end). */
  cut?: string[];
}

export interface SweepStatus extends SweepProgress {
  workflowType: 'estate-sweep';
  account: string;
  state: 'sweeping' | 'done';
  /** The page interval that keeps the sweep within its read share. */
  pageIntervalMs: number;
  finishedAt?: string;
  /** The last page read failed (its retries spent): the sweep reads it again after a backoff. */
  lastError?: string;
}

export const sweepStatusQuery = defineQuery<SweepStatus>('status');

export interface EstateImportInput {
  account: string;
  kinds?: EstateKind[];
  /** List what would be adopted; start nothing. */
  dryRun?: boolean;
  paging?: EstatePaging;
  carried?: ImportProgress;
}

export interface ImportCounts {
  pages: number;
  records: number;
  /** Workflows started by this import. */
  adopted: number;
  /** Already owned by a workflow (open or closed), or started by an earlier import. */
  owned: number;
  /** Dry run: what would be adopted. */
  wouldAdopt: number;
}

export interface ImportProgress {
  cursor: EstateCursor;
  startedAt: string;
  counts: Record<EstateKind, ImportCounts>;
  totals: Partial<Record<EstateKind, number>>;
  /** Dry run: the first entities that would be adopted. */
  sample: UnownedEntity[];
  runs: number;
  /** Lists the walk stopped reading at their page bound (a registry whose list did not end). */
  cut?: string[];
}

export interface ImportStatus extends ImportProgress {
  workflowType: 'estate-import';
  account: string;
  dryRun: boolean;
  state: 'importing' | 'done';
  finishedAt?: string;
  /** The last page read failed (its retries spent): the import reads it again after a backoff. */
  lastError?: string;
}

export const importStatusQuery = defineQuery<ImportStatus>('status');

export interface EstatePageInput {
  account: string;
  kind: EstateKind;
  page: number;
  recordsPerPage: number;
  /** Records at the head of the page already read (the walk switched to a smaller size mid-list). */
  skip?: number;
}

export interface SweptPage {
  /** The registry's `totalRecords` for the list. */
  totalRecords: number;
  /** Records of this page handled (those after `skip`). */
  records: number;
  /** Records the registry's page held, the skipped included (a run before it: `records`). */
  returned?: number;
  unchanged: number;
  changed: number;
  closed: number;
  unowned: UnownedEntity[];
}

export interface ImportedPage {
  totalRecords: number;
  records: number;
  returned?: number;
  adopted: number;
  owned: number;
  /** Dry run: the entities that would be adopted. */
  wouldAdopt: UnownedEntity[];
}

/** Activities of the estate: run on `registry-reads/{account}` (each is one list read). */
export interface EstateActivities {
  /** Reads one page, compares each record's fingerprint with its workflow's and signals the ones that differ. */
  sweepPage(input: EstatePageInput): Promise<SweptPage>;
  /** Reads one page and starts an adopting workflow for each record no workflow owns (none when dryRun). */
  importPage(input: EstatePageInput & { dryRun: boolean }): Promise<ImportedPage>;
}

/**
 * The reference an adopted entity's workflow is keyed by: its referenceId at the registry, or its
 * registry id when it has none (or one that is not a safe reference).
 */
export function adoptedReference(entity: {
  referenceId?: string | null | undefined;
  registryId: string;
}): string {
  return entity.referenceId && referencePattern.test(entity.referenceId)
    ? entity.referenceId
    : entity.registryId;
}

/** One line of an import's progress: `tcr import` prints it, the workflow shows it in the Web UI. */
export function importLine(s: ImportStatus): string {
  const part = (kind: EstateKind) => {
    const c = s.counts[kind];
    const total = s.totals[kind];
    const done = s.dryRun ? `${c.wouldAdopt} to adopt` : `${c.adopted} adopted`;
    return `${kind}s ${c.records}${total !== undefined ? `/${total}` : ''} read, ${done}, ${c.owned} already owned`;
  };
  const where = s.state === 'done' ? 'done' : `${s.cursor.kind} page ${s.cursor.page}`;
  const retry = s.lastError ? ` (retrying a page: ${s.lastError})` : '';
  return `${s.dryRun ? 'dry run: ' : ''}${where}: ${part('brand')}; ${part('campaign')}${retry}${cutNote(s.cut)}`;
}

/** One line of a sweep's progress: `tcr sweep` prints it, the workflow shows it in the Web UI. */
export function sweepLine(s: SweepStatus): string {
  const c = s.counts;
  const where = s.state === 'done' ? `done ${s.finishedAt}` : `${s.cursor.kind} page ${s.cursor.page}`;
  const retry = s.lastError ? ` (retrying a page: ${s.lastError})` : '';
  return `${where}: ${c.records} records in ${c.pages} pages, ${c.changed} changed (woken), ${c.unchanged} unchanged, ${c.unowned} unowned, ${c.closed} closed${retry}${cutNote(s.cut)}`;
}

function cutNote(cut: string[] | undefined): string {
  return cut && cut.length > 0 ? ` (cut: ${cut.join('; ')})` : '';
}
