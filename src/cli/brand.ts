/** `tcr brand register|correct|revet|appeal|cancel`. */

import {
  appealBrand,
  brandHandle,
  cancelBrand,
  correctBrand,
  revetBrand,
  startBrandOrder,
} from '../orders/brand-client.js';
import { OrderValidationError, parseBrandOrder } from '../orders/brand-order.js';
import {
  StrictAppealRequestSchema as AppealRequestSchema,
  StrictCancelRequestSchema as CancelRequestSchema,
  StrictCorrectBrandRequestSchema as CorrectBrandRequestSchema,
} from '../orders/request-schemas.js';
import { brandStatusQuery } from '../workflows/brand-messages.js';
import { brandWorkflowId } from '../workflows/ids.js';
import { connectionHelp, parseCommand, required } from './args.js';
import { type CliCommand, commandGroup } from './command.js';
import { UsageError } from './errors.js';
import { fieldsFromFlags, readJsonFile, referenceOf, validate } from './input.js';
import { help, printOperationOutcome } from './output.js';
import { startOrderCommand } from './start-order.js';
import { callWorkflow } from './temporal-calls.js';

const registerHelp = `tcr brand register FILE: validate a brand order file and start its workflow (brand/{reference})

The file is a JSON brand order: {"reference": "...", "account": "...", "brand": {registration fields}}
(examples/ has samples). It is validated with the same schema order systems use: an invalid file
prints every field error (path: message, one per line), exits 3 and starts nothing. Registering the
same reference again starts nothing and shows the existing workflow.

Options:
  --task-queue NAME    workflow task queue (default tcr-workflows)
  --json               print {workflowId, runId, started, status} as JSON
${connectionHelp}`;

export const brandRegister: CliCommand = startOrderCommand({
  summary: 'validate a brand order file and start its workflow',
  help: registerHelp,
  parse: parseBrandOrder,
  validationError: OrderValidationError,
  workflowId: brandWorkflowId,
  handle: brandHandle,
  start: startBrandOrder,
  statusQuery: brandStatusQuery,
});

const correctHelp = `tcr brand correct REF [FILE] [--set field=value]... [--set-json field=JSON]... [--revet]: correct a brand's fields

REF is the brand's reference (or brand/{reference}). FILE is a JSON object of the fields to change
(or {"patch": {...}, "revet": true}); --set gives a string value, --set-json any JSON value
(numbers, booleans, arrays). Flags are merged over the file. The change is validated here with the
workflow's schema (exit 3 on bad fields) and applied by the workflow (PUT /brand/{brandId}).

Options:
  --set field=value        a field with a string value (repeatable)
  --set-json field=JSON    a field with a JSON value (repeatable)
  --revet                  revet right after the update
  --json                   print the operation outcome as JSON
${connectionHelp}`;

export const brandCorrect: CliCommand = {
  summary: "correct a brand's fields (and optionally revet)",
  help: correctHelp,
  async run(argv, ctx) {
    const parsed = parseCommand(argv, {
      help: correctHelp,
      options: {
        set: { type: 'string', multiple: true },
        'set-json': { type: 'string', multiple: true },
        revet: { type: 'boolean' },
      },
      positionals: ['REF', 'FILE?'],
    });
    if (parsed === 'help') return help(ctx, correctHelp);
    const reference = referenceOf(parsed.positionals[0]!, 'brand');
    const file = parsed.positionals[1];
    let request: Record<string, unknown> = {};
    if (file) {
      const raw = readJsonFile(file);
      request =
        typeof raw === 'object' && raw !== null && 'patch' in raw
          ? { ...(raw as Record<string, unknown>) }
          : { patch: raw };
    }
    const flags = fieldsFromFlags(parsed.values.set, parsed.values['set-json'], correctHelp);
    if (Object.keys(flags).length > 0)
      request.patch = { ...((request.patch as Record<string, unknown> | undefined) ?? {}), ...flags };
    if (request.patch === undefined)
      throw new UsageError('give a FILE or at least one --set / --set-json', correctHelp);
    if (parsed.values.revet) request.revet = true;
    const valid = validate(CorrectBrandRequestSchema, request, file ?? 'correction');
    const client = await ctx.client(parsed.values);
    const outcome = await callWorkflow(brandWorkflowId(reference), 'correctBrand', () =>
      correctBrand(client, reference, valid),
    );
    return printOperationOutcome(ctx, parsed.values.json, 'corrected', brandWorkflowId(reference), outcome);
  },
};

const revetHelp = `tcr brand revet REF: ask the registry to verify the brand again (after a correction)

Options:
  --json               print the operation outcome as JSON
${connectionHelp}`;

export const brandRevet: CliCommand = {
  summary: 'revet a brand (identity verification again)',
  help: revetHelp,
  async run(argv, ctx) {
    const parsed = parseCommand(argv, { help: revetHelp, options: {}, positionals: ['REF'] });
    if (parsed === 'help') return help(ctx, revetHelp);
    const reference = referenceOf(parsed.positionals[0]!, 'brand');
    const client = await ctx.client(parsed.values);
    const outcome = await callWorkflow(brandWorkflowId(reference), 'revet', () =>
      revetBrand(client, reference),
    );
    return printOperationOutcome(
      ctx,
      parsed.values.json,
      'revet requested',
      brandWorkflowId(reference),
      outcome,
    );
  },
};

const appealHelp = `tcr brand appeal REF --category C... --explanation TEXT [--attachment ID...]: appeal an identity result

Categories are the registry's brand appeal categories (GET /enum/brandAppealCategory), e.g.
VERIFY_TAX_ID, VERIFY_NON_PROFIT, VERIFY_GOVERNMENT, LOW_SCORE. Attachments are ids of files
uploaded to the registry beforehand.

Options:
  --category C         an appeal category (repeatable, at least one)
  --attachment ID      an attachment UUID (repeatable)
  --explanation TEXT   why the result is wrong (required)
  --evp EVP            the vetting provider, when appealing a vet
  --vetting-id ID      the vet, when appealing a vet
  --json               print the operation outcome as JSON
${connectionHelp}`;

export const brandAppeal: CliCommand = {
  summary: "appeal a brand's identity result",
  help: appealHelp,
  async run(argv, ctx) {
    const parsed = parseCommand(argv, {
      help: appealHelp,
      options: {
        category: { type: 'string', multiple: true },
        attachment: { type: 'string', multiple: true },
        explanation: { type: 'string' },
        evp: { type: 'string' },
        'vetting-id': { type: 'string' },
      },
      positionals: ['REF'],
    });
    if (parsed === 'help') return help(ctx, appealHelp);
    const reference = referenceOf(parsed.positionals[0]!, 'brand');
    const v = parsed.values;
    if (!v.category?.length) throw new UsageError('--category is required (at least one)', appealHelp);
    const request = validate(
      AppealRequestSchema,
      {
        appealCategories: v.category,
        attachmentUuids: v.attachment ?? [],
        explanation: required(v.explanation, '--explanation', appealHelp),
        ...(v.evp ? { evpId: v.evp } : {}),
        ...(v['vetting-id'] ? { vettingId: v['vetting-id'] } : {}),
      },
      'appeal',
    );
    const client = await ctx.client(v);
    const outcome = await callWorkflow(brandWorkflowId(reference), 'appeal', () =>
      appealBrand(client, reference, request),
    );
    return printOperationOutcome(ctx, v.json, 'appeal filed', brandWorkflowId(reference), outcome);
  },
};

const cancelHelp = `tcr brand cancel REF --reason TEXT: stop managing a brand (final; the brand stays at the registry as it is)

Options:
  --reason TEXT        why (required; kept in the status and audit trail)
  --json               print the operation outcome as JSON
${connectionHelp}`;

export const brandCancel: CliCommand = {
  summary: "cancel a brand's workflow",
  help: cancelHelp,
  async run(argv, ctx) {
    const parsed = parseCommand(argv, {
      help: cancelHelp,
      options: { reason: { type: 'string' } },
      positionals: ['REF'],
    });
    if (parsed === 'help') return help(ctx, cancelHelp);
    const reference = referenceOf(parsed.positionals[0]!, 'brand');
    const { reason } = validate(
      CancelRequestSchema,
      { reason: required(parsed.values.reason, '--reason', cancelHelp) },
      'cancel',
    );
    const client = await ctx.client(parsed.values);
    const outcome = await callWorkflow(brandWorkflowId(reference), 'cancel', () =>
      cancelBrand(client, reference, reason),
    );
    return printOperationOutcome(ctx, parsed.values.json, 'cancelled', brandWorkflowId(reference), outcome);
  },
};

export const brandCommands = commandGroup('brand', 'register and steer brands', {
  register: brandRegister,
  correct: brandCorrect,
  revet: brandRevet,
  appeal: brandAppeal,
  cancel: brandCancel,
});
