/** `tcr vet order|import`: external vetting of a brand, run by the brand's workflow (a child vet workflow). */
import { importVet, orderVet } from '../orders/brand-client.js';
import {
  StrictImportVetRequestSchema as ImportVetRequestSchema,
  StrictOrderVetRequestSchema as OrderVetRequestSchema,
} from '../orders/request-schemas.js';
import { actionCommand } from './action-command.js';
import { connectionHelp, required } from './args.js';
import { type CliCommand, commandGroup } from './command.js';
import { readJsonFile } from './input.js';

// Every action command sends its update under one idempotency key per invocation (--idempotency-key
// or a new one, ./action-command.ts): the same key again is answered with the first vet's outcome.

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
  },
  schema: OrderVetRequestSchema,
  source: 'vet order',
  input: ({ values }) => ({
    evpId: required(values.evp, '--evp', orderHelp),
    vettingClass: required(values.class, '--class', orderHelp),
    ...(values['payload-file'] ? { politicalPayload: readJsonFile(values['payload-file']) } : {}),
  }),
  update: 'orderVet',
  send: orderVet,
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
  },
  schema: ImportVetRequestSchema,
  source: 'vet import',
  input: ({ values }) => ({
    evpId: required(values.evp, '--evp', importHelp),
    vettingId: required(values['vetting-id'], '--vetting-id', importHelp),
    ...(values.token ? { vettingToken: values.token } : {}),
    ...(values.class ? { vettingClass: values.class } : {}),
  }),
  update: 'importVet',
  send: importVet,
  done: 'vet import requested',
});

export const vetCommands = commandGroup('vet', "order or import a brand's external vet", {
  order: vetOrder,
  import: vetImport,
});
