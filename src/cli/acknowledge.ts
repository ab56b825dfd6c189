/** `tcr brand acknowledge` and `tcr campaign acknowledge`: one command shape for both kinds. */
import type { Client } from '@temporalio/client';
import type { EntityRef } from '../config/entity-lookup.js';
import type { OperationOutcome } from '../contracts/operations.js';
import type { SteeringOptions } from '../orders/order-client.js';
import { StrictAcknowledgeRequestSchema as AcknowledgeRequestSchema } from '../orders/request-schemas.js';
import { actionCommand, type EntityKind } from './action-command.js';
import { connectionHelp, required } from './args.js';
import type { CliCommand } from './command.js';

/**
 * Clears a needs-action entry that needs no registry call. `what` says which entries (it follows the
 * first help line); `send` is the order API's acknowledge for the kind.
 */
export function acknowledgeCommand(
  kind: EntityKind,
  summary: string,
  what: string,
  send: (
    client: Client,
    reference: EntityRef,
    key: string,
    opts: SteeringOptions,
  ) => Promise<OperationOutcome>,
): CliCommand {
  const help = `tcr ${kind} acknowledge REF --key KEY: clear a needs-action entry that needs no registry call

${what} KEY is the entry's key as 'tcr status' shows it in brackets.

Options:
  --key KEY            the needs-action key (required)
  --json               print the operation outcome as JSON
${connectionHelp}`;
  return actionCommand({
    kind,
    summary,
    help,
    options: { key: { type: 'string' } },
    schema: AcknowledgeRequestSchema,
    source: 'acknowledge',
    input: ({ values }) => ({ key: required(values.key, '--key', help) }),
    update: 'acknowledge',
    send: (client, reference, { key }, opts) => send(client, reference, key, opts),
    done: 'acknowledged',
  });
}
