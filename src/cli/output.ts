/** Printing results of operator actions: a one-line summary, or the whole status with `--json`. */

import type { OperationOutcome } from '../contracts/operations.js';
import type { CliContext } from './context.js';
import { oneLine } from './printable.js';
import { type AnyStatus, renderStatus, summarizeStatus } from './render-status.js';

export function printActionResult(
  ctx: CliContext,
  json: boolean | undefined,
  action: string,
  status: AnyStatus,
): number {
  if (json) ctx.json({ workflowId: `${status.workflowType}/${status.reference}`, action, status });
  else ctx.io.out(`${action}: ${summarizeStatus(status)}`);
  return 0;
}

/**
 * After an update: the operation's outcome (the workflow's one writer ran it, or refused it). Exit 0
 * when done, or accepted (taken; the workflow retries the registry call that met a fault); 1 when
 * refused, failed on a registry fault, or cancelled, with the workflow's words.
 */
export function printOperationOutcome(
  ctx: CliContext,
  json: boolean | undefined,
  action: string,
  workflowId: string,
  outcome: OperationOutcome,
): number {
  if (json) ctx.json({ workflowId, action, ...outcome });
  else {
    const ids = Object.entries(outcome.ids ?? {})
      .map(([k, v]) => `${k} ${v}`)
      .join(', ');
    const kind =
      outcome.outcome === 'accepted'
        ? 'accepted (taken; the workflow retries the registry call)'
        : outcome.outcome;
    const words = [`${action}: ${kind}`, `phase ${outcome.phase}`, ids].filter(Boolean).join(', ');
    ctx.io.out(oneLine(outcome.detail ? `${words}: ${outcome.detail}` : words));
    for (const e of outcome.registryErrors ?? [])
      ctx.io.out(`  ${oneLine(e.fields.join(', ') || '(registry)')}: ${oneLine(e.description)}`);
  }
  return outcome.outcome === 'done' || outcome.outcome === 'accepted' ? 0 : 1;
}

/** After a start: the workflow id and the initial status (if a worker answered the query in time). */
export function printStarted(
  ctx: CliContext,
  json: boolean | undefined,
  result: { workflowId: string; runId?: string | undefined; started: boolean; status: AnyStatus | undefined },
): number {
  if (json) {
    ctx.json({ ...result, status: result.status ?? null });
    return 0;
  }
  ctx.io.out(
    result.started
      ? `started ${result.workflowId}`
      : `${result.workflowId} exists already: nothing was started (the existing workflow is shown)`,
  );
  if (result.status) ctx.io.out(renderStatus(result.status, 5));
  else
    ctx.io.out('status: not answered yet (is a worker polling the tcr-workflows task queue? `tcr worker`)');
  return 0;
}

/** Prints a command's help text; exit 0. */
export function help(ctx: CliContext, text: string): number {
  ctx.io.out(text);
  return 0;
}

/** The run id of a freshly started workflow (undefined for an existing one fetched by id). */
export function runIdOf(handle: object): string | undefined {
  const runId = (handle as { firstExecutionRunId?: unknown }).firstExecutionRunId;
  return typeof runId === 'string' ? runId : undefined;
}
