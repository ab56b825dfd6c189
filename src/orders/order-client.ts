/**
 * What the brand and campaign order clients share (./brand-client.ts, ./campaign-orders.ts): the
 * workflow of an entity is `{kind}/{reference}`, started once per reference, steered by Updates whose
 * requests are parsed with their strict schema first, and read by its `status` query. Each client is
 * this, given its workflow type, id helper and status query, plus its own order and input shapes.
 */
import {
  type Client,
  WorkflowExecutionAlreadyStartedError,
  type WorkflowHandle,
  type WorkflowStartOptions,
} from '@temporalio/client';
import {
  type QueryDefinition,
  type SearchAttributePair,
  TypedSearchAttributes,
  type UpdateDefinition,
  type Workflow,
} from '@temporalio/common';
import type { z } from 'zod';
import { WORKFLOW_TASK_QUEUE } from '../contracts/task-queues.js';
import { parseRequest } from './operator-requests.js';

export interface EntityWorkflow<Status> {
  /** The workflow's registered name, e.g. `brandWorkflow`. */
  workflowType: string;
  workflowId: (reference: string) => string;
  statusQuery: QueryDefinition<Status>;
}

export interface EntityStart<W extends Workflow> {
  reference: string;
  /** Workflow task queue (default `tcr-workflows`). */
  taskQueue?: string | undefined;
  input: Parameters<W>[0];
  searchAttributes: SearchAttributePair[];
}

export interface EntityOrders<W extends Workflow, Status> {
  handle(client: Client, reference: string): WorkflowHandle<W>;
  status(client: Client, reference: string): Promise<Status>;
  /**
   * Starts the entity's workflow. The same reference again returns the running workflow (conflict
   * policy USE_EXISTING). A workflow that failed or was terminated can be started again (reuse
   * policy ALLOW_DUPLICATE_FAILED_ONLY: the new run adopts the registry's record by referenceId); a
   * completed one stays closed and its handle is returned with `started: false`.
   */
  start(client: Client, start: EntityStart<W>): Promise<{ handle: WorkflowHandle<W>; started: boolean }>;
  /** Parses `request` with `schema` (a RequestValidationError naming `what` sends nothing), then runs the update. */
  update<Ret, Arg>(
    client: Client,
    reference: string,
    update: UpdateDefinition<Ret, [Arg]>,
    what: string,
    schema: z.ZodType<Arg>,
    request: unknown,
  ): Promise<Ret>;
}

export function entityOrders<W extends Workflow, Status>(
  entity: EntityWorkflow<Status>,
): EntityOrders<W, Status> {
  const handle = (client: Client, reference: string) =>
    client.workflow.getHandle<W>(entity.workflowId(reference));
  return {
    handle,
    status: (client, reference) => handle(client, reference).query(entity.statusQuery),
    async start(client, start) {
      const options = {
        workflowId: entity.workflowId(start.reference),
        taskQueue: start.taskQueue ?? WORKFLOW_TASK_QUEUE,
        args: [start.input],
        workflowIdConflictPolicy: 'USE_EXISTING',
        workflowIdReusePolicy: 'ALLOW_DUPLICATE_FAILED_ONLY',
        typedSearchAttributes: new TypedSearchAttributes(start.searchAttributes),
      } as unknown as WorkflowStartOptions<W>;
      try {
        return { handle: await client.workflow.start<W>(entity.workflowType, options), started: true };
      } catch (error) {
        if (error instanceof WorkflowExecutionAlreadyStartedError)
          return { handle: handle(client, start.reference), started: false };
        throw error;
      }
    },
    async update(client, reference, update, what, schema, request) {
      const valid = parseRequest(what, schema, request);
      return handle(client, reference).executeUpdate(update, { args: [valid] });
    },
  };
}
