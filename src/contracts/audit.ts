/**
 * The audit trail's shape, as every registration workflow's status shows it: each transition with its
 * cause, the oldest folded into a summary. Workflows keep it (src/workflows/entity/audit.ts); the CLI
 * and order systems read it from the `status` query.
 */

/**
 * Why something happened: ... 'workflow' = another of the product's workflows told us (a hint,
 * re-read); 'sweep' = the estate sweep saw the registry's list differ from what the workflow last saw.
 */
export type AuditCause = 'start' | 'webhook' | 'poll' | 'operator' | 'timer' | 'workflow' | 'sweep';

/** Why a workflow woke up (every cause but 'start'), and the cause recorded in the audit trail. */
export type WakeCause = 'webhook' | 'operator' | 'poll' | 'timer' | 'workflow' | 'sweep';

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
