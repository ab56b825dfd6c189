/**
 * Calls to workflows, with Temporal's failures turned into CLI errors: an unknown workflow is
 * NotFoundError (exit 4), one that closed as the call arrived a failure (exit 1) that says so; an
 * update the workflow refused (its validator, or the phase does not allow it) is a failure (exit 1)
 * carrying the workflow's own message.
 */
import {
  type Client,
  QueryNotRegisteredError,
  ServiceError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
} from '@temporalio/client';
import { messageOf } from '../common/error-message.js';
import { CliError, ExitCode, NotFoundError } from './errors.js';

function rootMessage(error: unknown): string {
  let current: unknown = error;
  const messages: string[] = [];
  for (let depth = 0; current instanceof Error && depth < 5; depth++) {
    if (current.message && !messages.includes(current.message)) messages.push(current.message);
    current = (current as { cause?: unknown }).cause;
  }
  return messages.join(': ') || String(error);
}

export function isNotFound(error: unknown): boolean {
  if (error instanceof WorkflowNotFoundError) return true;
  // A query of an unknown workflow can surface as a gRPC NOT_FOUND (code 5) service error.
  const cause = (error as { cause?: { code?: unknown } } | null)?.cause;
  return error instanceof ServiceError && cause?.code === 5;
}

/** What `callWorkflow` needs to tell a closed workflow from a missing one. */
export interface WorkflowDescriber {
  workflow: { getHandle(workflowId: string): { describe(): Promise<{ status: { name: string } }> } };
}

/**
 * Runs `fn` against workflow `workflowId`, mapping Temporal errors to exit codes. Given `client`, a
 * NOT_FOUND is checked with a describe: a workflow that closed as the call arrived (the second of two
 * cancel clicks) is reported closed, exit 1, not missing.
 */
export async function callWorkflow<T>(
  workflowId: string,
  what: string,
  fn: () => Promise<T>,
  client?: WorkflowDescriber,
): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (error instanceof CliError) throw error;
    if (isNotFound(error)) {
      const closed = client ? await closedStatus(client, workflowId) : undefined;
      if (closed)
        throw new CliError(
          `${workflowId}: ${what}: the workflow has already closed (${closed})`,
          ExitCode.failure,
        );
      throw new NotFoundError(`${workflowId}: no such workflow`);
    }
    if (error instanceof WorkflowUpdateFailedError)
      throw new CliError(
        `${workflowId}: ${what} refused: ${rootMessage(error.cause ?? error)}`,
        ExitCode.failure,
      );
    if (error instanceof QueryNotRegisteredError)
      throw new CliError(`${workflowId}: ${what}: the workflow does not answer this query`, ExitCode.failure);
    throw new CliError(`${workflowId}: ${what} failed: ${rootMessage(error)}`, ExitCode.failure);
  }
}

/** The status of workflow `workflowId` when it exists and is closed; otherwise undefined. */
async function closedStatus(client: WorkflowDescriber, workflowId: string): Promise<string | undefined> {
  try {
    const { status } = await client.workflow.getHandle(workflowId).describe();
    return status.name === 'RUNNING' ? undefined : status.name;
  } catch {
    return undefined;
  }
}

/** Whether a workflow with this id exists (running or closed). */
export async function workflowExists(client: Client, workflowId: string): Promise<boolean> {
  try {
    await client.workflow.getHandle(workflowId).describe();
    return true;
  } catch (error) {
    if (isNotFound(error)) return false;
    throw new CliError(`${workflowId}: ${messageOf(error)}`);
  }
}
