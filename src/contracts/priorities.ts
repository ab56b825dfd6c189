/**
 * Temporal task-queue priority keys the product uses (lower is dispatched first; Temporal's range is
 * 1..5, and an unset key counts as 3). Registry calls carry them by why they run
 * (src/workflows/entity/stubs.ts); workflows adopted by an import are started at `bulk`, so their
 * workflow tasks (the first of thousands at once) queue behind the import's own and every other
 * workflow's.
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
