/**
 * Phase tables: for each phase of an entity, whether it is final, what it waits for, how often the
 * loop reconciles it with the registry, and which operator operations it allows. Update validators,
 * the `status` query's `waitingFor` and the loop's poll schedule are all read from the table, so a
 * phase's rules live in one row.
 */
export type PollKind =
  /** The registry is expected to change soon: the entity's pending schedule (1 min doubling to 1 h). */
  | 'pending'
  /** Settled: the slow reconciliation (6 h). */
  | 'steady'
  /** Nothing to read: the phase waits for an operator. */
  | 'none';

export interface PhaseRow<K extends string> {
  final: boolean;
  waitsFor: string;
  poll: PollKind;
  /** Operator operations allowed in this phase (their validators add the request's own rules). */
  allows: readonly K[];
}

export type PhaseTable<P extends string, K extends string> = Readonly<Record<P, PhaseRow<K>>>;

/** The error an update validator throws when the phase does not allow the operation. */
export function refuseUnlessAllowed<P extends string, K extends string>(
  table: PhaseTable<P, K>,
  phase: P,
  operation: K,
): void {
  const row = table[phase];
  if (row.final) throw new Error(`the workflow is ${phase} (final): ${operation} is not possible`);
  if (!row.allows.includes(operation)) {
    const allowed = (Object.keys(table) as P[]).filter((p) => table[p].allows.includes(operation));
    throw new Error(
      `${operation} is not possible in phase ${phase}; it applies in: ${allowed.join(', ') || 'no phase'}`,
    );
  }
}

/** Final phases of a table. */
export function finalPhases<P extends string, K extends string>(table: PhaseTable<P, K>): P[] {
  return (Object.keys(table) as P[]).filter((p) => table[p].final);
}

/** The phase after a proposed transition: a final phase is never left. */
export function guardedPhase<P extends string, K extends string>(table: PhaseTable<P, K>, from: P, to: P): P {
  return table[from].final ? from : to;
}
