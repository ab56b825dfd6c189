/**
 * The one shape of an operator action on a brand or campaign (`tcr brand correct`, `tcr campaign
 * share`, `tcr vet order`, ...): parse the command line (`--help` prints the help and exits 0) →
 * the reference → the request, built from the flags and checked with the strict operator request
 * schema (exit 2 on a bad command line, 3 on bad fields; nothing is sent) → the Temporal client →
 * the workflow update → its OperationOutcome printed (exit 0 only for `done`). Each command is a
 * small declarative description of what differs.
 */
import type { Client } from '@temporalio/client';
import type { z } from 'zod';
import { clientAccounts, type EntityRef, refName } from '../config/entity-lookup.js';
import { entityWorkflowId } from '../contracts/ids.js';
import type { OperationOutcome } from '../contracts/operations.js';
import type { Options, Parsed } from './args.js';
import { type CliCommand, defineCommand } from './command.js';
import type { CliContext, ConnectionFlags } from './context.js';
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
  send: (client: Client, reference: EntityRef, request: z.output<S>) => Promise<OperationOutcome>;
}

export interface ActionWithoutRequest<O extends Options> extends ActionBase<O> {
  send: (client: Client, reference: EntityRef) => Promise<OperationOutcome>;
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
    help: action.help,
    options: action.options,
    positionals: ['REF', ...(action.positionals ?? [])],
    async run(parsed, ctx) {
      const reference = referenceOf(parsed.positionals[0]!, action.kind);
      const send = requestOf(action, parsed, ctx);
      // Every command has --json and the connection flags (O's own flags cannot shadow them).
      const common = parsed.values as ConnectionFlags & { json?: boolean };
      const client = await ctx.client(common);
      const workflowId = displayWorkflowId(client, action.kind, reference);
      const outcome = await callWorkflow(workflowId, action.update, () => send(client, reference));
      return printOperationOutcome(ctx, common.json, action.done, workflowId, outcome);
    },
  });
}

/** The checked request, bound into the call that sends it (before any client is opened). */
function requestOf<O extends Options, S extends z.ZodType>(
  action: ActionWithRequest<O, S> | ActionWithoutRequest<O>,
  parsed: Parsed<O>,
  ctx: CliContext,
): (client: Client, reference: EntityRef) => Promise<OperationOutcome> {
  if (!('schema' in action)) return action.send;
  const source = typeof action.source === 'string' ? action.source : action.source(parsed);
  const request = validate(action.schema, action.input(parsed, ctx), source);
  return (client, reference) => action.send(client, reference, request);
}
