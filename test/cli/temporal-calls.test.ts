/**
 * How `callWorkflow` reports Temporal's answers (src/cli/temporal-calls.ts): a workflow that does not
 * exist is exit 4, "no such workflow"; one that closed while the action was on its way (the second of
 * two cancel clicks, answered NOT_FOUND) is exit 1 and says it closed, not that it never existed.
 */
import { WorkflowNotFoundError } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/cli/errors.js';
import { callWorkflow, type WorkflowDescriber } from '../../src/cli/temporal-calls.js';

const id = 'brand/local/acme';
const notFound = () => new WorkflowNotFoundError('workflow execution already completed', id, undefined);

/** A client whose describe answers `status`, or NOT_FOUND when there is none. */
function describing(status: string | undefined): WorkflowDescriber {
  return {
    workflow: {
      getHandle: () => ({
        describe: async () => {
          if (status === undefined) throw notFound();
          return { status: { name: status } };
        },
      }),
    },
  };
}

async function outcome(error: Error, client?: WorkflowDescriber) {
  return callWorkflow(id, 'cancel', () => Promise.reject(error), client).then(
    () => ({ message: 'answered', code: undefined }),
    (e: Error & { exitCode?: number }) => ({ message: e.message, code: e.exitCode }),
  );
}

describe('callWorkflow', () => {
  it('a workflow that does not exist: no such workflow, exit 4', async () => {
    const missing = { message: `${id}: no such workflow`, code: ExitCode.notFound };
    expect(await outcome(notFound(), describing(undefined))).toEqual(missing);
    expect(await outcome(notFound())).toEqual(missing);
  });

  it('a workflow that closed as the action arrived: it says so with its status, exit 1', async () => {
    expect(await outcome(notFound(), describing('CANCELLED'))).toEqual({
      message: `${id}: cancel: the workflow has already closed (CANCELLED)`,
      code: ExitCode.failure,
    });
  });

  it('a NOT_FOUND from a workflow still running (an update of another run) stays not found', async () => {
    expect(await outcome(notFound(), describing('RUNNING'))).toEqual({
      message: `${id}: no such workflow`,
      code: ExitCode.notFound,
    });
  });
});
