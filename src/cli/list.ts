/** `tcr list`: brand and campaign workflows found by their search attributes (a visibility query). */
import type { Client, WorkflowExecutionInfo } from '@temporalio/client';
import { withTimeout } from '../common/timeout.js';
import type { AuditTrail } from '../contracts/audit.js';
import { BRAND_WORKFLOW_TYPE } from '../contracts/brand.js';
import { CAMPAIGN_WORKFLOW_TYPE } from '../contracts/campaign.js';
import {
  AccountKey,
  BrandIdKey,
  CampaignIdKey,
  NeedsActionKey,
  PhaseKey,
} from '../contracts/search-attributes.js';
import { accountOf, connectionHelp, positiveInt } from './args.js';
import { type CliCommand, defineCommand } from './command.js';
import { UsageError } from './errors.js';
import { table } from './render-status.js';

export interface ListFilter {
  needsAction?: boolean;
  phase?: string;
  kind?: 'brand' | 'campaign';
  account?: string;
  running?: boolean;
}

export const workflowTypeOf = { brand: BRAND_WORKFLOW_TYPE, campaign: CAMPAIGN_WORKFLOW_TYPE } as const;

/** The visibility query for a filter. Values are checked before they are quoted, so no quoting escapes. */
export function buildListQuery(filter: ListFilter): string {
  const clauses = [
    filter.kind
      ? `WorkflowType = '${workflowTypeOf[filter.kind]}'`
      : `WorkflowType IN ('${workflowTypeOf.brand}', '${workflowTypeOf.campaign}')`,
  ];
  if (filter.needsAction) clauses.push(`${NeedsActionKey.name} = true`);
  if (filter.phase !== undefined) {
    if (!/^[A-Za-z0-9._-]{1,64}$/.test(filter.phase))
      throw new UsageError(`--phase: not a phase name: '${filter.phase}'`);
    clauses.push(`${PhaseKey.name} = '${filter.phase}'`);
  }
  if (filter.account !== undefined) clauses.push(`${AccountKey.name} = '${accountOf(filter.account)}'`);
  if (filter.running) clauses.push(`ExecutionStatus = 'Running'`);
  return clauses.join(' AND ');
}

export interface ListedWorkflow {
  workflowId: string;
  kind: 'brand' | 'campaign' | 'other';
  phase: string | null;
  needsAction: boolean;
  registryId: string | null;
  account: string | null;
  executionStatus: string;
  startTime: string;
  closeTime: string | null;
  /** Time of the latest audit entry (status query), else close or start time. */
  lastUpdate: string;
}

function listed(info: WorkflowExecutionInfo): ListedWorkflow {
  const sa = info.typedSearchAttributes;
  const kind =
    info.type === workflowTypeOf.brand
      ? 'brand'
      : info.type === workflowTypeOf.campaign
        ? 'campaign'
        : 'other';
  return {
    workflowId: info.workflowId,
    kind,
    phase: sa.get(PhaseKey) ?? null,
    needsAction: sa.get(NeedsActionKey) ?? false,
    registryId: (kind === 'campaign' ? sa.get(CampaignIdKey) : sa.get(BrandIdKey)) ?? null,
    account: sa.get(AccountKey) ?? null,
    executionStatus: info.status.name,
    startTime: info.startTime.toISOString(),
    closeTime: info.closeTime?.toISOString() ?? null,
    lastUpdate: (info.closeTime ?? info.startTime).toISOString(),
  };
}

/** Runs the visibility query; with `statusQueries`, asks each running workflow for its latest audit time. */
export async function listWorkflows(
  client: Client,
  filter: ListFilter,
  limit: number,
  statusQueries = true,
): Promise<ListedWorkflow[]> {
  const rows: ListedWorkflow[] = [];
  for await (const info of client.workflow.list({
    query: buildListQuery(filter),
    pageSize: Math.min(limit, 100),
  })) {
    rows.push(listed(info));
    if (rows.length >= limit) break;
  }
  if (statusQueries) {
    const running = rows.filter((r) => r.executionStatus === 'RUNNING');
    const concurrency = 4;
    for (let i = 0; i < running.length; i += concurrency) {
      await Promise.all(
        running.slice(i, i + concurrency).map(async (row) => {
          const status = await withTimeout(
            client.workflow
              .getHandle(row.workflowId)
              .query<{ audit?: AuditTrail }>('status')
              .catch(() => undefined),
            2_000,
          );
          const last = status?.audit?.entries.at(-1)?.at;
          if (last) row.lastUpdate = last;
        }),
      );
    }
  }
  return rows;
}

const listHelp = `tcr list [--needs-action] [--phase P] [--kind brand|campaign] [--account A] [--limit N]: find workflows

One line per brand or campaign workflow (newest first): workflow id, phase, whether it needs an
operator, its registry id, its execution state and its last update. Uses the search attributes
TcrPhase, TcrNeedsAction, TcrAccount (the same query works in the Web UI: --show-query prints it).

Options:
  --needs-action       only workflows waiting for an operator (TcrNeedsAction = true)
  --phase P            only this phase (e.g. needs-correction, share-declined, running)
  --kind K             brand or campaign
  --account A          only this CSP account
  --running            only running workflows (not completed, cancelled or failed)
  --limit N            at most N workflows (default 50)
  --no-status          do not ask running workflows for their last audit time (faster)
  --show-query         print the visibility query to stderr
  --json               print an array of objects
${connectionHelp}`;

export const listCommand: CliCommand = defineCommand({
  summary: 'list brands and campaigns by phase, needs-action, account (search attributes)',
  help: listHelp,
  options: {
    'needs-action': { type: 'boolean' },
    phase: { type: 'string' },
    kind: { type: 'string' },
    account: { type: 'string' },
    running: { type: 'boolean' },
    limit: { type: 'string' },
    'no-status': { type: 'boolean' },
    'show-query': { type: 'boolean' },
  },
  async run(parsed, ctx) {
    const v = parsed.values;
    if (v.kind !== undefined && v.kind !== 'brand' && v.kind !== 'campaign')
      throw new UsageError(`--kind must be brand or campaign, got '${v.kind}'`, listHelp);
    const filter: ListFilter = {
      ...(v['needs-action'] ? { needsAction: true } : {}),
      ...(v.phase !== undefined ? { phase: v.phase } : {}),
      ...(v.kind !== undefined ? { kind: v.kind as 'brand' | 'campaign' } : {}),
      ...(v.account !== undefined ? { account: v.account } : {}),
      ...(v.running ? { running: true } : {}),
    };
    const limit = positiveInt(v.limit, '--limit', 50, listHelp);
    const query = buildListQuery(filter);
    if (v['show-query']) ctx.io.err(query);
    const client = await ctx.client(v);
    const rows = await listWorkflows(client, filter, limit, !v['no-status']);
    if (v.json) {
      ctx.json(rows);
      return 0;
    }
    if (rows.length === 0) {
      ctx.io.out('no workflows match');
      return 0;
    }
    ctx.io.out(
      table(
        ['WORKFLOW', 'PHASE', 'ACTION', 'REGISTRY ID', 'STATE', 'LAST UPDATE'],
        rows.map((r) => [
          r.workflowId,
          r.phase ?? '-',
          r.needsAction ? 'NEEDED' : '-',
          r.registryId ?? '-',
          r.executionStatus,
          r.lastUpdate,
        ]),
        '',
      ).join('\n'),
    );
    return 0;
  },
});
