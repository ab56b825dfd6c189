/** `tcr vet order|import`: external vetting of a brand, run by the brand's workflow (a child vet workflow). */
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import type { EntityRef } from '../config/entity-lookup.js';
import type { OperationOutcome } from '../contracts/operations.js';
import { importVet, orderVet } from '../orders/brand-client.js';
import {
  IdempotencyKeySchema,
  StrictImportVetRequestSchema as ImportVetRequestSchema,
  StrictOrderVetRequestSchema as OrderVetRequestSchema,
} from '../orders/request-schemas.js';
import { actionCommand } from './action-command.js';
import { connectionHelp, required } from './args.js';
import { type CliCommand, commandGroup } from './command.js';
import { readJsonFile, validate } from './input.js';

/**
 * The idempotency key of this invocation (--idempotency-key, else a fresh uuid): sent as the update
 * id, the same on the Temporal client's own retries of the call. A caller that lost the answer (a
 * timeout) runs the command again with the key the error names and gets the first outcome.
 */
let invocationKey = '';
function keyOf(value: string | undefined, source: string): string {
  invocationKey = value === undefined ? randomUUID() : validate(IdempotencyKeySchema, value, source);
  return invocationKey;
}

/** Sends a vet request under this invocation's key; an error that is not a refusal names the key. */
function withKey<R>(
  send: (
    client: Client,
    reference: EntityRef,
    request: R,
    opts: { idempotencyKey: string },
  ) => Promise<OperationOutcome>,
) {
  return async (client: Client, reference: EntityRef, request: R): Promise<OperationOutcome> => {
    const key = invocationKey;
    try {
      return await send(client, reference, request, { idempotencyKey: key });
    } catch (error) {
      if (error instanceof WorkflowUpdateFailedError || !(error instanceof Error)) throw error;
      throw new Error(
        `${error.message} (idempotency key ${key}: run it again with --idempotency-key ${key} for the first request's outcome, nothing ordered twice)`,
      );
    }
  };
}

/** Sets this invocation's key (checked, naming the flag); adds nothing to the request. */
const withInvocationKey = (value: string | undefined): Record<string, never> => {
  keyOf(value, '--idempotency-key');
  return {};
};

const keyHelp = `  --idempotency-key K  this request's key (default: a new one per run): the same key again, even
                       after the first completed, is answered with the first outcome, never a
                       second vet or fee. An error that is not a refusal names the key to reuse`;

const orderHelp = `tcr vet order REF --evp EVP --class STANDARD|ENHANCED|POLITICAL [--payload-file PATH]: order an external vet for a brand

REF is the brand's reference. The brand workflow first checks the provider in the registry's list
(GET /enum/extVettingProvider: listed, offers the class, takes new orders) and refuses the order
otherwise, then orders the vet (POST /brand/{id}/externalVetting) and waits up to 48 hours for its
result (ACTIVE, FAILED or EXPIRED); 'tcr status REF' shows it.

Options:
  --evp EVP            the vetting provider id (GET /enum/extVettingProvider), required
  --class CLASS        STANDARD, ENHANCED or POLITICAL, required
  --payload-file PATH  POLITICAL only: a JSON object whose members are sent in the order's body
                       beside evpId and vettingClass (the registry's political payload)
${keyHelp}
  --json               print the operation outcome as JSON
${connectionHelp}`;

export const vetOrder: CliCommand = actionCommand({
  kind: 'brand',
  summary: 'order an external vet for a brand',
  help: orderHelp,
  options: {
    evp: { type: 'string' },
    class: { type: 'string' },
    'payload-file': { type: 'string' },
    'idempotency-key': { type: 'string' },
  },
  schema: OrderVetRequestSchema,
  source: 'vet order',
  input: ({ values }) => ({
    ...withInvocationKey(values['idempotency-key']),
    evpId: required(values.evp, '--evp', orderHelp),
    vettingClass: required(values.class, '--class', orderHelp),
    ...(values['payload-file'] ? { politicalPayload: readJsonFile(values['payload-file']) } : {}),
  }),
  update: 'orderVet',
  send: withKey(orderVet),
  done: 'vet ordered',
});

const importHelp = `tcr vet import REF --evp EVP --vetting-id ID [--token T] [--class CLASS]: import a vet done elsewhere

The brand workflow first checks the provider in the registry's list (listed, takes imports, offers
the class if one is given) and refuses a Political import for a 501(c)(3)-(6) non-profit.

Options:
  --evp EVP            the vetting provider id, required
  --vetting-id ID      the provider's vetting id, required
  --token T            the vetting token, when the provider issued one
  --class CLASS        the vet's class (STANDARD, ENHANCED or POLITICAL), for the checks only:
                       not sent to the registry
${keyHelp}
  --json               print the operation outcome as JSON
${connectionHelp}`;

export const vetImport: CliCommand = actionCommand({
  kind: 'brand',
  summary: 'import an existing external vet into a brand',
  help: importHelp,
  options: {
    evp: { type: 'string' },
    'vetting-id': { type: 'string' },
    token: { type: 'string' },
    class: { type: 'string' },
    'idempotency-key': { type: 'string' },
  },
  schema: ImportVetRequestSchema,
  source: 'vet import',
  input: ({ values }) => ({
    ...withInvocationKey(values['idempotency-key']),
    evpId: required(values.evp, '--evp', importHelp),
    vettingId: required(values['vetting-id'], '--vetting-id', importHelp),
    ...(values.token ? { vettingToken: values.token } : {}),
    ...(values.class ? { vettingClass: values.class } : {}),
  }),
  update: 'importVet',
  send: withKey(importVet),
  done: 'vet import requested',
});

export const vetCommands = commandGroup('vet', "order or import a brand's external vet", {
  order: vetOrder,
  import: vetImport,
});
