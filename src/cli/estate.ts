/**
 * `tcr import` and `tcr sweep`: the estate (src/contracts/estate.ts). Import adopts what an account's
 * registry lists and no workflow owns, and follows its progress; sweep shows an account's sweep
 * Schedule and latest sweep, runs one now, pauses or resumes the Schedule.
 */
import { abortableSleep } from '../common/abortable-sleep.js';
import {
  ESTATE_PAGING_LIMITS,
  type EstateKind,
  importLine,
  importWorkflowId,
  sweepLine,
  validReadShare,
  validRecordsPerPage,
} from '../contracts/estate.js';
import { importStatus, startImport } from '../orders/estate-client.js';
import { describeSweep, sweepNow, sweepSchedule } from '../workers/sweep-schedule.js';
import { accountOf, connectionHelp, positiveInt } from './args.js';
import { type CliCommand, defineCommand } from './command.js';
import { NotFoundError, UsageError } from './errors.js';

function readShareOf(value: string | undefined, help: string): number | undefined {
  if (value === undefined) return undefined;
  const share = Number(value);
  if (!validReadShare(share))
    throw new UsageError(
      `--read-share must be above 0 and at most ${ESTATE_PAGING_LIMITS.maxReadShare}, got '${value}'`,
      help,
    );
  return share;
}

const importHelp = `tcr import --account A [--dry-run] [--brands | --campaigns]: adopt what the registry already has

Pages through the account's registry lists (GET /brand, then GET /campaign) and starts one workflow
for each brand or campaign no workflow owns, keyed by its referenceId (its registry id when it has
none). Each enters the phase the registry's record puts it in. Nothing is written at the registry and
no fee is charged; events the ingress parked for an entity go to its new workflow.

Runs as the workflow import/{account}: it survives this command and a worker restart, and running the
command again attaches to it (or, once it has finished, imports what is still unowned: nothing is
started twice). Progress prints every few seconds until it finishes; Ctrl-C stops following, not the
import. Pages are read at the lowest priority within a share of the account's read budget.

Options:
  --account A          the CSP account (as the workers know it)
  --dry-run            list what would be adopted; start nothing
  --brands             brands only
  --campaigns          campaigns only (import brands first: a campaign's workflow names its brand's)
  --records-per-page N records per list page (default 500; the registry's maximum applies)
  --read-share X       share of the account's read budget (default 0.1, at most 0.5)
  --no-wait            start (or find) the import and return
  --json               print the final status as JSON
${connectionHelp}`;

export const importCommand: CliCommand = defineCommand({
  summary: 'adopt brands and campaigns the registry has and no workflow owns',
  help: importHelp,
  options: {
    account: { type: 'string' },
    'dry-run': { type: 'boolean' },
    brands: { type: 'boolean' },
    campaigns: { type: 'boolean' },
    'records-per-page': { type: 'string' },
    'read-share': { type: 'string' },
    'no-wait': { type: 'boolean' },
  },
  async run(parsed, ctx) {
    const v = parsed.values;
    const account = accountOf(v.account, importHelp);
    if (v.brands && v.campaigns) throw new UsageError('give --brands or --campaigns, not both', importHelp);
    const kinds: EstateKind[] | undefined = v.brands ? ['brand'] : v.campaigns ? ['campaign'] : undefined;
    const recordsPerPage =
      v['records-per-page'] !== undefined
        ? positiveInt(v['records-per-page'], '--records-per-page', 500, importHelp)
        : undefined;
    if (recordsPerPage !== undefined && !validRecordsPerPage(recordsPerPage))
      throw new UsageError(
        `--records-per-page must be at most ${ESTATE_PAGING_LIMITS.maxRecordsPerPage}`,
        importHelp,
      );
    const readShare = readShareOf(v['read-share'], importHelp);
    const client = await ctx.client(v);
    const { handle, started } = await startImport(client, {
      account,
      ...(kinds ? { kinds } : {}),
      ...(v['dry-run'] ? { dryRun: true } : {}),
      ...(recordsPerPage !== undefined || readShare !== undefined
        ? {
            paging: {
              ...(recordsPerPage !== undefined ? { recordsPerPage } : {}),
              ...(readShare !== undefined ? { readShare } : {}),
            },
          }
        : {}),
    });
    ctx.io.err(
      started
        ? `started ${importWorkflowId(account)}${v['dry-run'] ? ' (dry run)' : ''}`
        : `${importWorkflowId(account)} is running already: following it (its own options apply)`,
    );
    if (v['no-wait']) return 0;
    let last = '';
    for (;;) {
      const status = await importStatus(client, account).catch(() => undefined);
      if (status) {
        const line = importLine(status);
        if (line !== last && !v.json) ctx.io.err(line);
        last = line;
      }
      if (status?.state === 'done') break;
      try {
        await abortableSleep(2_000, ctx.signal);
      } catch {
        ctx.io.err(
          `stopped following; the import goes on (tcr import --account ${account} follows it again)`,
        );
        return 0;
      }
    }
    const final = await handle.result();
    if (v.json) ctx.json(final);
    else if (final.dryRun) {
      ctx.io.out(importLine(final));
      for (const e of final.sample)
        ctx.io.out(
          `  would adopt ${e.kind} ${e.registryId}${e.referenceId ? ` (referenceId ${e.referenceId})` : ''}`,
        );
      const more = final.counts.brand.wouldAdopt + final.counts.campaign.wouldAdopt - final.sample.length;
      if (more > 0) ctx.io.out(`  and ${more} more`);
    } else ctx.io.out(importLine(final));
    return 0;
  },
});

const sweepHelp = `tcr sweep --account A [--now | --pause | --resume]: the account's estate sweep

The sweep pages through the account's registry lists on a Schedule (sweep/{account}; hourly unless
the workers' TCR_SWEEP_EVERY says otherwise) and wakes only the workflows whose registry state
differs from what they last saw (a webhook was lost). Entities no workflow owns are counted and the
first are listed: tcr import adopts them. Without an action, prints the Schedule and the latest sweep.

Options:
  --account A   the CSP account
  --now         run a sweep now (skipped if one is running)
  --pause       pause the Schedule (a running sweep finishes)
  --resume      resume it
  --json        print the Schedule and the latest sweep as JSON
${connectionHelp}`;

export const sweepCommand: CliCommand = defineCommand({
  summary: "show or run an account's estate sweep (registry lists vs workflows)",
  help: sweepHelp,
  options: {
    account: { type: 'string' },
    now: { type: 'boolean' },
    pause: { type: 'boolean' },
    resume: { type: 'boolean' },
  },
  async run(parsed, ctx) {
    const v = parsed.values;
    const account = accountOf(v.account, sweepHelp);
    if ([v.now, v.pause, v.resume].filter(Boolean).length > 1)
      throw new UsageError('give one of --now, --pause, --resume', sweepHelp);
    const client = await ctx.client(v);
    const overview = await describeSweep(client, account);
    if (!overview.schedule)
      throw new NotFoundError(
        `account ${account} has no sweep Schedule sweep/${account}: the workers create it as they start (TCR_SWEEP_EVERY)`,
      );
    if (v.now) {
      await sweepNow(client, account);
      ctx.io.err(`sweep of ${account} started (skipped if one was running)`);
    } else if (v.pause) {
      await sweepSchedule(client, account).pause('paused with tcr sweep --pause');
      ctx.io.err(`sweep Schedule of ${account} paused`);
    } else if (v.resume) {
      await sweepSchedule(client, account).unpause('resumed with tcr sweep --resume');
      ctx.io.err(`sweep Schedule of ${account} resumed`);
    }
    if (v.json) {
      ctx.json(overview.schedule && (v.pause || v.resume) ? await describeSweep(client, account) : overview);
      return 0;
    }
    const s = overview.schedule;
    ctx.io.out(`Schedule sweep/${account}: every ${s.every.join(', ')}${s.paused ? ' (paused)' : ''}`);
    if (s.nextRuns.length > 0) ctx.io.out(`  next: ${s.nextRuns.join(', ')}`);
    if (overview.sweep) ctx.io.out(`latest sweep ${overview.sweepWorkflowId}: ${sweepLine(overview.sweep)}`);
    else ctx.io.out('no sweep has run yet');
    for (const e of overview.sweep?.unownedSample ?? [])
      ctx.io.out(
        `  unowned ${e.kind} ${e.registryId}${e.referenceId ? ` (referenceId ${e.referenceId})` : ''}`,
      );
    return 0;
  },
});
