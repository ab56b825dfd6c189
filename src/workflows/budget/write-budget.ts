/**
 * The write budget of one CSP account (src/contracts/write-budget.ts, its rules in ./grant-rules.ts):
 * a workflow per account that grants write reservations from the instants of its last grants. Each `reserveWrite` is answered at
 * once (the handler never waits), with one instant or, for a counted request, several (a worker
 * process's writes that asked together: one update for them, as Temporal admits only a few updates
 * in flight per workflow; a background request's horizon may leave some of them to ask again), so
 * no update is in flight across a continue-as-new and the state is the grant log alone (its recent
 * instants, and when the last interactive request came). It runs as long as the account is served
 * and continues as new after MAX_GRANTS_PER_RUN grants (or when the server suggests it), carrying the
 * log. It sets no timer and never reads its clock (instants come from the callers). Since the
 * writeBudgetRestart patch, a run started without carried grants keeps quiet first unless it is the
 * first of its id, a repeated reservation id gets its first answer again, and a request past its
 * deadline is refused (./grant-rules.ts).
 */
import {
  ApplicationFailure,
  allHandlersFinished,
  condition,
  continueAsNew,
  patched,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import { reserveWriteUpdate, type WriteBudgetInput } from '../../contracts/write-budget.js';
import { PATCHES } from '../patches.js';
import { WriteGrantLog, writeBudgetRequestProblem } from './grant-rules.js';

/** Grants per run before it continues as new (each grant adds a few history events). */
export const MAX_GRANTS_PER_RUN = 500;

export async function writeBudget(input: WriteBudgetInput = {}): Promise<void> {
  const restartRules = patched(PATCHES.writeBudgetRestart);
  const info = workflowInfo();
  // A reset run keeps its first run's input but not its run id: it cannot know what was granted after
  // its reset point, so it counts as restarted even when its chain began as the first of its id.
  const reset = info.continuedFromExecutionRunId === undefined && info.runId !== info.firstExecutionRunId;
  const restarted = !Array.isArray(input.grants) && (input.firstOfId !== true || reset);
  const log = new WriteGrantLog(input, { restartRules, restarted });
  let issued = 0;
  setHandler(
    reserveWriteUpdate,
    (request) => {
      const { instants, retryAt, repeated } = log.grantAll(request);
      if (!repeated) issued += instants.length;
      // A request without a count (one write, never a horizon) is answered as before counts existed.
      if (request.count === undefined) return { at: instants[0]! };
      return retryAt === undefined
        ? { at: instants[0]!, instants }
        : { at: instants[0] ?? retryAt, instants, retryAt };
    },
    {
      validator: (request) => {
        const problem = writeBudgetRequestProblem(request) ?? log.refusal(request);
        if (problem) throw ApplicationFailure.nonRetryable(problem, 'InvalidWriteBudgetRequest');
      },
    },
  );
  await condition(() => issued >= MAX_GRANTS_PER_RUN || workflowInfo().continueAsNewSuggested);
  await condition(allHandlersFinished);
  await continueAsNew<typeof writeBudget>(log.carried());
}
