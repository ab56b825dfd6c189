/** `tcr status ID`: a workflow's `status` query, rendered for people or as JSON. */

import { withTimeout } from '../common/timeout.js';
import { clientAccounts, migratedId } from '../config/entity-lookup.js';
import { type BrandStatus, brandStatusQuery } from '../contracts/brand.js';
import { type CampaignStatus, campaignStatusQuery } from '../contracts/campaign.js';
import { type EntityKind, entityWorkflowId, legacyEntityWorkflowId } from '../contracts/ids.js';
import { parkedEventsQuery } from '../contracts/parked-events.js';
import { connectionHelp, positiveInt } from './args.js';
import { type CliCommand, defineCommand } from './command.js';
import { CliError, NotFoundError } from './errors.js';
import { renderParked } from './events.js';
import { renderStatus } from './render-status.js';
import { callWorkflow, workflowExists } from './temporal-calls.js';

/** How long a status query may take (a query needs a worker polling the workflow task queue). */
export const QUERY_TIMEOUT_MS = 10_000;

const statusHelp = `tcr status ID: show a brand's or campaign's status (its 'status' query)

ID is a workflow id (brand/ACCOUNT/REF, campaign/ACCOUNT/REF, parked/...), brand/REF, campaign/REF or
a bare reference of the account (--account, TCR_ACCOUNT, or the local stack's), tried as a brand, then as a campaign; a
workflow an earlier release opened under brand/REF or campaign/REF is found for its own account. Shows the phase, registry ids, identity, vets, the MNO table, what the workflow waits
for and until when, the actions it needs and why, and the last audit entries.

Options:
  --audit N            audit entries to show (default 10)
  --json               print the status query's result as JSON
${connectionHelp}`;

/** What an ID argument names: a workflow id as given, or a reference (of one kind when `brand/REF`). */
function targetOf(id: string): { id: string } | { kinds: EntityKind[]; reference: string } {
  if (id.startsWith('parked/') || /^(brand|campaign)\/[^/]+\/./.test(id)) return { id };
  const named = /^(brand|campaign)\/([^/]+)$/.exec(id);
  if (named) return { kinds: [named[1] as EntityKind], reference: named[2]! };
  return { kinds: ['brand', 'campaign'], reference: id };
}

/**
 * The workflow ids an ID argument may name, in the order they are tried: the id itself, or a
 * reference's account-scoped ids (`account`), else the legacy `brand/REF`, `campaign/REF`.
 */
export function candidateWorkflowIds(id: string, account?: string): string[] {
  const target = targetOf(id);
  if ('id' in target) return [target.id];
  return target.kinds.map((k) =>
    account === undefined
      ? legacyEntityWorkflowId(k, target.reference)
      : entityWorkflowId(k, account, target.reference),
  );
}

export const statusCommand: CliCommand = defineCommand({
  summary: "show a brand's or campaign's status (readable, or --json)",
  help: statusHelp,
  options: { audit: { type: 'string' } },
  positionals: ['ID'],
  async run(parsed, ctx) {
    const id = parsed.positionals[0]!;
    const auditEntries = positiveInt(parsed.values.audit, '--audit', 10, statusHelp);
    const client = await ctx.client(parsed.values);
    const accounts = clientAccounts.get(client) ?? [];
    const account = accounts.length === 1 ? accounts[0] : undefined;
    let workflowId: string | undefined;
    for (const candidate of candidateWorkflowIds(id, account)) {
      if (await workflowExists(client, candidate)) {
        workflowId = candidate;
        break;
      }
    }
    // A workflow an earlier release opened under the legacy id, when it is this account's.
    const target = targetOf(id);
    if (!workflowId && account !== undefined && 'kinds' in target)
      for (const kind of target.kinds) {
        workflowId = await migratedId(client, kind, account, target.reference);
        if (workflowId) break;
      }
    if (!workflowId) throw new NotFoundError(`${id}: no brand or campaign workflow by that id or reference`);
    const handle = client.workflow.getHandle(workflowId);
    if (workflowId.startsWith('parked/')) {
      const view = await callWorkflow(workflowId, 'parkedEvents query', () =>
        withTimeout(handle.query(parkedEventsQuery), QUERY_TIMEOUT_MS),
      );
      if (!view)
        throw new CliError(`${workflowId}: no worker answered the query within ${QUERY_TIMEOUT_MS} ms`);
      if (parsed.values.json) ctx.json(view);
      else ctx.io.out(renderParked(workflowId, view).join('\n'));
      return 0;
    }
    const status: BrandStatus | CampaignStatus | undefined = await callWorkflow(
      workflowId,
      'status query',
      () =>
        withTimeout<BrandStatus | CampaignStatus>(
          workflowId.startsWith('brand/')
            ? handle.query(brandStatusQuery)
            : handle.query(campaignStatusQuery),
          QUERY_TIMEOUT_MS,
        ),
    );
    if (!status)
      throw new CliError(
        `${workflowId}: no worker answered the status query within ${QUERY_TIMEOUT_MS} ms (is 'tcr worker' running?)`,
      );
    if (parsed.values.json) ctx.json(status);
    else ctx.io.out(renderStatus(status, auditEntries));
    return 0;
  },
});
