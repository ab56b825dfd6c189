/**
 * The estate sweep's settings (issue 19), from the environment, validated at the edge:
 *
 *   TCR_SWEEP_EVERY             how often each account's Schedule sweeps its registry lists: a whole
 *                               number of s, m, h or d, at least 1m (default 1h); `off` leaves the
 *                               Schedules alone (none is created; existing ones keep their setting).
 *   TCR_SWEEP_READ_SHARE        share of the account's read budget the sweep may use, above 0 and at
 *                               most 0.5 (default 0.1).
 *   TCR_SWEEP_RECORDS_PER_PAGE  records per list page, 1 to 1000 (default 500).
 */
import {
  DEFAULT_ESTATE_PAGING,
  ESTATE_PAGING_LIMITS,
  validReadShare,
  validRecordsPerPage,
} from '../contracts/estate.js';

export interface SweepConfig {
  /** `1h`, `30m`, ...; undefined: the worker does not manage the Schedules. */
  every?: string;
  readShare: number;
  recordsPerPage: number;
}

type Env = Record<string, string | undefined>;

const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Milliseconds of a duration like `90s`, `30m`, `1h`, `2d`; undefined when it is not one. */
export function durationMs(text: string): number | undefined {
  const match = /^(\d{1,6})([smhd])$/.exec(text.trim());
  if (!match) return undefined;
  return Number(match[1]) * UNIT_MS[match[2]!]!;
}

export const DEFAULT_SWEEP_EVERY = '1h';
export const MIN_SWEEP_EVERY_MS = 60_000;

export function loadSweepConfig(env: Env, problems: string[]): SweepConfig {
  const config: SweepConfig = {
    every: DEFAULT_SWEEP_EVERY,
    readShare: DEFAULT_ESTATE_PAGING.readShare,
    recordsPerPage: DEFAULT_ESTATE_PAGING.recordsPerPage,
  };
  const every = env.TCR_SWEEP_EVERY?.trim();
  if (every === 'off') delete config.every;
  else if (every) {
    const ms = durationMs(every);
    if (ms === undefined || ms < MIN_SWEEP_EVERY_MS)
      problems.push(
        'TCR_SWEEP_EVERY: expected off, or a whole number of s, m, h or d of at least 1m (e.g. 1h)',
      );
    else config.every = every;
  }
  if (env.TCR_SWEEP_READ_SHARE) {
    const share = Number(env.TCR_SWEEP_READ_SHARE);
    if (!validReadShare(share))
      problems.push(
        `TCR_SWEEP_READ_SHARE: expected a number above 0 and at most ${ESTATE_PAGING_LIMITS.maxReadShare}`,
      );
    else config.readShare = share;
  }
  if (env.TCR_SWEEP_RECORDS_PER_PAGE) {
    const n = Number(env.TCR_SWEEP_RECORDS_PER_PAGE);
    if (!validRecordsPerPage(n))
      problems.push(
        `TCR_SWEEP_RECORDS_PER_PAGE: expected a whole number from 1 to ${ESTATE_PAGING_LIMITS.maxRecordsPerPage}`,
      );
    else config.recordsPerPage = n;
  }
  return config;
}
