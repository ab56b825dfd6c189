/**
 * `tcr events tail`: what the ingress has seen, from the two places it leaves traces.
 *
 * - Parked events: events no workflow owned yet are held durably in `parkedEvents` workflows
 *   (`parked/...`); their `parkedEvents` query returns each held delivery (event, receivedAt,
 *   deliveryId). These are listed from Temporal, so they survive ingress restarts.
 * - Counters: with `--ingress URL` (or TCR_INGRESS_URL), the ingress's Prometheus counters from
 *   URL/metrics: received, verified, rejected by reason, routed and parked by target and route,
 *   duplicates, ignored, hand-off failures. They are per ingress process, since its start.
 *
 * Events routed straight to their owner are not listed one by one here: each owner records them in
 * its audit trail (`tcr status ID`, cause `webhook`).
 */
import type { Client } from '@temporalio/client';
import { messageOf } from '../common/error-message.js';
import { withTimeout } from '../common/timeout.js';
import { type ParkedEventsView, parkedEventsQuery } from '../contracts/parked-events.js';
import type { RegistryEventDelivery } from '../contracts/signals.js';
import { connectionHelp, positiveInt } from './args.js';
import { type CliCommand, commandGroup, defineCommand } from './command.js';
import type { CliContext } from './context.js';
import { CliError, UsageError } from './errors.js';
import { oneLine } from './printable.js';
import { table } from './render-status.js';

export interface ParkedDelivery extends RegistryEventDelivery {
  parkedIn: string;
}

/** Registry text (event types, ids) stays on its line, without control characters. */
export function renderParked(workflowId: string, view: ParkedEventsView): string[] {
  return [
    `${workflowId}  ${view.kind} by ${view.keyType} ${view.key}`,
    `  held ${view.held.length}, forwarded ${view.forwarded}${view.ownerWorkflowId ? `, claimed by ${view.ownerWorkflowId}` : ''}, kept until ${view.expiresAt}`,
    ...view.held.map((d) => `  ${deliveryLine(d)}`),
  ].map(oneLine);
}

function deliveryLine(d: RegistryEventDelivery): string {
  const e = d.event;
  const ids = [
    e.brandReferenceId && `brandRef=${e.brandReferenceId}`,
    e.brandId && `brandId=${e.brandId}`,
    e.campaignReferenceId && `campaignRef=${e.campaignReferenceId}`,
    e.campaignId && `campaignId=${e.campaignId}`,
    e.vettingId && `vettingId=${e.vettingId}`,
  ]
    .filter(Boolean)
    .join(' ');
  return oneLine(`${d.receivedAt}  ${e.eventType}  ${ids}  delivery ${d.deliveryId.slice(0, 12)}`);
}

/** Every delivery held by parked-events workflows (running ones, or all with `includeClosed`). */
export async function parkedDeliveries(
  client: Client,
  includeClosed: boolean,
  limit: number,
): Promise<ParkedDelivery[]> {
  const query = `WorkflowType = 'parkedEvents'${includeClosed ? '' : ` AND ExecutionStatus = 'Running'`}`;
  const out: ParkedDelivery[] = [];
  let seen = 0;
  for await (const info of client.workflow.list({ query })) {
    if (++seen > limit) break;
    const view = await withTimeout(
      client.workflow
        .getHandle(info.workflowId)
        .query(parkedEventsQuery)
        .catch(() => undefined),
      5_000,
    );
    for (const d of view?.held ?? []) out.push({ ...d, parkedIn: info.workflowId });
  }
  return out.sort((a, b) => (a.receivedAt < b.receivedAt ? -1 : a.receivedAt > b.receivedAt ? 1 : 0));
}

/** Prometheus text → `name{labels}` → value, for the ingress's counters (histogram buckets left out). */
export function parseIngressCounters(text: string): Record<string, number> {
  const counters: Record<string, number> = {};
  for (const line of text.split('\n')) {
    if (!line.startsWith('tcr_ingress_') || line.includes('_bucket{')) continue;
    const space = line.lastIndexOf(' ');
    const value = Number(line.slice(space + 1));
    if (space > 0 && Number.isFinite(value)) counters[line.slice(0, space)] = value;
  }
  return counters;
}

export async function fetchIngressCounters(ingressUrl: string): Promise<Record<string, number>> {
  const url = `${ingressUrl.replace(/\/+$/, '')}/metrics`;
  let response: Response;
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(5_000) });
  } catch (error) {
    throw new CliError(`cannot reach the ingress at ${url}: ${messageOf(error)}`);
  }
  if (!response.ok) throw new CliError(`the ingress answered ${response.status} for ${url}`);
  return parseIngressCounters(await response.text());
}

const tailHelp = `tcr events tail [--ingress URL] [--follow]: what the webhook ingress has seen

Shows the events parked in Temporal (events no workflow owned yet, held by parked/... workflows,
with their delivery time, type and ids) and, with --ingress, the ingress's counters from its
/metrics endpoint (received, verified, rejected by reason, routed, parked, duplicates, failures).
Events routed to their owner appear in that workflow's audit trail ('tcr status ID').

Options:
  --ingress URL        the ingress internal listener, e.g. http://127.0.0.1:8471 (env TCR_INGRESS_URL)
  --all                include completed parked-events workflows (claimed or expired)
  --limit N            look at most at N parked-events workflows (default 100)
  --follow             keep printing new parked events and counter changes until Ctrl-C
  --interval S         seconds between polls with --follow (default 2)
  --json               print {parked, counters} as JSON (with --follow: one JSON line per poll)
${connectionHelp}`;

async function snapshot(client: Client, opts: { all: boolean; limit: number; ingress?: string }) {
  const parked = await parkedDeliveries(client, opts.all, opts.limit);
  const counters = opts.ingress ? await fetchIngressCounters(opts.ingress) : undefined;
  return { parked, counters };
}

export const eventsTail: CliCommand = defineCommand({
  summary: 'parked events (Temporal) and the ingress counters (/metrics)',
  help: tailHelp,
  options: {
    ingress: { type: 'string' },
    all: { type: 'boolean' },
    limit: { type: 'string' },
    follow: { type: 'boolean' },
    interval: { type: 'string' },
  },
  async run(parsed, ctx) {
    const v = parsed.values;
    const ingress = v.ingress ?? ctx.env.TCR_INGRESS_URL;
    if (ingress !== undefined && !/^https?:\/\/[^\s]+$/.test(ingress))
      throw new UsageError(`--ingress must be an http(s) URL, got '${ingress}'`, tailHelp);
    const limit = positiveInt(v.limit, '--limit', 100, tailHelp);
    const intervalS = positiveInt(v.interval, '--interval', 2, tailHelp);
    const client = await ctx.client(v);
    const opts = { all: Boolean(v.all), limit, ...(ingress ? { ingress } : {}) };

    const first = await snapshot(client, opts);
    if (!v.follow) {
      if (v.json) ctx.json({ parked: first.parked, counters: first.counters ?? null });
      else printSnapshot(ctx, first.parked, first.counters);
      return 0;
    }
    const printed = new Set<string>();
    let counters: Record<string, number> | undefined;
    const emit = (snap: { parked: ParkedDelivery[]; counters?: Record<string, number> | undefined }) => {
      const fresh = snap.parked.filter((d) => !printed.has(d.deliveryId));
      for (const d of fresh) printed.add(d.deliveryId);
      const changed = snap.counters ? counterChanges(counters, snap.counters) : {};
      counters = snap.counters ?? counters;
      if (v.json) {
        if (fresh.length > 0 || Object.keys(changed).length > 0)
          ctx.io.out(JSON.stringify({ at: new Date().toISOString(), parked: fresh, counters: changed }));
        return;
      }
      for (const d of fresh) ctx.io.out(oneLine(`parked  ${deliveryLine(d)}  in ${d.parkedIn}`));
      for (const [name, value] of Object.entries(changed)) ctx.io.out(oneLine(`counter ${name} = ${value}`));
    };
    emit(first);
    const stop = stopSignal(ctx);
    while (!stop.aborted) {
      await sleep(intervalS * 1000, stop);
      if (stop.aborted) break;
      try {
        emit(await snapshot(client, opts));
      } catch (error) {
        ctx.io.err(`events tail: ${messageOf(error)} (retrying)`);
      }
    }
    return 0;
  },
});

function counterChanges(before: Record<string, number> | undefined, after: Record<string, number>) {
  const changed: Record<string, number> = {};
  for (const [name, value] of Object.entries(after)) if (before?.[name] !== value) changed[name] = value;
  return changed;
}

function printSnapshot(
  ctx: CliContext,
  parked: ParkedDelivery[],
  counters: Record<string, number> | undefined,
) {
  if (parked.length === 0) ctx.io.out('Parked events: none');
  else
    ctx.io.out(
      [
        `Parked events (${parked.length}):`,
        ...table(
          ['RECEIVED', 'EVENT', 'IDS', 'PARKED IN'],
          parked.map((d) => [
            d.receivedAt,
            d.event.eventType,
            deliveryLine(d).split('  ')[2] ?? '',
            d.parkedIn,
          ]),
        ),
      ].join('\n'),
    );
  if (counters) {
    ctx.io.out('Ingress counters (since the ingress started):');
    for (const [name, value] of Object.entries(counters)) ctx.io.out(oneLine(`  ${name} ${value}`));
  } else ctx.io.out('Ingress counters: give --ingress URL (or TCR_INGRESS_URL) to include them');
}

/** Aborts on the context's signal, or on SIGINT / SIGTERM when none was given. */
export function stopSignal(ctx: CliContext): AbortSignal {
  if (ctx.signal) return ctx.signal;
  const controller = new AbortController();
  const abort = () => controller.abort();
  process.once('SIGINT', abort);
  process.once('SIGTERM', abort);
  return controller.signal;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

export const eventsCommands = commandGroup('events', 'what the webhook ingress has seen', {
  tail: eventsTail,
});
