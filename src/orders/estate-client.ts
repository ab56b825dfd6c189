/**
 * The client side of the estate import (src/contracts/estate.ts): `tcr import` starts an account's
 * import once, and attaches to it when it runs already. (The sweep's Schedule is the workers':
 * src/workers/sweep-schedule.ts.)
 */
import { type Client, WorkflowExecutionAlreadyStartedError, type WorkflowHandle } from '@temporalio/client';
import { TypedSearchAttributes } from '@temporalio/common';
import {
  ESTATE_IMPORT_WORKFLOW_TYPE,
  type EstateImportInput,
  type EstateKind,
  type EstatePaging,
  type ImportStatus,
  importStatusQuery,
  importWorkflowId,
} from '../contracts/estate.js';
import { AccountKey } from '../contracts/search-attributes.js';
import { WORKFLOW_TASK_QUEUE } from '../contracts/task-queues.js';

type ImportWorkflow = (input: EstateImportInput) => Promise<ImportStatus>;

export interface ImportRequest {
  account: string;
  kinds?: EstateKind[];
  dryRun?: boolean;
  paging?: EstatePaging;
  taskQueue?: string;
}

/**
 * Starts the account's import, or attaches to the one running (whatever its options: `started`
 * says which). An import that finished may be run again: it adopts only what is still unowned.
 */
export async function startImport(
  client: Client,
  request: ImportRequest,
): Promise<{ handle: WorkflowHandle<ImportWorkflow>; started: boolean }> {
  const workflowId = importWorkflowId(request.account);
  const input: EstateImportInput = {
    account: request.account,
    ...(request.kinds ? { kinds: request.kinds } : {}),
    ...(request.dryRun ? { dryRun: true } : {}),
    ...(request.paging ? { paging: request.paging } : {}),
  };
  try {
    const handle = await client.workflow.start<ImportWorkflow>(ESTATE_IMPORT_WORKFLOW_TYPE, {
      workflowId,
      taskQueue: request.taskQueue ?? WORKFLOW_TASK_QUEUE,
      args: [input],
      workflowIdConflictPolicy: 'FAIL',
      workflowIdReusePolicy: 'ALLOW_DUPLICATE',
      typedSearchAttributes: new TypedSearchAttributes([{ key: AccountKey, value: request.account }]),
    });
    return { handle, started: true };
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    return { handle: client.workflow.getHandle<ImportWorkflow>(workflowId), started: false };
  }
}

export function importStatus(client: Client, account: string): Promise<ImportStatus> {
  return client.workflow.getHandle<ImportWorkflow>(importWorkflowId(account)).query(importStatusQuery);
}
