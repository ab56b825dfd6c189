/**
 * The audit trail every registration workflow keeps in its status: each transition with its cause.
 * Bounded: when it grows past its limit the oldest entries are folded into a summary (counts per
 * cause and the time span), so a brand that lives for years keeps a small status and history.
 */

/** Why something happened: ... 'workflow' = another of the product's workflows told us (a hint, re-read). */
export type AuditCause = 'start' | 'webhook' | 'poll' | 'operator' | 'timer' | 'workflow';

export interface AuditEntry {
  /** Workflow time, ISO 8601. */
  at: string;
  cause: AuditCause;
  /** What happened, e.g. 'phase' | 'registered' | 'vet-ordered' | 'event'. */
  event: string;
  detail?: string;
  from?: string;
  to?: string;
}

export interface AuditSummary {
  count: number;
  byCause: Partial<Record<AuditCause, number>>;
  from?: string;
  to?: string;
}

export interface AuditTrail {
  entries: AuditEntry[];
  /** Entries folded away because the trail reached its limit. */
  summarized: AuditSummary;
}

export const DEFAULT_AUDIT_LIMIT = 100;

export function emptyAuditTrail(): AuditTrail {
  return { entries: [], summarized: { count: 0, byCause: {} } };
}

/** Appends an entry stamped with workflow time, folding the oldest into the summary past `limit`. */
export function appendAudit(
  trail: AuditTrail,
  entry: Omit<AuditEntry, 'at'>,
  limit: number = DEFAULT_AUDIT_LIMIT,
): AuditEntry {
  const stamped: AuditEntry = { at: new Date(Date.now()).toISOString(), ...entry };
  trail.entries.push(stamped);
  while (trail.entries.length > Math.max(1, limit)) {
    const old = trail.entries.shift()!;
    const s = trail.summarized;
    s.count++;
    s.byCause[old.cause] = (s.byCause[old.cause] ?? 0) + 1;
    s.from ??= old.at;
    s.to = old.at;
  }
  return stamped;
}
