/**
 * The write budget of one CSP account (src/contracts/write-budget.ts): a workflow per account that
 * grants write reservations from the instants of its last grants. Each `reserveWrite` is answered at
 * once (the handler never waits), so no update is in flight across a continue-as-new and the state is
 * the list of recent instants alone. It runs as long as the account is served and continues as new
 * after MAX_GRANTS_PER_RUN answers (or when the server suggests it), carrying the last grants. It
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
  answerWriteRequest,
  MAX_WRITE_LIMIT,
  reserveWriteUpdate,
  type WriteBudgetInput,
  writeBudgetRequestProblem,
} from '../../contracts/write-budget.js';

/** Answers per run before it continues as new (each adds a few history events). */
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
      const answer = answerWriteRequest(grants, request);
      issued += 1;
      return answer;
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
