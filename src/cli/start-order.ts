/** What `tcr brand register` and `tcr campaign create` share: validate an order file, start once, show it. */
import type { Client, WorkflowHandle } from '@temporalio/client';
import type { QueryDefinition } from '@temporalio/common';
import { withTimeout } from '../common/timeout.js';
import { type CliCommand, defineCommand } from './command.js';
import { type CliFieldError, InputValidationError } from './errors.js';
import { readJsonFile } from './input.js';
import { printStarted, runIdOf } from './output.js';
import type { AnyStatus } from './render-status.js';
import { callWorkflow, workflowExists } from './temporal-calls.js';

/** How long a start command waits for the first status before printing without it. */
export const INITIAL_STATUS_TIMEOUT_MS = 5_000;

export interface OrderKind<Order extends { reference: string; account: string }, Status extends AnyStatus> {
  summary: string;
  help: string;
  /** Parses the order; throws an error with `errors` (every field error) for a bad one. */
  parse: (raw: unknown) => Order;
  /** The error class `parse` throws for a bad order. */
  validationError: abstract new (
    ...args: never[]
  ) => Error & { errors: CliFieldError[] };
  /** The order's workflow id: `{kind}/{account}/{reference}`. */
  workflowId: (account: string, reference: string) => string;
  handle: (client: Client, ref: { account: string; reference: string }) => WorkflowHandle;
  start: (
    client: Client,
    raw: unknown,
    options: { taskQueue?: string },
  ) => Promise<{ handle: WorkflowHandle; started: boolean }>;
  statusQuery: QueryDefinition<Status>;
}

export function startOrderCommand<
  Order extends { reference: string; account: string },
  Status extends AnyStatus,
>(kind: OrderKind<Order, Status>): CliCommand {
  return defineCommand({
    summary: kind.summary,
    help: kind.help,
    options: { 'task-queue': { type: 'string' } },
    positionals: ['FILE'],
    async run(parsed, ctx) {
      const file = parsed.positionals[0]!;
      const raw = readJsonFile(file);
      let order: Order;
      try {
        order = kind.parse(raw);
      } catch (error) {
        if (error instanceof kind.validationError) throw new InputValidationError(file, error.errors);
        throw error;
      }
      const client = await ctx.client(parsed.values);
      const workflowId = kind.workflowId(order.account, order.reference);
      // The start's conflict policy (USE_EXISTING) does not tell whether it started anything: ask first.
      const existed = await workflowExists(client, workflowId);
      const taskQueue = parsed.values['task-queue'];
      const started = existed
        ? {
            handle: kind.handle(client, { account: order.account, reference: order.reference }),
            started: false,
          }
        : await callWorkflow(workflowId, 'start', () =>
            kind.start(client, raw, taskQueue ? { taskQueue } : {}),
          );
      const status = await withTimeout(
        started.handle.query(kind.statusQuery).catch(() => undefined),
        INITIAL_STATUS_TIMEOUT_MS,
      );
      return printStarted(ctx, parsed.values.json, {
        // A workflow an earlier release opened for this account (legacy id) answers the order.
        workflowId: started.handle.workflowId,
        runId: runIdOf(started.handle),
        started: started.started,
        status,
      });
    },
  });
}
