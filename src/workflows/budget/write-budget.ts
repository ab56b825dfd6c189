/**
 * The write budget of one CSP account (src/contracts/write-budget.ts): a workflow per account that
 * grants write reservations from the instants of its last grants. Each `reserveWrite` is answered at
 * once (the handler never waits), so no update is in flight across a continue-as-new and the state is
 * the list of recent instants alone. It runs as long as the account is served and continues as new
 * after MAX_GRANTS_PER_RUN grants (or when the server suggests it), carrying the last grants. It
 * sets no timer and never reads its clock (instants come from the callers).
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
  insertGrant,
  MAX_WRITE_LIMIT,
  nextWriteGrant,
  reserveWriteUpdate,
  type WriteBudgetInput,
  withoutUnusedGrant,
  writeBudgetRequestProblem,
} from '../../contracts/write-budget.js';

/** Grants per run before it continues as new (each grant adds a few history events). */
export const MAX_GRANTS_PER_RUN = 500;

export async function writeBudget(input: WriteBudgetInput = {}): Promise<void> {
  const grants = [...(input.grants ?? [])]
    .filter((t) => Number.isFinite(t))
    .sort((a, b) => a - b)
    .slice(-MAX_WRITE_LIMIT);
  let issued = 0;
  setHandler(
    reserveWriteUpdate,
    (request) => {
      withoutUnusedGrant(grants, request.unused);
      const at = nextWriteGrant(grants, request);
      insertGrant(grants, at);
      if (grants.length > MAX_WRITE_LIMIT) grants.splice(0, grants.length - MAX_WRITE_LIMIT);
      issued += 1;
      return { at };
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
  await continueAsNew<typeof writeBudget>({ grants });
}
