/**
 * Temporal task-queue priority keys the product uses (lower is dispatched first; Temporal's range is
 * 1..5, and an unset key counts as 3). Registry calls carry them by why they run
 * (src/workflows/entity/stubs.ts); workflows adopted by an import are started at `bulk`, so their
 * workflow tasks (the first of thousands at once) queue behind the import's own and every other
 * workflow's.
 *
 * A workflow's key is its workflow tasks' key for its whole run, and an Update rides on the workflow's
 * pending workflow task: an operator's step on an adoptee waits, at the bulk key, behind every adoptee
 * task queued before it (test/workflows/operator-dispatch-order.test.ts). Server 1.29.1 cannot change
 * a running workflow's key (UpdateWorkflowExecutionOptions refuses the `priority` path; the same test
 * checks it), and starting adoptees at another key moves them all alike, so no key here lets the
 * operator's task pass them: docs/workflows.md, "Operators before bulk reads".
 */
export const priorityKeys = {
  /** An operator's operation (the loop's queued operations, a Temporal cancellation). */
  operator: 1,
  /** Work a registry webhook woke. */
  webhook: 2,
  /** A new order: registration, creation, a vet order; also Temporal's default key. */
  order: 3,
  /** Polls and deadline timers. */
  poll: 4,
  /** Bulk background work: estate sweeps, imports. */
  bulk: 5,
} as const;
