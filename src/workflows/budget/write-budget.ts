/**
 * The write budget of one CSP account (src/contracts/write-budget.ts): a workflow per account that
 * grants write reservations from the instants of its last grants. Each `reserveWrite` is answered at
 * once (the handler never waits), with one instant or, for a counted request, several (a worker
 * process's writes that asked together: one update for them, as Temporal admits only a few updates
 * in flight per workflow; a background request's horizon may leave some of them to ask again), so
 * no update is in flight across a continue-as-new and the state is the grant log alone (its recent
 * instants, and when the last interactive request came). It runs as long as the account is served
 * and continues as new after MAX_GRANTS_PER_RUN grants (or when the server suggests it), carrying the
 * log. It sets no timer and never reads its clock (instants come from the callers).
 */
import {
  ApplicationFailure,
  allHandlersFinished,
  condition,
  continueAsNew,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import {
  reserveWriteUpdate,
  type WriteBudgetInput,
  WriteGrantLog,
  writeBudgetRequestProblem,
} from '../../contracts/write-budget.js';

/** Grants per run before it continues as new (each grant adds a few history events). */
export const MAX_GRANTS_PER_RUN = 500;

export async function writeBudget(input: WriteBudgetInput = {}): Promise<void> {
  const log = new WriteGrantLog(input);
  let issued = 0;
  setHandler(
    reserveWriteUpdate,
    (request) => {
      const { instants, retryAt } = log.grantAll(request);
      issued += instants.length;
      // A request without a count (one write, never a horizon) is answered as before counts existed.
      if (request.count === undefined) return { at: instants[0]! };
      return retryAt === undefined
        ? { at: instants[0]!, instants }
        : { at: instants[0] ?? retryAt, instants, retryAt };
    },
    {
      validator: (request) => {
        const problem = writeBudgetRequestProblem(request);
        if (problem) throw ApplicationFailure.nonRetryable(problem, 'InvalidWriteBudgetRequest');
      },
    },
  );
  await condition(() => issued >= MAX_GRANTS_PER_RUN || workflowInfo().continueAsNewSuggested);
  await condition(allHandlersFinished);
  await continueAsNew<typeof writeBudget>(log.carried());
}
