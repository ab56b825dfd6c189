/**
 * The one shape of an operator action on a brand or campaign (`tcr brand correct`, `tcr campaign
 * share`, `tcr vet order`, ...): parse the command line (`--help` prints the help and exits 0) →
 * the reference → the request, built from the flags and checked with the strict operator request
 * schema (exit 2 on a bad command line, 3 on bad fields; nothing is sent) → the Temporal client →
 * the workflow update, sent under this invocation's idempotency key → its OperationOutcome printed
 * (exit 0 for `done` and `accepted`). Each command is a small declarative description of what differs.
 */
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import type { z } from 'zod';
import { clientAccounts, type EntityRef, refName } from '../config/entity-lookup.js';
import { entityWorkflowId } from '../contracts/ids.js';
import type { OperationOutcome } from '../contracts/operations.js';
import type { SteeringOptions } from '../orders/order-client.js';
import { IdempotencyKeySchema } from '../orders/request-schemas.js';
import type { Options, Parsed } from './args.js';
import { type CliCommand, defineCommand } from './command.js';
import type { CliContext, ConnectionFlags } from './context.js';
import { CliError } from './errors.js';
import { referenceOf, validate } from './input.js';
import { printOperationOutcome } from './output.js';
import { callWorkflow } from './temporal-calls.js';

export type EntityKind = 'brand' | 'campaign';

/** The workflow id to name in messages: the account's when known, else `{kind}/{REF}`. */
export function displayWorkflowId(client: Client, kind: EntityKind, ref: EntityRef): string {
  if (typeof ref !== 'string') return entityWorkflowId(kind, ref.account, ref.reference);
  const accounts = clientAccounts.get(client) ?? [];
  return accounts.length === 1 ? entityWorkflowId(kind, accounts[0]!, ref) : `${kind}/${refName(ref)}`;
}

interface ActionBase<O extends Options> {
  /** The workflow the command steers: REF (or `{kind}/REF`) names `{kind}/{REF}`. */
  kind: EntityKind;
  summary: string;
  /** Full `--help` text. */
  help: string;
  /** The command's own flags (--json and the connection flags are every command's). */
  options: O;
  /** Positional arguments after REF, e.g. `FILE?`. */
  positionals?: string[];
  /** The update's name in error messages (`brand/x: cancel refused: ...`). */
  update: string;
  /** The word printed before the outcome (`cancelled: done, phase ...`). */
  done: string;
}

export interface ActionWithRequest<O extends Options, S extends z.ZodType> extends ActionBase<O> {
  /** The strict operator request schema the request is checked with before anything is sent. */
  schema: S;
  /** What a field error names: a fixed word, or e.g. the file the request came from. */
  source: string | ((parsed: Parsed<O>) => string);
  /** The request from the command line; throws UsageError for a missing or malformed flag. */
  input: (parsed: Parsed<O>, ctx: CliContext) => unknown;
  send: (
    client: Client,
    reference: EntityRef,
    request: z.output<S>,
    opts: SteeringOptions,
    /** The command line (for what the request does not carry, e.g. a signing key read by `input`). */
    parsed: Parsed<O>,
  ) => Promise<OperationOutcome>;
}

export interface ActionWithoutRequest<O extends Options> extends ActionBase<O> {
  send: (client: Client, reference: EntityRef, opts: SteeringOptions) => Promise<OperationOutcome>;
}

/** The help line of every action command's `--idempotency-key` (inserted before `--json`). */
export const idempotencyKeyHelp = `  --idempotency-key K  this request's key (default: a new one per run, reused on the client's own
                       retries): the same key again, even after the first completed, is answered
                       with the first outcome, nothing done twice. An error that is not a
                       refusal names the key to reuse`;

function withKeyHelp(help: string): string {
  return help.includes('  --json') ? help.replace('  --json', `${idempotencyKeyHelp}\n  --json`) : help;
}

/**
 * This invocation's idempotency key: --idempotency-key (checked, naming the flag), else a new uuid.
 * Sent as the update id, the same on the Temporal client's own retries of the call.
 */
export function invocationKey(value: string | undefined): string {
  return value === undefined ? randomUUID() : validate(IdempotencyKeySchema, value, '--idempotency-key');
}

/**
 * Runs `send` under `key`; an error that is not the workflow's refusal (a timeout, a lost connection:
 * the outcome is unknown) names the key, so the caller can ask again for the first outcome.
 */
export async function sentWithKey<T>(key: string, send: (opts: SteeringOptions) => Promise<T>): Promise<T> {
  try {
    return await send({ idempotencyKey: key });
  } catch (error) {
    // Answers that say what happened (the workflow's refusal, no such workflow, a CLI error with its
    // own exit code) are passed on as they are; only an unknown outcome names the key.
    if (
      error instanceof WorkflowUpdateFailedError ||
      error instanceof WorkflowNotFoundError ||
      error instanceof CliError ||
      !(error instanceof Error)
    )
      throw error;
    throw new Error(
      `${error.message} (idempotency key ${key}: run it again with --idempotency-key ${key} for the first request's outcome, nothing done twice)`,
    );
  }
}

export function actionCommand<O extends Options, S extends z.ZodType>(
  action: ActionWithRequest<O, S>,
): CliCommand;
export function actionCommand<O extends Options>(action: ActionWithoutRequest<O>): CliCommand;
export function actionCommand<O extends Options, S extends z.ZodType>(
  action: ActionWithRequest<O, S> | ActionWithoutRequest<O>,
): CliCommand {
  return defineCommand({
    summary: action.summary,
    help: withKeyHelp(action.help),
    options: { ...action.options, 'idempotency-key': { type: 'string' } } as O,
    positionals: ['REF', ...(action.positionals ?? [])],
    async run(parsed, ctx) {
      const reference = referenceOf(parsed.positionals[0]!, action.kind);
      // Every command has --json, --idempotency-key and the connection flags (O's own cannot shadow them).
      const common = parsed.values as ConnectionFlags & { json?: boolean; 'idempotency-key'?: string };
      const key = invocationKey(common['idempotency-key']);
      const send = requestOf(action, parsed, ctx);
      const client = await ctx.client(common);
      const workflowId = displayWorkflowId(client, action.kind, reference);
      const outcome = await callWorkflow(
        workflowId,
        action.update,
        () => sentWithKey(key, (opts) => send(client, reference, opts)),
        client,
      );
      return printOperationOutcome(ctx, common.json, action.done, workflowId, outcome);
    },
  });
}

/** The checked request, bound into the call that sends it (before any client is opened). */
function requestOf<O extends Options, S extends z.ZodType>(
  action: ActionWithRequest<O, S> | ActionWithoutRequest<O>,
  parsed: Parsed<O>,
  ctx: CliContext,
): (client: Client, reference: EntityRef, opts: SteeringOptions) => Promise<OperationOutcome> {
  if (!('schema' in action)) return action.send;
  const source = typeof action.source === 'string' ? action.source : action.source(parsed);
  const request = validate(action.schema, action.input(parsed, ctx), source);
  return (client, reference, opts) => action.send(client, reference, request, opts, parsed);
}
