/** `tcr campaign create|resubmit|update|share|approve-fee|confirm-dca|cancel|acknowledge`. */
import type { KeyObject } from 'node:crypto';
import { userInfo } from 'node:os';
import type { z } from 'zod';
import { readApproverKeyFile } from '../config/fee-approvers.js';
import { campaignStatusQuery } from '../contracts/campaign.js';
import { campaignWorkflowId } from '../contracts/ids.js';
import {
  acknowledgeCampaignAction,
  approveCampaignFee,
  CampaignOrderValidationError,
  campaignHandle,
  cancelCampaign,
  confirmCampaignDca,
  parseCampaignOrder,
  resubmitCampaign,
  shareCampaignWith,
  startCampaignOrder,
  updateCampaign,
} from '../orders/campaign-orders.js';
import {
  StrictApproveFeeRequestSchema as ApproveFeeRequestSchema,
  StrictCampaignCancelRequestSchema as CampaignCancelRequestSchema,
  StrictConfirmDcaCompleteRequestSchema as ConfirmDcaCompleteRequestSchema,
  StrictResubmitRequestSchema as ResubmitRequestSchema,
  StrictShareWithRequestSchema as ShareWithRequestSchema,
  StrictUpdateCampaignRequestSchema as UpdateCampaignRequestSchema,
} from '../orders/request-schemas.js';
import { CampaignUpdateSchema } from '../registry/schemas.js';
import { acknowledgeCommand } from './acknowledge.js';
import { actionCommand } from './action-command.js';
import { connectionHelp, required } from './args.js';
import { type CliCommand, commandGroup } from './command.js';
import { CliError, ExitCode, InputValidationError, UsageError } from './errors.js';
import { fieldsFromFlags, readJsonFile } from './input.js';
import { startOrderCommand } from './start-order.js';

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

export const campaignResubmit: CliCommand = actionCommand({
  kind: 'campaign',
  summary: 'change a refused or declined campaign and resubmit it',
  help: resubmitHelp,
  options: { set: { type: 'string', multiple: true }, 'set-json': { type: 'string', multiple: true } },
  positionals: ['FILE?'],
  schema: ResubmitRequestSchema,
  source: (parsed) => parsed.positionals[1] ?? 'resubmit',
  input({ positionals, values }) {
    const file = positionals[1];
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
    Object.assign(changes, fieldsFromFlags(values.set, values['set-json'], resubmitHelp));
    if (Object.keys(changes).length === 0)
      throw new UsageError('give a FILE or at least one --set / --set-json', resubmitHelp);
    return { changes };
  },
  update: 'resubmit',
  send: resubmitCampaign,
  done: 'resubmitted',
});

const updateHelp = `tcr campaign update REF --set field=value... [--set-json field=JSON]... [--answers KEY]: change a created campaign at the registry

Sends the changes to the registry (PUT /campaign/{id}) in running, awaiting-dca, deactivated, sharing,
share-declined and winding-down; the record the registry answers is applied. --set values are read by
the field's type (autoRenewal=false is a boolean, mnoIDs=1,2 a list); --set-json takes any JSON.
Nothing is shared again (after a declined share, use resubmit). --set autoRenewal=false stops renewal.

Options:
  --set field=value        a campaign field (repeatable)
  --set-json field=JSON    a field with a JSON value (repeatable)
  --answers KEY            the needs-action entry (nudge-..., suspended-...) the change answers
  --json                   print the operation outcome as JSON
${connectionHelp}`;

/**
 * `--set field=value` read by the field's type in the campaign field schema (CampaignUpdateSchema):
 * the value as given, else as a boolean, a comma-separated list, or a list of numbers, whichever the
 * field's schema takes. Errors name the field.
 */
function typedChanges(sets: string[] | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const shape = CampaignUpdateSchema.shape as Record<string, z.ZodType | undefined>;
  for (const entry of sets ?? []) {
    const eq = entry.indexOf('=');
    if (eq <= 0) throw new UsageError(`--set expects field=value, got '${entry}'`, updateHelp);
    const field = entry.slice(0, eq);
    const raw = entry.slice(eq + 1);
    const schema = Object.hasOwn(shape, field) ? shape[field] : undefined;
    const path = `changes.${field}`;
    if (!schema) throw new InputValidationError('update', [{ path, message: 'not a campaign field' }]);
    const list = raw === '' ? [] : raw.split(',').map((x) => x.trim());
    const candidates: unknown[] = [
      raw,
      ...(raw === 'true' || raw === 'false' ? [raw === 'true'] : []),
      list,
      ...(list.every((x) => /^-?\d+(\.\d+)?$/.test(x)) ? [list.map(Number)] : []),
    ];
    const taken = candidates.find((c) => c !== undefined && schema.safeParse(c).success);
    if (taken === undefined) {
      const issue = schema.safeParse(raw).error?.issues[0];
      throw new InputValidationError('update', [
        { path, message: `'${raw}' is not a valid value${issue ? `: ${issue.message}` : ''}` },
      ]);
    }
    out[field] = taken;
  }
  return out;
}

export const campaignUpdate: CliCommand = actionCommand({
  kind: 'campaign',
  summary: 'change a created campaign at the registry (autoRenewal included)',
  help: updateHelp,
  options: {
    set: { type: 'string', multiple: true },
    'set-json': { type: 'string', multiple: true },
    answers: { type: 'string' },
  },
  schema: UpdateCampaignRequestSchema,
  source: 'update',
  input({ values }) {
    const changes = {
      ...typedChanges(values.set),
      ...fieldsFromFlags(undefined, values['set-json'], updateHelp),
    };
    if (Object.keys(changes).length === 0)
      throw new UsageError('give at least one --set / --set-json', updateHelp);
    return { changes, ...(values.answers ? { answers: values.answers } : {}) };
  },
  update: 'update',
  send: updateCampaign,
  done: 'updated',
});

const shareHelp = `tcr campaign share REF --partner CNP: share the campaign with another upstream partner (after a decline)

Options:
  --partner CNP        the upstream connectivity partner id (GET /enum/cnp), required
  --json               print the operation outcome as JSON
${connectionHelp}`;

export const campaignShare: CliCommand = actionCommand({
  kind: 'campaign',
  summary: 'share a campaign with another upstream partner',
  help: shareHelp,
  options: { partner: { type: 'string' } },
  schema: ShareWithRequestSchema,
  source: 'share',
  input: ({ values }) => ({ upstreamCnpId: required(values.partner, '--partner', shareHelp) }),
  update: 'shareWith',
  send: (client, reference, { upstreamCnpId }, opts) =>
    shareCampaignWith(client, reference, upstreamCnpId, opts),
  done: 'shared',
});

const approveHelp = `tcr campaign approve-fee REF [--by NAME] [--max-fee N] [--signing-key FILE]: approve the billed creation of a campaign

For orders with requireFeeApproval: the workflow waits in awaiting-fee-approval until this.
With --signing-key the approval is signed by NAME's key (tcr approvers keygen) for this campaign, its
maximum fee and the time (valid 15 minutes, once); the workers check it against their approvers file
(TCR_FEE_APPROVERS_FILE). Workers with an approvers file refuse an unsigned approval; without one
an approval is self-declared (the status says unverified).

Options:
  --by NAME            who approves (default: $USER, else the login name)
  --max-fee N          refuse when the expected monthly fee is above N
  --signing-key FILE   the approver's private key file (mode 0600): sign the approval
  --json               print the operation outcome as JSON
${connectionHelp}`;

/** The approver's key each approve-fee invocation read (by its parsed command line). */
const signingKeys = new WeakMap<object, KeyObject>();

export const campaignApproveFee: CliCommand = actionCommand({
  kind: 'campaign',
  summary: "approve a campaign's fee (requireFeeApproval orders)",
  help: approveHelp,
  options: { by: { type: 'string' }, 'max-fee': { type: 'string' }, 'signing-key': { type: 'string' } },
  schema: ApproveFeeRequestSchema,
  source: 'approve-fee',
  input(parsed, ctx) {
    const { values } = parsed;
    const by = values.by ?? ctx.env.USER ?? ctx.env.LOGNAME ?? userInfo().username;
    const maxFee = values['max-fee'];
    if (maxFee !== undefined && !Number.isFinite(Number(maxFee)))
      throw new UsageError(`--max-fee must be a number, got '${maxFee}'`, approveHelp);
    const keyFile = values['signing-key'];
    if (keyFile !== undefined) {
      try {
        signingKeys.set(parsed, readApproverKeyFile(keyFile, '--signing-key'));
      } catch (error) {
        throw new CliError((error as Error).message, ExitCode.validation);
      }
    }
    return {
      approvedBy: required(by, '--by', approveHelp),
      ...(maxFee !== undefined ? { maxMonthlyFee: Number(maxFee) } : {}),
    };
  },
  update: 'approveFee',
  send: (client, reference, request, opts, parsed) => {
    const signingKey = signingKeys.get(parsed);
    return approveCampaignFee(client, reference, request, { ...opts, ...(signingKey ? { signingKey } : {}) });
  },
  done: 'fee approved',
});

const confirmDcaHelp = `tcr campaign confirm-dca REF [--by NAME] [--note TEXT]: confirm that the DCA accepted the campaign

For a campaign in awaiting-dca (its share ACCEPTED by a CSP partner) whose CAMPAIGN_DCA_COMPLETE
never came (needs-action dca-unconfirmed): check the campaign in the registry portal first. If it
shows as accepted by the DCA, confirm it here: the workflow reads the share (still ACCEPTED) and the
campaign runs. A second confirmation changes nothing.

Options:
  --by NAME            who confirms (default: $USER, else the login name)
  --note TEXT          what was seen (e.g. "portal: accepted by SINCH on 2026-11-27")
  --json               print the operation outcome as JSON
${connectionHelp}`;

export const campaignConfirmDca: CliCommand = actionCommand({
  kind: 'campaign',
  summary: "confirm a campaign's DCA acceptance seen in the registry portal",
  help: confirmDcaHelp,
  options: { by: { type: 'string' }, note: { type: 'string' } },
  schema: ConfirmDcaCompleteRequestSchema,
  source: 'confirm-dca',
  input({ values }, ctx) {
    const by = values.by ?? ctx.env.USER ?? ctx.env.LOGNAME ?? userInfo().username;
    return {
      confirmedBy: required(by, '--by', confirmDcaHelp),
      ...(values.note !== undefined ? { note: values.note } : {}),
    };
  },
  update: 'confirmDcaComplete',
  send: confirmCampaignDca,
  done: 'DCA acceptance confirmed',
});

const cancelHelp = `tcr campaign cancel REF --reason TEXT: cancel a campaign (before creation: final; a created one: renewal off at the registry, watched until it expires)

Options:
  --reason TEXT        why (required)
  --json               print the operation outcome as JSON
${connectionHelp}`;

export const campaignCancel: CliCommand = actionCommand({
  kind: 'campaign',
  summary: "cancel a campaign's workflow",
  help: cancelHelp,
  options: { reason: { type: 'string' } },
  schema: CampaignCancelRequestSchema,
  source: 'cancel',
  input: ({ values }) => ({ reason: required(values.reason, '--reason', cancelHelp) }),
  update: 'cancel',
  send: (client, reference, { reason }, opts) => cancelCampaign(client, reference, reason, opts),
  done: 'cancelled',
});

export const campaignAcknowledge: CliCommand = acknowledgeCommand(
  'campaign',
  'acknowledge a handled suspension or nudge',
  'For a suspension or nudge the operator has handled, or an overdue decision (its deadline moves a\nfull period).',
  acknowledgeCampaignAction,
);

export const campaignCommands = commandGroup('campaign', 'create and steer campaigns', {
  create: campaignCreate,
  resubmit: campaignResubmit,
  update: campaignUpdate,
  share: campaignShare,
  'approve-fee': campaignApproveFee,
  'confirm-dca': campaignConfirmDca,
  cancel: campaignCancel,
  acknowledge: campaignAcknowledge,
});
