/** `tcr campaign create|resubmit|share|approve-fee|cancel|acknowledge`. */
import { userInfo } from 'node:os';
import {
  acknowledgeCampaignAction,
  approveCampaignFee,
  CampaignOrderValidationError,
  campaignHandle,
  cancelCampaign,
  parseCampaignOrder,
  resubmitCampaign,
  shareCampaignWith,
  startCampaignOrder,
} from '../orders/campaign-orders.js';
import {
  StrictAcknowledgeRequestSchema as AcknowledgeRequestSchema,
  StrictApproveFeeRequestSchema as ApproveFeeRequestSchema,
  StrictCampaignCancelRequestSchema as CampaignCancelRequestSchema,
  StrictResubmitRequestSchema as ResubmitRequestSchema,
  StrictShareWithRequestSchema as ShareWithRequestSchema,
} from '../orders/request-schemas.js';
import { campaignStatusQuery } from '../workflows/campaign-messages.js';
import { campaignWorkflowId } from '../workflows/ids.js';
import { connectionHelp, parseCommand, required } from './args.js';
import { type CliCommand, commandGroup } from './command.js';
import { InputValidationError, UsageError } from './errors.js';
import { fieldsFromFlags, readJsonFile, referenceOf, validate } from './input.js';
import { help, printOperationOutcome } from './output.js';
import { startOrderCommand } from './start-order.js';
import { callWorkflow } from './temporal-calls.js';

const createHelp = `tcr campaign create FILE: validate a campaign order file and start its workflow (campaign/{reference})

The file is a JSON campaign order: {"reference", "account", "brandReference", "upstreamCnpId",
"requireFeeApproval"?, "campaign": {usecase, description, samples, ...}} (examples/ has samples).
An invalid file prints every field error, exits 3 and starts nothing. The workflow waits for its
brand to be ready, checks the campaign builder, and creates (bills) the campaign once.

Options:
  --task-queue NAME    workflow task queue (default tcr-workflows)
  --json               print {workflowId, runId, started, status} as JSON
${connectionHelp}`;

export const campaignCreate: CliCommand = startOrderCommand({
  summary: 'validate a campaign order file and start its workflow',
  help: createHelp,
  parse: parseCampaignOrder,
  validationError: CampaignOrderValidationError,
  workflowId: campaignWorkflowId,
  handle: campaignHandle,
  start: startCampaignOrder,
  statusQuery: campaignStatusQuery,
});

const resubmitHelp = `tcr campaign resubmit REF [FILE] [--set field=value]... [--set-json field=JSON]...: change a refused or declined campaign and try again

FILE is a JSON object of campaign field changes (or {"changes": {...}}); --set gives a string value,
--set-json any JSON value. Before creation the changes are merged into the order; after creation
they are sent to the registry (PUT /campaign/{id}) and the campaign is shared again.

Options:
  --set field=value        a field with a string value (repeatable)
  --set-json field=JSON    a field with a JSON value (repeatable)
  --json                   print the operation outcome as JSON
${connectionHelp}`;

export const campaignResubmit: CliCommand = {
  summary: 'change a refused or declined campaign and resubmit it',
  help: resubmitHelp,
  async run(argv, ctx) {
    const parsed = parseCommand(argv, {
      help: resubmitHelp,
      options: { set: { type: 'string', multiple: true }, 'set-json': { type: 'string', multiple: true } },
      positionals: ['REF', 'FILE?'],
    });
    if (parsed === 'help') return help(ctx, resubmitHelp);
    const reference = referenceOf(parsed.positionals[0]!, 'campaign');
    const file = parsed.positionals[1];
    let changes: Record<string, unknown> = {};
    if (file) {
      const raw = readJsonFile(file);
      const body =
        typeof raw === 'object' && raw !== null && 'changes' in raw
          ? (raw as { changes: unknown }).changes
          : raw;
      if (typeof body !== 'object' || body === null || Array.isArray(body))
        throw new InputValidationError(file, [
          { path: '', message: 'expected a JSON object of campaign field changes' },
        ]);
      changes = { ...(body as Record<string, unknown>) };
    }
    Object.assign(changes, fieldsFromFlags(parsed.values.set, parsed.values['set-json'], resubmitHelp));
    if (Object.keys(changes).length === 0)
      throw new UsageError('give a FILE or at least one --set / --set-json', resubmitHelp);
    const request = validate(ResubmitRequestSchema, { changes }, file ?? 'resubmit');
    const client = await ctx.client(parsed.values);
    const outcome = await callWorkflow(campaignWorkflowId(reference), 'resubmit', () =>
      resubmitCampaign(client, reference, request),
    );
    return printOperationOutcome(
      ctx,
      parsed.values.json,
      'resubmitted',
      campaignWorkflowId(reference),
      outcome,
    );
  },
};

const shareHelp = `tcr campaign share REF --partner CNP: share the campaign with another upstream partner (after a decline)

Options:
  --partner CNP        the upstream connectivity partner id (GET /enum/cnp), required
  --json               print the operation outcome as JSON
${connectionHelp}`;

export const campaignShare: CliCommand = {
  summary: 'share a campaign with another upstream partner',
  help: shareHelp,
  async run(argv, ctx) {
    const parsed = parseCommand(argv, {
      help: shareHelp,
      options: { partner: { type: 'string' } },
      positionals: ['REF'],
    });
    if (parsed === 'help') return help(ctx, shareHelp);
    const reference = referenceOf(parsed.positionals[0]!, 'campaign');
    const { upstreamCnpId } = validate(
      ShareWithRequestSchema,
      { upstreamCnpId: required(parsed.values.partner, '--partner', shareHelp) },
      'share',
    );
    const client = await ctx.client(parsed.values);
    const outcome = await callWorkflow(campaignWorkflowId(reference), 'shareWith', () =>
      shareCampaignWith(client, reference, upstreamCnpId),
    );
    return printOperationOutcome(ctx, parsed.values.json, 'shared', campaignWorkflowId(reference), outcome);
  },
};

const approveHelp = `tcr campaign approve-fee REF [--by NAME] [--max-fee N]: approve the billed creation of a campaign

For orders with requireFeeApproval: the workflow waits in awaiting-fee-approval until this.

Options:
  --by NAME            who approves (default: $USER, else the login name)
  --max-fee N          refuse when the expected monthly fee is above N
  --json               print the operation outcome as JSON
${connectionHelp}`;

export const campaignApproveFee: CliCommand = {
  summary: "approve a campaign's fee (requireFeeApproval orders)",
  help: approveHelp,
  async run(argv, ctx) {
    const parsed = parseCommand(argv, {
      help: approveHelp,
      options: { by: { type: 'string' }, 'max-fee': { type: 'string' } },
      positionals: ['REF'],
    });
    if (parsed === 'help') return help(ctx, approveHelp);
    const reference = referenceOf(parsed.positionals[0]!, 'campaign');
    const by = parsed.values.by ?? ctx.env.USER ?? ctx.env.LOGNAME ?? userInfo().username;
    const maxFee = parsed.values['max-fee'];
    if (maxFee !== undefined && !Number.isFinite(Number(maxFee)))
      throw new UsageError(`--max-fee must be a number, got '${maxFee}'`, approveHelp);
    const request = validate(
      ApproveFeeRequestSchema,
      {
        approvedBy: required(by, '--by', approveHelp),
        ...(maxFee !== undefined ? { maxMonthlyFee: Number(maxFee) } : {}),
      },
      'approve-fee',
    );
    const client = await ctx.client(parsed.values);
    const outcome = await callWorkflow(campaignWorkflowId(reference), 'approveFee', () =>
      approveCampaignFee(client, reference, request),
    );
    return printOperationOutcome(
      ctx,
      parsed.values.json,
      'fee approved',
      campaignWorkflowId(reference),
      outcome,
    );
  },
};

const cancelHelp = `tcr campaign cancel REF --reason TEXT: stop managing a campaign (final; a created campaign stays at the registry)

Options:
  --reason TEXT        why (required)
  --json               print the operation outcome as JSON
${connectionHelp}`;

export const campaignCancel: CliCommand = {
  summary: "cancel a campaign's workflow",
  help: cancelHelp,
  async run(argv, ctx) {
    const parsed = parseCommand(argv, {
      help: cancelHelp,
      options: { reason: { type: 'string' } },
      positionals: ['REF'],
    });
    if (parsed === 'help') return help(ctx, cancelHelp);
    const reference = referenceOf(parsed.positionals[0]!, 'campaign');
    const { reason } = validate(
      CampaignCancelRequestSchema,
      { reason: required(parsed.values.reason, '--reason', cancelHelp) },
      'cancel',
    );
    const client = await ctx.client(parsed.values);
    const outcome = await callWorkflow(campaignWorkflowId(reference), 'cancel', () =>
      cancelCampaign(client, reference, reason),
    );
    return printOperationOutcome(
      ctx,
      parsed.values.json,
      'cancelled',
      campaignWorkflowId(reference),
      outcome,
    );
  },
};

const acknowledgeHelp = `tcr campaign acknowledge REF --key KEY: clear a needs-action entry that needs no registry call

For a suspension or nudge the operator has handled. KEY is the entry's key as 'tcr status' shows it
in brackets.

Options:
  --key KEY            the needs-action key (required)
  --json               print the operation outcome as JSON
${connectionHelp}`;

export const campaignAcknowledge: CliCommand = {
  summary: 'acknowledge a handled suspension or nudge',
  help: acknowledgeHelp,
  async run(argv, ctx) {
    const parsed = parseCommand(argv, {
      help: acknowledgeHelp,
      options: { key: { type: 'string' } },
      positionals: ['REF'],
    });
    if (parsed === 'help') return help(ctx, acknowledgeHelp);
    const reference = referenceOf(parsed.positionals[0]!, 'campaign');
    const { key } = validate(
      AcknowledgeRequestSchema,
      { key: required(parsed.values.key, '--key', acknowledgeHelp) },
      'acknowledge',
    );
    const client = await ctx.client(parsed.values);
    const outcome = await callWorkflow(campaignWorkflowId(reference), 'acknowledge', () =>
      acknowledgeCampaignAction(client, reference, key),
    );
    return printOperationOutcome(
      ctx,
      parsed.values.json,
      'acknowledged',
      campaignWorkflowId(reference),
      outcome,
    );
  },
};

export const campaignCommands = commandGroup('campaign', 'create and steer campaigns', {
  create: campaignCreate,
  resubmit: campaignResubmit,
  share: campaignShare,
  'approve-fee': campaignApproveFee,
  cancel: campaignCancel,
  acknowledge: campaignAcknowledge,
});
