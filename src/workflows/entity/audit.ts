/**
 * The audit trail every registration workflow keeps in its status: each transition with its cause.
 * Bounded: when it grows past its limit the oldest entries are folded into a summary (counts per
 * cause and the time span), so a brand that lives for years keeps a small status and history.
 */

import type { AuditEntry, AuditTrail } from '../../contracts/audit.js';

export type { AuditCause, AuditEntry, AuditSummary, AuditTrail } from '../../contracts/audit.js';

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
