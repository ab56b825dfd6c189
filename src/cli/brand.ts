/** `tcr brand register|correct|revet|appeal|cancel|acknowledge`. */

import { brandStatusQuery } from '../contracts/brand.js';
import { brandWorkflowId } from '../contracts/ids.js';
import {
  acknowledgeBrandAction,
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
import { acknowledgeCommand } from './acknowledge.js';
import { actionCommand } from './action-command.js';
import { connectionHelp, required } from './args.js';
import { type CliCommand, commandGroup } from './command.js';
import { UsageError } from './errors.js';
import { fieldsFromFlags, readJsonFile } from './input.js';
import { startOrderCommand } from './start-order.js';

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

export const brandCorrect: CliCommand = actionCommand({
  kind: 'brand',
  summary: "correct a brand's fields (and optionally revet)",
  help: correctHelp,
  options: {
    set: { type: 'string', multiple: true },
    'set-json': { type: 'string', multiple: true },
    revet: { type: 'boolean' },
  },
  positionals: ['FILE?'],
  schema: CorrectBrandRequestSchema,
  source: (parsed) => parsed.positionals[1] ?? 'correction',
  input({ positionals, values }) {
    const file = positionals[1];
    let request: Record<string, unknown> = {};
    if (file) {
      const raw = readJsonFile(file);
      request =
        typeof raw === 'object' && raw !== null && 'patch' in raw
          ? { ...(raw as Record<string, unknown>) }
          : { patch: raw };
    }
    const flags = fieldsFromFlags(values.set, values['set-json'], correctHelp);
    if (Object.keys(flags).length > 0)
      request.patch = { ...((request.patch as Record<string, unknown> | undefined) ?? {}), ...flags };
    if (request.patch === undefined)
      throw new UsageError('give a FILE or at least one --set / --set-json', correctHelp);
    if (values.revet) request.revet = true;
    return request;
  },
  update: 'correctBrand',
  send: correctBrand,
  done: 'corrected',
});

const revetHelp = `tcr brand revet REF: ask the registry to verify the brand again (after a correction)

Options:
  --json               print the operation outcome as JSON
${connectionHelp}`;

export const brandRevet: CliCommand = actionCommand({
  kind: 'brand',
  summary: 'revet a brand (identity verification again)',
  help: revetHelp,
  options: {},
  update: 'revet',
  send: revetBrand,
  done: 'revet requested',
});

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

export const brandAppeal: CliCommand = actionCommand({
  kind: 'brand',
  summary: "appeal a brand's identity result",
  help: appealHelp,
  options: {
    category: { type: 'string', multiple: true },
    attachment: { type: 'string', multiple: true },
    explanation: { type: 'string' },
    evp: { type: 'string' },
    'vetting-id': { type: 'string' },
  },
  schema: AppealRequestSchema,
  source: 'appeal',
  input({ values: v }) {
    if (!v.category?.length) throw new UsageError('--category is required (at least one)', appealHelp);
    return {
      appealCategories: v.category,
      attachmentUuids: v.attachment ?? [],
      explanation: required(v.explanation, '--explanation', appealHelp),
      ...(v.evp ? { evpId: v.evp } : {}),
      ...(v['vetting-id'] ? { vettingId: v['vetting-id'] } : {}),
    };
  },
  update: 'appeal',
  send: appealBrand,
  done: 'appeal filed',
});

const cancelHelp = `tcr brand cancel REF --reason TEXT: stop managing a brand (final; the brand stays at the registry as it is)

Options:
  --reason TEXT        why (required; kept in the status and audit trail)
  --json               print the operation outcome as JSON
${connectionHelp}`;

export const brandCancel: CliCommand = actionCommand({
  kind: 'brand',
  summary: "cancel a brand's workflow",
  help: cancelHelp,
  options: { reason: { type: 'string' } },
  schema: CancelRequestSchema,
  source: 'cancel',
  input: ({ values }) => ({ reason: required(values.reason, '--reason', cancelHelp) }),
  update: 'cancel',
  send: (client, reference, { reason }, opts) => cancelBrand(client, reference, reason, opts),
  done: 'cancelled',
});

export const brandAcknowledge: CliCommand = acknowledgeCommand(
  'brand',
  'acknowledge an overdue wait the operator has handled',
  'For an overdue wait the operator has handled (contact-verification-overdue,\nsole-proprietor-verification-overdue, appeal-overdue): its deadline moves a full period.',
  acknowledgeBrandAction,
);

export const brandCommands = commandGroup('brand', 'register and steer brands', {
  register: brandRegister,
  correct: brandCorrect,
  revet: brandRevet,
  appeal: brandAppeal,
  cancel: brandCancel,
  acknowledge: brandAcknowledge,
});
