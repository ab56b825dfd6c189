/** `tcr vet order|import`: external vetting of a brand, run by the brand's workflow (a child vet workflow). */
import { importVet, orderVet } from '../orders/brand-client.js';
import {
  StrictImportVetRequestSchema as ImportVetRequestSchema,
  StrictOrderVetRequestSchema as OrderVetRequestSchema,
} from '../orders/request-schemas.js';
import { brandWorkflowId } from '../workflows/ids.js';
import { connectionHelp, parseCommand, required } from './args.js';
import { type CliCommand, commandGroup } from './command.js';
import { referenceOf, validate } from './input.js';
import { help, printOperationOutcome } from './output.js';
import { callWorkflow } from './temporal-calls.js';

const orderHelp = `tcr vet order REF --evp EVP --class STANDARD|ENHANCED|POLITICAL: order an external vet for a brand

REF is the brand's reference. The brand workflow orders the vet (POST /brand/{id}/externalVetting)
and waits up to 48 hours for its result (ACTIVE, FAILED or EXPIRED); 'tcr status REF' shows it.

Options:
  --evp EVP            the vetting provider id (GET /enum/evp), required
  --class CLASS        STANDARD, ENHANCED or POLITICAL, required
  --json               print the operation outcome as JSON
${connectionHelp}`;

export const vetOrder: CliCommand = {
  summary: 'order an external vet for a brand',
  help: orderHelp,
  async run(argv, ctx) {
    const parsed = parseCommand(argv, {
      help: orderHelp,
      options: { evp: { type: 'string' }, class: { type: 'string' } },
      positionals: ['REF'],
    });
    if (parsed === 'help') return help(ctx, orderHelp);
    const reference = referenceOf(parsed.positionals[0]!, 'brand');
    const request = validate(
      OrderVetRequestSchema,
      {
        evpId: required(parsed.values.evp, '--evp', orderHelp),
        vettingClass: required(parsed.values.class, '--class', orderHelp),
      },
      'vet order',
    );
    const client = await ctx.client(parsed.values);
    const outcome = await callWorkflow(brandWorkflowId(reference), 'orderVet', () =>
      orderVet(client, reference, request),
    );
    return printOperationOutcome(ctx, parsed.values.json, 'vet ordered', brandWorkflowId(reference), outcome);
  },
};

const importHelp = `tcr vet import REF --evp EVP --vetting-id ID [--token T]: import a vet done elsewhere

Options:
  --evp EVP            the vetting provider id, required
  --vetting-id ID      the provider's vetting id, required
  --token T            the vetting token, when the provider issued one
  --json               print the operation outcome as JSON
${connectionHelp}`;

export const vetImport: CliCommand = {
  summary: 'import an existing external vet into a brand',
  help: importHelp,
  async run(argv, ctx) {
    const parsed = parseCommand(argv, {
      help: importHelp,
      options: { evp: { type: 'string' }, 'vetting-id': { type: 'string' }, token: { type: 'string' } },
      positionals: ['REF'],
    });
    if (parsed === 'help') return help(ctx, importHelp);
    const reference = referenceOf(parsed.positionals[0]!, 'brand');
    const request = validate(
      ImportVetRequestSchema,
      {
        evpId: required(parsed.values.evp, '--evp', importHelp),
        vettingId: required(parsed.values['vetting-id'], '--vetting-id', importHelp),
        ...(parsed.values.token ? { vettingToken: parsed.values.token } : {}),
      },
      'vet import',
    );
    const client = await ctx.client(parsed.values);
    const outcome = await callWorkflow(brandWorkflowId(reference), 'importVet', () =>
      importVet(client, reference, request),
    );
    return printOperationOutcome(
      ctx,
      parsed.values.json,
      'vet import requested',
      brandWorkflowId(reference),
      outcome,
    );
  },
};

export const vetCommands = commandGroup('vet', "order or import a brand's external vet", {
  order: vetOrder,
  import: vetImport,
});
