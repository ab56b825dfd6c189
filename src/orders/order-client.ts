/**
 * What the brand and campaign order clients share (./brand-client.ts, ./campaign-orders.ts): the
 * workflow of an entity is `{kind}/{account}/{reference}`, started once per account and reference
 * (the same reference under another account is another workflow), steered by Updates whose
 * requests are parsed with their strict schema first, and read by its `status` query. Each client is
 * this, given its workflow type, id helper and status query, plus its own order and input shapes.
 */
import {
  type Client,
  isGrpcDeadlineError,
  WorkflowExecutionAlreadyStartedError,
  type WorkflowHandle,
  WorkflowNotFoundError,
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
import {
  accountRequired,
  clientAccounts,
  type EntityRef,
  joinableLegacy,
  migratedId,
  rememberOrderAccount,
  resolveBare,
} from '../config/entity-lookup.js';
import { type EntityKind, entityWorkflowId } from '../contracts/ids.js';
import { WORKFLOW_TASK_QUEUE } from '../contracts/task-queues.js';
import { parseRequest } from './operator-requests.js';
import { IdempotencyKeySchema } from './request-schemas.js';

export { type EntityRef, refName, setOrderAccounts } from '../config/entity-lookup.js';

/** Options of every steering call (brand and campaign updates, vet requests). */
export interface SteeringOptions {
  /**
   * The caller's idempotency key (`IdempotencyKeySchema`), sent as the Temporal update id: the same
   * key asked again (a retry after a timeout, a double click), in the workflow's run or a later one,
   * is answered with the first call's outcome and nothing runs twice. Without one, the client makes a
   * fresh id per call (its own retries of that call reuse it).
   */
  idempotencyKey?: string;
}

/** The update options of a steering call: its checked request, and the key as the update id. */
export function steeringUpdateOptions<R>(what: string, request: R, opts: SteeringOptions = {}) {
  if (opts.idempotencyKey === undefined) return { args: [request] as [R] };
  const key = parseRequest(`${what} idempotency key`, IdempotencyKeySchema, opts.idempotencyKey);
  return { args: [request] as [R], updateId: key };
}

/**
 * How long one status query may take, and how many are asked. A query sent as the run continues as
 * new can go unanswered (the time-skipping test server leaves it so for ever, and a caller waiting on
 * it hung); with no worker polling, a server holds it until the caller's deadline. So each query has
 * a deadline, one that passes is asked again (of the next run), and after the last the caller gets an
 * error that says so instead of waiting for ever.
 */
export const STATUS_QUERY_ATTEMPT_MS = 5_000;
export const STATUS_QUERY_ATTEMPTS = 3;

/** The entity's workflow answered no status query within the attempts' deadlines. */
export class StatusQueryTimeoutError extends Error {
  constructor(kind: EntityKind, workflowId: string, cause: unknown) {
    super(
      `${kind} workflow ${workflowId} answered no status query in ${STATUS_QUERY_ATTEMPTS} attempts of ${STATUS_QUERY_ATTEMPT_MS} ms: is a worker polling its task queue?`,
      { cause },
    );
    this.name = 'StatusQueryTimeoutError';
  }
}

async function boundedStatusQuery<Status>(
  client: Client,
  kind: EntityKind,
  handle: WorkflowHandle,
  query: QueryDefinition<Status>,
): Promise<Status> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await client.withDeadline(Date.now() + STATUS_QUERY_ATTEMPT_MS, () => handle.query(query));
    } catch (error) {
      if (!isGrpcDeadlineError(error)) throw error;
      if (attempt >= STATUS_QUERY_ATTEMPTS) throw new StatusQueryTimeoutError(kind, handle.workflowId, error);
    }
  }
}

export interface EntityWorkflow<Status> {
  /** The workflow's registered name, e.g. `brandWorkflow`. */
  workflowType: string;
  kind: EntityKind;
  statusQuery: QueryDefinition<Status>;
}

export interface EntityStart<W extends Workflow> {
  /** Workflow task queue (default `tcr-workflows`). */
  taskQueue?: string | undefined;
  /** The workflow's input: its account and reference name the workflow (`{kind}/{account}/{reference}`). */
  input: Parameters<W>[0] & { account: string; reference: string };
  searchAttributes: SearchAttributePair[];
}

export interface EntityOrders<W extends Workflow, Status> {
  /**
   * The handle of the account-scoped workflow (a bare reference: of the client's only account). Does
   * not look for a legacy id: `withHandle` does.
   */
  handle(client: Client, ref: EntityRef): WorkflowHandle<W>;
  /**
   * Runs `fn` on the entity's workflow: the account-scoped one, or, when it does not exist, the legacy
   * `{kind}/{reference}` of the same account (a workflow an earlier release opened).
   */
  withHandle<T>(client: Client, ref: EntityRef, fn: (handle: WorkflowHandle<W>) => Promise<T>): Promise<T>;
  status(client: Client, ref: EntityRef): Promise<Status>;
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
    ref: EntityRef,
    update: UpdateDefinition<Ret, [Arg]>,
    what: string,
    schema: z.ZodType<Arg>,
    request: unknown,
    opts?: SteeringOptions,
  ): Promise<Ret>;
}

export function entityOrders<W extends Workflow, Status>(
  entity: EntityWorkflow<Status>,
): EntityOrders<W, Status> {
  const { kind } = entity;
  const handle = (client: Client, ref: EntityRef) => {
    if (typeof ref !== 'string')
      return client.workflow.getHandle<W>(entityWorkflowId(kind, ref.account, ref.reference));
    const accounts = clientAccounts.get(client) ?? [];
    if (accounts.length !== 1) throw accountRequired(kind, ref, 'a bare reference needs one account');
    return client.workflow.getHandle<W>(entityWorkflowId(kind, accounts[0]!, ref));
  };
  async function withHandle<T>(
    client: Client,
    ref: EntityRef,
    fn: (handle: WorkflowHandle<W>) => Promise<T>,
  ): Promise<T> {
    const accounts = clientAccounts.get(client) ?? [];
    if (typeof ref === 'string' && accounts.length !== 1)
      return fn(client.workflow.getHandle<W>(await resolveBare(client, kind, ref)));
    const named = typeof ref === 'string' ? { account: accounts[0]!, reference: ref } : ref;
    try {
      return await fn(handle(client, named));
    } catch (error) {
      if (!(error instanceof WorkflowNotFoundError)) throw error;
      const legacy = await migratedId(client, kind, named.account, named.reference);
      if (legacy === undefined) throw error;
      return fn(client.workflow.getHandle<W>(legacy));
    }
  }
  return {
    handle,
    withHandle,
    status: (client, ref) =>
      withHandle(client, ref, (h) => boundedStatusQuery(client, kind, h, entity.statusQuery)),
    async start(client, start) {
      const { account, reference } = start.input;
      rememberOrderAccount(client, account);
      // A workflow an earlier release opened for this account under the legacy id is the same order:
      // answered as before (not started again). One of another account is another order.
      const legacy = await joinableLegacy(client, kind, account, reference);
      if (legacy !== undefined) return { handle: client.workflow.getHandle<W>(legacy), started: false };
      const options = {
        workflowId: entityWorkflowId(kind, account, reference),
        taskQueue: start.taskQueue ?? WORKFLOW_TASK_QUEUE,
        args: [start.input],
        workflowIdConflictPolicy: 'USE_EXISTING',
        workflowIdReusePolicy: 'ALLOW_DUPLICATE_FAILED_ONLY',
        typedSearchAttributes: new TypedSearchAttributes(start.searchAttributes),
        // The Web UI's summary of the workflow from its start (ids only, no order data).
        staticSummary: `${kind} ${reference} of account ${account}: ordered`,
      } as unknown as WorkflowStartOptions<W>;
      try {
        return { handle: await client.workflow.start<W>(entity.workflowType, options), started: true };
      } catch (error) {
        if (error instanceof WorkflowExecutionAlreadyStartedError)
          return {
            handle: handle(client, { account, reference }),
            started: false,
          };
        throw error;
      }
    },
    async update(client, ref, update, what, schema, request, opts) {
      const valid = parseRequest(what, schema, request);
      const options = steeringUpdateOptions(what, valid, opts);
      return withHandle(client, ref, (h) => h.executeUpdate(update, options));
    },
  };
}
