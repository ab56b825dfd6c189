/**
 * The figures docs/benchmarks.md (and README.md's summary) report come from results files in the tree: each claim below reads
 * a results file, formats the figure as the page prints it, and expects the page to contain it. A
 * figure changed on the page without a run, or a results file replaced by another run, fails here.
 * Figures whose run left no file are listed in the page's "known gaps" section.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { freshness } from '../../bench/support/freshness.js';
import { datedResultsPath } from '../../bench/support/results.js';

const root = join(import.meta.dirname, '..', '..');
const page = readFileSync(join(root, 'docs/benchmarks.md'), 'utf8');
// biome-ignore lint/suspicious/noExplicitAny: results files are plain JSON read by path
const results = (path: string): any => JSON.parse(readFileSync(join(root, path), 'utf8'));

const s1 = (ms: number) => (ms / 1000).toFixed(1);
const pct = (share: number) => `${(share * 100).toFixed(1)} %`;
const thousands = (n: number) => Math.round(n).toLocaleString('en-US');
const tenths = (n: number) =>
  n.toLocaleString('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 });

/** A row of section 5's table: deliveries and p50 / p99 per phase (below 1 ms with two decimals). */
function slowClientRow(run: number, events: string, r: ReturnType<typeof results>): string {
  const ms = (v: number) => (v < 1 ? v.toFixed(2) : v.toFixed(1));
  const [baseline, attacked] = r.phases as {
    deliveries: number;
    refused: number;
    p50ms: number;
    p99ms: number;
  }[];
  const phase = (p: typeof baseline) => `${thousands(p!.deliveries)}, ${ms(p!.p50ms)} / ${ms(p!.p99ms)}`;
  return `| ${run} | ${events} | ${phase(baseline)} | ${phase(attacked)} | ${baseline!.refused + attacked!.refused} |`;
}

/** The figures of a row of section 1's backlog table (bench/throughput/backlog.bench-run.ts). */
function backlogRow(r: ReturnType<typeof results>): string {
  const o = r.operatorToRegistryCall;
  const w = r.webhookToRegistryRead;
  return `${s1(o.p50Ms)} s / **${s1(o.p99Ms)} s** / ${s1(o.maxMs)} s (${o.count}) | ${w.p50Ms} ms / **${w.p99Ms} ms** / ${w.maxMs} ms (${w.count}) | ${thousands(r.backlogRegistered)} in ${r.backlogSeconds.toFixed(1)} s | ${r.rateLimited} |`;
}

/** A row of section 3's 2,000-brand memory table: RSS empty → holding, and both threads' heaps. */
function scale2000(r: ReturnType<typeof results>): string {
  const h = r.workerHolding;
  const thread = `${Math.round(h.workflowThreadHeapUsedMb)}${h.workflowThreadHeapTotalMb === undefined ? ' MB / —' : ` / ${Math.round(h.workflowThreadHeapTotalMb)} MB`}`;
  return `| ${r.machine.loadavg[0]} | ${Math.round(r.workerEmpty.rssMb)} → **${thousands(h.rssMb)} MB** | ${Math.round(h.heapUsedMb)} / ${Math.round(h.heapTotalMb)} MB | ${thread}`;
}

/** The end of a row of section 1's table of bulk runs with their write span (load at start on). */
function bulkSpanRow(r: ReturnType<typeof results>): string {
  const p = r.product.writeSpan;
  const n = r.naive.writeSpan;
  return `| ${r.machine.loadavgAtStart[0]} | ${p.firstWriteSeconds} s / **${p.lastWriteAnsweredSeconds} s** (${p.ratioToSlidingWindowLimit.toFixed(2)} ×) / ${r.product.totalSeconds.toFixed(1)} s (${(r.product.totalSeconds / 50).toFixed(2)} ×) | ${n.lastWriteAnsweredSeconds} s (${n.ratioToSlidingWindowLimit.toFixed(2)} ×) | ${r.product.wholeRun.rateLimited} of ${r.product.wholeRun.calls}; ${r.naive.wholeRun.rateLimited} |`;
}

/** The end of a row of section 7's table of the days after an import (time skipped). */
function daysAfterRow(r: ReturnType<typeof results>): string {
  const busiest = (r.days as { day: number; reads: number }[]).reduce((a, b) => (b.reads > a.reads ? b : a));
  const week = r.at100k.secondWeek;
  return `| ${r.perRegistrationAndDay.allDays.reads} / ${r.perRegistrationAndDay.secondWeek.reads} | ${thousands(week.pollReadsPerHour)} + ${week.sweepReadsPerHour} an hour, **${(week.readShareOfBudget * 100).toFixed(2)} %** | **${week.workflowTasksPerSecond}** | ${thousands(busiest.reads)} (day ${busiest.day}) |`;
}

/**
 * The end of a row of section 1's table of bulk runs with the first window's 20th write (load at
 * start on).
 */
function bulkWindowRow(r: ReturnType<typeof results>): string {
  const p = r.product.writeSpan;
  const n = r.naive.writeSpan;
  return `| ${r.machine.loadavgAtStart[0]} | ${p.firstWriteSeconds} s / ${p.firstWindowLastWriteSeconds} s / **${p.lastWriteAnsweredSeconds} s (${p.ratioToSlidingWindowLimit.toFixed(3)} ×)** / ${r.product.totalSeconds.toFixed(1)} s | ${n.lastWriteAnsweredSeconds} s | ${r.product.wholeRun.rateLimited} of ${r.product.wholeRun.calls}; ${r.naive.wholeRun.rateLimited} |`;
}

/** What the page must say, per results file. */
/** Section 7's table of one import-sweep-wakes run (bench/estate/steady-state.bench-run.ts). */
function estateSteadyRows(r: ReturnType<typeof results>): string[] {
  return [
    `| Import: ${thousands(r.import.adopted)} workflows started | **${s1(r.import.ms)} s** (${Math.round(r.import.adopted / (r.import.ms / 1000))} a second), **${r.import.writes} writes**, ${r.import.status429} 429s, ${r.import.listReads} list reads |`,
    `| … until every adopted campaign read its share | ${s1(r.import.settledMs)} s (${thousands(r.import.otherReads)} reads`,
    `| One sweep of the estate (${r.sweep.pages} pages of 500) | **${s1(r.sweep.ms)} s**, ${r.sweep.changed} changed, ${r.sweep.unowned} unowned; its reads ${pct(r.sweep.readShareOfBudget)} of the read budget |`,
    `noticed after **${s1(r.lostWebhook.noticedAfterMs)} s**`,
    `| Wake of an evicted workflow on a webhook, p50 / p99 (${r.wakes.wakes} wakes) | **${r.wakes.p50Ms} ms / ${r.wakes.p99Ms} ms** |`,
    `| Worker RSS: at start / after the import / in the window | ${tenths(r.workerRssAtStartMb)} MB / ${tenths(r.import.workerRssMb)} MB / ${tenths(r.steady.workerRssMb)} MB |`,
    `| Dev server RSS, database | ${r.steady.devServerRssMb} MB, ${r.steady.databaseMb} MB |`,
    `| ${thousands(r.steady.pollReadsPerHour)} reads an hour (${pct(r.steady.readShareOfBudget)} of the budget), ${r.steady.workflowTasksPerSecond.toFixed(1)} workflow and ${r.steady.activityTasksPerSecond.toFixed(1)} activity tasks a second |`,
    r.loadAverageAtEnd === undefined
      ? `load average ${r.loadAverageAtStart} when it wrote its results`
      : `load average ${r.loadAverageAtStart} at its start`,
  ];
}

/** Section 1's backlog row and the sentences after it, for the runs on 2026-11-28's code. */
function backlogOnTodaysCode(r: ReturnType<typeof results>): string[] {
  return [
    backlogRow(r),
    `starting them took ${s1(r.allStartedMs)} s`,
    `took ${r.operatorLatenciesMs
      .slice(0, 5)
      .map((ms: number) => s1(ms))
      .join(', ')
      .replace(/, ([^,]+)$/, ' and $1')} s`,
    `After the first window the operator writes' p99 is ${s1(r.operatorAfterFirstWindow.p99Ms)} s`,
    `(p99 ${s1(r.operatorParts.inActivity.p99Ms)} s from the activity's start`,
  ];
}

/** Section 2's / 9's sentences for a drill (kill) run on 2026-11-28's code. */
const killDrillClaims = ({ figures: f }: ReturnType<typeof results>): string[] => [
  `${f.completed} / ${f.orders} in ${f.seconds} s (p50 ${s1(f.e2eMs.p50)} s, p99 ${s1(f.e2eMs.p99)} s), ${f.kills} kills`,
  `finished by \`start\` ${f.doneCauses.start ?? 0}, \`workflow\` ${f.doneCauses.workflow ?? 0},
  \`poll\` ${f.doneCauses.poll ?? 0}`,
];

/** Section 2's / 9's sentences for a drill (outage) run on 2026-11-28's code. */
const outageDrillClaims = ({ figures: f }: ReturnType<typeof results>): string[] => [
  `${f.ingressHandoffFailures} failed hand-offs closed, ${f.networkRetries} network retries,
  **${f.discarded} discarded**, **${f.readyByWebhook} / ${f.brands} ready by webhook**, ${f.recoverySeconds} s after the restart`,
];

/** Section 2's / 9's sentences for a drill (drop) run on 2026-11-28's code. */
const dropDrillClaims = ({ figures: f }: ReturnType<typeof results>): string[] => [
  `${f.dropped} of ${f.sent} webhooks dropped (${Math.round(f.droppedShare * 100)} %), ${f.completed} / ${f.orders} in ${f.seconds} s`,
];

/** Section 2's / 9's sentences for a drill (duplicate) run on 2026-11-28's code. */
const duplicateDrillClaims = ({ figures: f }: ReturnType<typeof results>): string[] => [
  `${f.delivered} deliveries, **${f.resent} copies, all answered 200**;
  ${f.ingressDuplicates} caught at the ingress edge, ${f.copiesPastEdge} reached the workflows (the campaigns ignored ${f.campaignDuplicatesIgnored})`,
];

/** Section 2's / 9's sentences for a drill (commit) run on 2026-11-28's code. */
const commitDrillClaims = ({ figures: f }: ReturnType<typeof results>): string[] => [
  `\`error-after-commit\` ${f.error.completed} / ${f.error.orders} in ${f.error.seconds} s`,
  `\`timeout-after-commit\` ${f.timeout.completed} / ${f.timeout.orders} in ${f.timeout.seconds} s`,
];

/** Section 9's / 10's sentence for a bad-input run again on later code: the same orders, the same outcome. */
const badInputRerunClaims = ({ orders: o }: ReturnType<typeof results>): string[] => [
  `the same ${o.total} orders: **${o.clear} rejected naming the field, ${o.crashed.length} crashed, ${o.started.length} started a workflow**`,
];

/** Section 7's / 9's / 10's sentences for an operator-during-import run. */
const operatorImportClaims = (r: ReturnType<typeof results>): string[] => [
  `imported in ${Math.round(r.importMs / 1000)} s;`,
  `answered in **p50 ${s1(r.answerMs.p50)} s,\np99 ${s1(r.answerMs.p99)} s, max ${s1(r.answerMs.max)} s**`,
];

/** Section 3's / 9's / 10's sentences for a 1,000-waiting-workflows run. */
const waitingThousandClaims = (r: ReturnType<typeof results>): string[] => [
  `the worker **${r.workerHolding.rssMb} MB RSS**`,
  `**p50 ${r.wake.p50ms} ms, p99 ${r.wake.p99ms} ms** (${r.wake.sent} of ${r.wake.sent} woke, ${r.wake.missed} missed)`,
];

/** A row per account of section 1's two-accounts table. */
function twoAccountRows(r: ReturnType<typeof results>): string[] {
  return Object.entries(
    r.accounts as Record<
      string,
      {
        registered: number;
        firstWriteAfterStartS: number;
        firstToLastS: number;
        fastestPossibleS: number;
        shareOfLimit: number;
        maxInAnyWindow: number;
        rateLimited: number;
      }
    >,
  ).map(
    ([name, a]) =>
      `| ${name} | ${a.registered} | ${a.firstWriteAfterStartS} s | ${a.firstToLastS} s (${a.fastestPossibleS} s) | **${pct(a.shareOfLimit)}** | ${a.maxInAnyWindow} | ${a.rateLimited} |`,
  );
}

/** A row of section 6's per-payload table (bench/codec/codec.bench-run.ts). */
interface CodecRow {
  payload: string;
  plainBytes: number;
  jsonMicros: number;
  encryptMicros: number;
  decryptMicros: number;
}

const claims: Record<string, (r: ReturnType<typeof results>) => string[]> = {
  'bench/throughput/results.json': (r) => [
    `Measured at N = ${r.n} (${r.product.orders} orders, ${r.product.wholeRun.writes} writes)`,
    `| Orders completed | **${r.product.completed} / ${r.product.orders}**`,
    `| Total time | **${r.product.totalSeconds} s** |`,
    `| ${r.naive.totalSeconds} s |`,
    `| Ratio to the theoretical minimum (${r.product.theoreticalMinSeconds} s) | **${r.product.ratioToMinimum.toFixed(2)}** |`,
    `${r.product.writeWindow.writesPerSecond.toFixed(2)}/s = **${pct(r.product.writeWindow.writeLimitShare)}**`,
    `${r.product.wholeRun.writesPerSecond.toFixed(2)}/s = **${pct(r.product.wholeRun.writeLimitShare)}**`,
    `**${r.product.wholeRun.rateLimited} of ${r.product.wholeRun.calls} calls (0 %)**`,
    `${r.naive.wholeRun.rateLimited} of ${r.naive.wholeRun.calls} calls (**${Math.round(r.naive.wholeRun.rateLimitedShare * 100)} %**)`,
    `| End-to-end p50 / p99 (all orders) | ${s1(r.product.e2eMs.p50)} s / ${s1(r.product.e2eMs.p99)} s |`,
    `| … brands | ${s1(r.product.brandE2eMs.p50)} s / ${s1(r.product.brandE2eMs.p99)} s |`,
    `| … campaigns | ${s1(r.product.campaignE2eMs.p50)} s / ${s1(r.product.campaignE2eMs.p99)} s |`,
  ],
  'bench/scale/results-1000.json': (r) => [
    `**${thousands(r.workerHolding.rssMb)} MB** | ${Math.round(r.workerHolding.heapUsedMb)} MB / ${Math.round(r.workerHolding.heapTotalMb)} MB | ${r.workerHolding.cpuPercent} % of one core`,
    `**${r.wake.p50ms} ms / ${r.wake.p99ms} ms** (${r.wake.sent - r.wake.missed} of ${r.wake.sent} woke; ${r.wake.missed} missed)`,
    `${r.setupSeconds} s (start calls ${r.startSeconds} s)`,
  ],
  'bench/scale/results-10000.json': (r) => [
    `**${thousands(r.workerHolding.rssMb)} MB**`,
    `**${r.workerHolding.cpuPercent} % of one core**`,
    `**${r.wake.p50ms} ms / ${r.wake.p99ms} ms** (${r.wake.sent - r.wake.missed} of ${r.wake.sent} woke; ${r.wake.missed} missed)`,
    `Setup took ${thousands(r.setupSeconds)} s: ${Math.round(r.startSeconds)} s of start calls`,
  ],
  'bench/scale/results-2000.2026-11-27T161607Z.json': (r) => [scale2000(r)],
  'bench/scale/results-2000.2026-11-27T162330Z.json': (r) => [scale2000(r)],
  'bench/scale/results-2000.2026-11-27T162741Z.json': (r) => [scale2000(r)],
  'bench/scale/results-2000.2026-11-27T175602Z.json': (r) => [
    scale2000(r),
    `${r.workerHolding.cpuPercent} %`,
  ],
  'bench/scale/results-2000.2026-11-27T175958Z.json': (r) => [
    scale2000(r),
    `${r.workerHolding.cpuPercent} %`,
  ],
  'bench/scale/results-2000.2026-11-27T204151Z.json': (r) => [
    scale2000(r),
    `${r.workerHolding.cpuPercent} % with jemalloc`,
    `(${r.workerHolding.rssMb} − ${r.workerEmpty.rssMb}) / 2,000 = ${((r.workerHolding.rssMb - r.workerEmpty.rssMb) / 2000).toFixed(2)} MB`,
    r.allocator === 'jemalloc' ? 'jemalloc (as the image now runs it)' : 'not run with jemalloc',
  ],
  'bench/bad-input/results.json': ({ orders: o, cli, webhooks: w }) => {
    const by = (kind: string) => {
      const [b, c] = ['brand', 'campaign'].map((e) => o.byCategory[`${e} ${kind}`]);
      return { total: b.total + c.total, clear: b.clear + c.clear };
    };
    const [missing, wrongType, rules, oversized] = ['missing', 'wrong-type', 'entity-rule', 'oversized'].map(
      by,
    );
    return [
      `| Order API: missing required field | ${missing!.total} | ${missing!.clear} | 0 | 0 |`,
      `| Order API: wrong type | ${wrongType!.total} | ${wrongType!.clear} | 0 | 0 |`,
      `| Order API: entity-type rules | ${rules!.total} | ${rules!.clear} (9 in the first run) | **${rules!.total - rules!.clear}** (3 in the first run) | 0 |`,
      `| Order API: oversized strings (100k chars) | ${oversized!.total} | 20 (first run); ${oversized!.clear} (second run)`,
      `| CLI file validation (missing, wrong type) | ${cli.total} | ${cli.exit3NamingField} (exit 3, field named) |`,
      `| ${w.total} | ${w.asExpected} answered as expected`,
      `${o.clear} of ${o.total} orders rejected naming the field, ${o.crashed.length} crashed, ${o.started.length} started a workflow.`,
    ];
  },
  'bench/ingress/results-slow-clients.json': (r) => [slowClientRow(6, `hand-off, ${r.rounds} rounds`, r)],
  'bench/ingress/results-slow-clients-edge.json': (r) => [
    slowClientRow(7, `edge only, ${r.rounds} rounds`, r),
  ],
  'bench/ingress/results-slow-clients.2026-11-27T113922Z.json': (r) => [
    slowClientRow(8, `hand-off, ${r.rounds} rounds, quiet machine`, r),
  ],
  'bench/ingress/results-slow-clients-edge.2026-11-27T114125Z.json': (r) => [
    slowClientRow(9, `edge only, ${r.rounds} rounds, quiet machine`, r),
  ],
  'bench/drills/results-kill.2026-11-25T084701Z.json': ({ figures: f }) => [
    ...(f.writesCutByKill as string[][]).map(
      (cut) =>
        `${cut.length > 0 && cut.every((c) => / 200$/.test(c)) ? 'every kill cut a brand create that the registry committed (200)' : `kill cut ${cut}`}`,
    ),
    `${f.completed} / ${f.orders} orders completed in **${f.seconds} s** (p50 ${s1(f.e2eMs.p50)} s, p99 ${s1(f.e2eMs.p99)} s)`,
    `restarts took ${s1(Math.min(...f.restartMs))}–${s1(Math.max(...f.restartMs))} s`,
    `exactly ${f.brandCreates} brand POSTs, ${f.campaignCreates} campaign creates, ${f.shares} shares and **${f.fees} fees**`,
  ],
  'bench/throughput/results.2026-11-27T113548Z.json': (r) => [
    `**${r.product.totalSeconds} s** (${(r.product.totalSeconds / 50).toFixed(2)} × the sliding-window limit of about 50 s), **${r.product.wholeRun.rateLimited} of ${r.product.wholeRun.calls} calls** 429, ${r.product.completed} / ${r.product.orders} orders;`,
    `naive client ${r.naive.totalSeconds} s (${(r.naive.totalSeconds / 50).toFixed(2)} ×), ${r.naive.wholeRun.rateLimited} of ${r.naive.wholeRun.calls} calls 429 (${Math.round(r.naive.wholeRun.rateLimitedShare * 100)} %)`,
    ...Object.entries(r.product.writesByKind as Record<string, { firstS: number; lastS: number }>).map(
      ([, w]) => `${w.firstS}–${w.lastS} s`,
    ),
  ],
  'bench/throughput/results.2026-11-27T161832Z.json': (r) => [
    `| ${r.machine.loadavgAtStart[0]} | ${r.product.writesByKind['POST /v2/brand/nonBlocking'].firstS} s / — / **${r.product.totalSeconds} s** (${(r.product.totalSeconds / 50).toFixed(2)} ×) | ${r.naive.totalSeconds} s | ${r.product.wholeRun.rateLimited} of ${r.product.wholeRun.calls}; ${r.naive.wholeRun.rateLimited} |`,
    ...Object.values(r.product.writesByKind as Record<string, { firstS: number; lastS: number }>).map(
      (w) => `${w.firstS}–${w.lastS}`,
    ),
  ],
  'bench/throughput/results.2026-11-27T163154Z.json': (r) => [bulkSpanRow(r)],
  'bench/throughput/results.2026-11-27T165734Z.json': (r) => [bulkSpanRow(r)],
  'bench/throughput/results.2026-11-27T170024Z.json': (r) => [bulkSpanRow(r)],
  'bench/throughput/results.2026-11-27T172632Z.json': (r) => {
    const w = r.product.writesByKind;
    return [
      bulkSpanRow(r),
      `brand POSTs ${w['POST /v2/brand/nonBlocking'].firstS}–${w['POST /v2/brand/nonBlocking'].lastS} s`,
      `creates to ${w['POST /v2/campaignBuilder'].lastS} s, shares from ${w['PUT /v2/campaign/{id}/sharing/{cnp}'].firstS} s`,
    ];
  },
  'bench/throughput/results.2026-11-27T184911Z.json': (r) => [bulkWindowRow(r)],
  'bench/throughput/results.2026-11-27T185148Z.json': (r) => [bulkWindowRow(r)],
  'bench/throughput/results.2026-11-27T190825Z.json': (r) => [
    bulkWindowRow(r),
    `${r.product.writeSpan.firstWindowLastWriteSeconds} s + 5 × 10.25 s`,
  ],
  'bench/throughput/results.2026-11-27T191047Z.json': (r) => [bulkWindowRow(r)],
  'bench/throughput/results.2026-11-27T191328Z.json': (r) => [bulkWindowRow(r)],
  'bench/throughput/results.2026-11-27T191536Z.json': (r) => [bulkWindowRow(r)],
  'bench/throughput/results.2026-11-27T233028Z.json': (r) => [bulkWindowRow(r)],
  'bench/throughput/results.2026-11-27T233231Z.json': (r) => [bulkWindowRow(r)],
  'bench/throughput/results.2026-11-28T100643Z.json': (r) => [
    bulkWindowRow(r),
    `80 / 80 orders, **${r.product.wholeRun.rateLimited} × 429**`,
    `the last write answered at ${r.product.writeSpan.ratioToSlidingWindowLimit.toFixed(2)} × the`,
    `took ${r.naive.writeSpan.ratioToSlidingWindowLimit.toFixed(2)} ×`,
    `(load ${r.machine.loadavgAtStart[0]} at the start, ${r.provenance.machine.loadavg[0]} when it wrote its results`,
  ],
  'bench/throughput/results.2026-11-28T163155Z.json': (r) => [bulkWindowRow(r)],
  'bench/throughput/results.2026-11-28T165245Z.json': (r) => [bulkWindowRow(r)],
  'bench/throughput/results.2026-11-28T231004Z.json': (r) => [bulkWindowRow(r)],
  'bench/throughput/results.2026-11-29T053325Z.json': (r) => [bulkWindowRow(r)],
  'bench/drills/results-kill.2026-11-28T164600Z.json': (r) => [
    `${r.figures.completed} / ${r.figures.orders}, one campaign left in \`sharing\``,
  ],
  'bench/drills/results-kill.2026-11-28T165513Z.json': killDrillClaims,
  'bench/drills/results-kill.2026-11-28T231123Z.json': killDrillClaims,
  'bench/drills/results-kill.2026-11-29T000920Z.json': killDrillClaims,
  'bench/drills/results-kill.2026-11-29T054017Z.json': killDrillClaims,
  'bench/drills/results-outage.2026-11-28T165603Z.json': outageDrillClaims,
  'bench/drills/results-outage.2026-11-28T231213Z.json': outageDrillClaims,
  'bench/drills/results-outage.2026-11-29T001010Z.json': outageDrillClaims,
  'bench/drills/results-outage.2026-11-29T054100Z.json': outageDrillClaims,
  'bench/drills/results-drop.2026-11-28T165652Z.json': dropDrillClaims,
  'bench/drills/results-drop.2026-11-28T231302Z.json': dropDrillClaims,
  'bench/drills/results-drop.2026-11-29T001102Z.json': dropDrillClaims,
  'bench/drills/results-drop.2026-11-29T054142Z.json': dropDrillClaims,
  'bench/drills/results-duplicate.2026-11-28T165744Z.json': duplicateDrillClaims,
  'bench/drills/results-duplicate.2026-11-28T231353Z.json': duplicateDrillClaims,
  'bench/drills/results-duplicate.2026-11-29T001155Z.json': duplicateDrillClaims,
  'bench/drills/results-duplicate.2026-11-29T054227Z.json': duplicateDrillClaims,
  'bench/drills/results-commit.2026-11-28T165845Z.json': commitDrillClaims,
  'bench/drills/results-commit.2026-11-28T231459Z.json': commitDrillClaims,
  'bench/drills/results-commit.2026-11-29T001309Z.json': commitDrillClaims,
  'bench/drills/results-commit.2026-11-29T054324Z.json': commitDrillClaims,
  'bench/bad-input/results.2026-11-28T165346Z.json': badInputRerunClaims,
  'bench/bad-input/results.2026-11-28T231557Z.json': badInputRerunClaims,
  'bench/bad-input/results.2026-11-29T042603Z.json': badInputRerunClaims,
  'bench/bad-input/results.2026-11-29T053837Z.json': badInputRerunClaims,
  'bench/estate/results-operator.2026-11-28T170049Z.json': operatorImportClaims,
  'bench/estate/results-operator.2026-11-28T231800Z.json': operatorImportClaims,
  'bench/estate/results-operator.2026-11-29T072238Z.json': operatorImportClaims,
  'bench/estate/results-operator.2026-11-29T060005Z.json': operatorImportClaims,
  'bench/scale/results-1000.2026-11-28T173111Z.json': waitingThousandClaims,
  'bench/scale/results-1000.2026-11-28T232013Z.json': waitingThousandClaims,
  'bench/scale/results-1000.2026-11-29T055629Z.json': waitingThousandClaims,
  'bench/estate/results-operator.2026-11-28T152141Z.json': (r) => [
    `(63fd614): imported in ${Math.round(r.importMs / 1000)} s, p50 ${s1(r.answerMs.p50)} s, p99 ${s1(r.answerMs.p99)} s`,
  ],
  'bench/throughput/results.2026-11-27T202636Z.json': (r) => [
    bulkWindowRow(r),
    `(the landed code: ${r.product.writeSpan.firstWindowLastWriteSeconds} s, ${r.product.writeSpan.lastWriteAnsweredSeconds} s)`,
  ],
  'bench/throughput/results-backlog.2026-11-27T190429Z.json': (r) => [
    backlogRow(r),
    `p99 ${r.operatorAfterFirstWindow.p99Ms} ms and`,
    `(max ${r.operatorAfterFirstWindow.maxMs} ms and`,
    `(${s1(r.operatorLatenciesMs[0])} s for the first in the loaded one)`,
  ],
  'bench/throughput/results-backlog.2026-11-27T192833Z.json': (r) => [
    backlogRow(r),
    `and **${r.operatorAfterFirstWindow.p99Ms} ms** (max`,
    ` ms and ${r.operatorAfterFirstWindow.maxMs} ms)`,
    `waited **${s1(r.operatorLatenciesMs[0])} s and ${s1(r.operatorLatenciesMs[1])} s** in the quiet run`,
  ],
  'bench/throughput/results-backlog.2026-11-27T234510Z.json': (r) => [
    backlogRow(r),
    `waited ${s1(r.operatorLatenciesMs[0])} s, the second ${s1(r.operatorLatenciesMs[1])} s, and every later one p99 ${r.operatorAfterFirstWindow.p99Ms} ms (max
  ${r.operatorAfterFirstWindow.maxMs} ms)`,
  ],
  'bench/throughput/results-backlog.2026-11-27T210430Z.json': (r) => [
    backlogRow(r),
    `writes ${s1(r.operatorLatenciesMs[0])} s and ${s1(r.operatorLatenciesMs[1])} s, then p99 ${r.operatorAfterFirstWindow.p99Ms} ms (max ${r.operatorAfterFirstWindow.maxMs} ms)`,
  ],
  'bench/throughput/results-backlog.2026-11-27T173939Z.json': (r) => [
    backlogRow(r),
    `The first operator write took ${r.operatorLatenciesMs[0]} ms, every later one at most ${Math.max(...r.operatorLatenciesMs.slice(1))} ms`,
  ],
  'bench/throughput/results-backlog.2026-11-27T172238Z.json': (r) => [
    `**p99 ${r.operatorAfterFirstWindow.p99Ms} ms** (${r.operatorAfterFirstWindow.count} probes), and the backlog`,
    `took ${r.backlogSeconds.toFixed(1)} s`,
    `waited **${s1(r.operatorLatenciesMs[0])} s and ${s1(r.operatorLatenciesMs[1])} s**`,
    `so p99 over all ${r.operatorToRegistryCall.count} was **${s1(r.operatorToRegistryCall.p99Ms)} s**`,
  ],
  'bench/throughput/results-backlog.2026-11-27T113202Z.json': (r) => [backlogRow(r)],
  'bench/throughput/results-backlog.2026-11-27T115808Z.json': (r) => [backlogRow(r)],
  'bench/throughput/results-backlog.2026-11-27T122301Z.json': (r) => {
    const ms = (v: number) => (v < 1000 ? `${v} ms` : `${s1(v)} s`);
    const row = (label: string, p: { p50Ms: number; p99Ms: number }, bold: boolean) =>
      `| ${label} | ${ms(p.p50Ms)} | ${bold ? `**${ms(p.p99Ms)}**` : ms(p.p99Ms)} |`;
    const o = r.operatorParts;
    return [
      backlogRow(r),
      row('Update sent → accepted by the workflow', o.toAccepted, false),
      row("Accepted → its `updateBrand` activity scheduled (the loop's step)", o.toScheduled, false),
      row("Scheduled → started: waiting for one of the account's 5 write slots", o.queued, true),
      row("Started → the call at the registry: the budget's reservation and its instant", o.inActivity, true),
    ];
  },
  'bench/throughput/results-backlog.2026-11-27T135718Z.json': (r) => [
    backlogRow(r),
    `p99 ${r.operatorParts.queued.p99Ms} ms`,
    `p50 ${s1(r.operatorParts.inActivity.p50Ms)} s, p99\n  ${s1(r.operatorParts.inActivity.p99Ms)} s)`,
  ],
  'bench/throughput/results-backlog.2026-11-27T141259Z.json': (r) => [
    backlogRow(r),
    `${r.operatorParts.queued.p99Ms} ms and`,
    `inside the activity p50 ${r.operatorParts.inActivity.p50Ms} ms`,
  ],
  'bench/throughput/results-backlog.2026-11-27T142514Z.json': (r) => {
    const [a, b, c, d] = r.operatorLatenciesMs as number[];
    const after = r.operatorAfterFirstWindow;
    return [
      backlogRow(r),
      `${r.operatorParts.queued.p99Ms} ms`,
      `**${s1(a!)} s, ${s1(b!)} s, ${s1(c!)} s**, then ${s1(d!)} s and below`,
      `first probe on (${after.count} probes): **p50 ${after.p50Ms} ms, p99 ${after.p99Ms} ms, max ${s1(after.maxMs)} s**`,
      `Over all ${r.operatorToRegistryCall.count} the p99 is the start's ${s1(r.operatorToRegistryCall.p99Ms)} s.`,
      `the backlog took ${Math.round(r.backlogSeconds)} s`,
    ];
  },
  'bench/throughput/results-backlog.2026-11-27T150925Z.json': (r) => [
    backlogRow(r),
    `The first operator write took ${s1(r.firstOperatorToRegistryCallMs)} s`,
    `p99 **${r.operatorToRegistryCall.p99Ms} ms** over all ${r.operatorToRegistryCall.count}, p50 ${r.operatorToRegistryCall.p50Ms} ms`,
    `Inside the activity p50 ${r.operatorParts.inActivity.p50Ms} ms, p99 ${r.operatorParts.inActivity.p99Ms} ms; in the queue p99 ${r.operatorParts.queued.p99Ms} ms`,
    `backlog took ${r.backlogSeconds} s instead of 568 s`,
  ],
  'bench/throughput/results-two-accounts.2026-11-27T113343Z.json': (r) => twoAccountRows(r),
  'bench/throughput/results-two-accounts.2026-11-28T192705Z.json': (r) => twoAccountRows(r),
  'bench/throughput/results-two-accounts.2026-11-28T232206Z.json': (r) => twoAccountRows(r),
  'bench/throughput/results-two-accounts.2026-11-29T001510Z.json': (r) => twoAccountRows(r),
  'bench/throughput/results-two-accounts.2026-11-29T005115Z.json': (r) => twoAccountRows(r),
  'bench/throughput/results-two-accounts.2026-11-29T053710Z.json': (r) => twoAccountRows(r),
  'bench/throughput/results-two-accounts.2026-11-29T004923Z.json': (r) => twoAccountRows(r),
  'bench/throughput/results-two-accounts.2026-11-29T053519Z.json': (r) => twoAccountRows(r),
  'bench/throughput/results-backlog.2026-11-28T192521Z.json': (r) => backlogOnTodaysCode(r),
  'bench/throughput/results-backlog.2026-11-28T233415Z.json': (r) => backlogOnTodaysCode(r),
  'bench/throughput/results-backlog.2026-11-29T062008Z.json': (r) => backlogOnTodaysCode(r),
  'bench/throughput/results.2026-11-28T201101Z.json': (r) => [bulkWindowRow(r)],
  'bench/scale/results-1000.2026-11-28T204115Z.json': (r) => [
    `**${r.workerHolding.rssMb} MB** holding the 1,000 (${r.workerEmpty.rssMb} MB\nempty), so **${((r.workerHolding.rssMb - r.workerEmpty.rssMb) / 1000).toFixed(3)} MB per waiting workflow**`,
    `wakes p50 ${r.wake.p50ms} ms, p99 ${r.wake.p99ms} ms`,
    `${Math.round(r.workerHolding.workflowThreadHeapUsedMb)} MB\nused with the old code`,
  ],
  'bench/drills/results-registry-faults.2026-11-28T192959Z.json': ({ figures: f }) => [
    `40 / 40 orders done\n${f.recoverySeconds.toFixed(1)} s after the registry healed`,
    `${f.needsActionLeft.find((e: string) => e.includes('registry-error')).split(':')[0]}`,
  ],
  'bench/drills/results-registry-faults.2026-11-28T201435Z.json': ({ figures: f }) => [
    `| Registry answers faulted | ${f.registryAnswersFaulted} |`,
    `| Workflows Failed | **${f.failedWorkflows}** |`,
    `**${f.orders.brands + f.orders.campaigns - f.notDone.length} / ${f.orders.brands + f.orders.campaigns} orders done** ${f.recoverySeconds.toFixed(1)} s later; every \`registry-error\` gone **${f.registryErrorsClearedSeconds.toFixed(1)} s** after`,
    `**${f.maxNeedsActionDuringFaults}** from 40 s`,
    ...(f.needsActionLeft as string[]).map((e) => `\`${e}\``),
  ],
  'bench/drills/results-registry-faults.2026-11-29T001825Z.json': ({ figures: f }) => [
    `| Registry answers faulted | ${f.registryAnswersFaulted} |`,
    `| Workflows Failed | **${f.failedWorkflows}** |`,
    `**${f.orders.brands + f.orders.campaigns - f.notDone.length} / ${f.orders.brands + f.orders.campaigns} orders done** ${f.recoverySeconds.toFixed(1)} s later; every \`registry-error\` gone **${f.registryErrorsClearedSeconds.toFixed(1)} s** after`,
    `**${f.maxNeedsActionDuringFaults}** from 40 s`,
    ...(f.needsActionLeft as string[]).map((e) => `\`${e}\``),
  ],
  'bench/drills/results-registry-faults.2026-11-29T054845Z.json': ({ figures: f }) => [
    `| Registry answers faulted | ${f.registryAnswersFaulted} |`,
    `| Workflows Failed | **${f.failedWorkflows}** |`,
    `**${f.orders.brands + f.orders.campaigns - f.notDone.length} / ${f.orders.brands + f.orders.campaigns} orders done** ${f.recoverySeconds.toFixed(1)} s later; every \`registry-error\` gone **${f.registryErrorsClearedSeconds.toFixed(1)} s** after`,
    `**${f.maxNeedsActionDuringFaults}** from 40 s`,
    ...(f.needsActionLeft as string[]).map((e) => `\`${e}\``),
  ],
  'bench/codec/results.2026-11-28T193042Z.json': (r) =>
    (r.rows as CodecRow[]).map(
      (x) => `| ${x.payload} | ${x.plainBytes} | ${x.jsonMicros} | ${x.encryptMicros} | ${x.decryptMicros} |`,
    ),
  'bench/codec/results-ingress.2026-11-28T193253Z.json': (r) => {
    const at = (name: string, connections: number) =>
      (r.results as { name: string; connections: number; perSecond: number; p50ms: number }[]).find(
        (x) => x.name === name && x.connections === connections,
      )!;
    return [
      ...(
        r.ratios as {
          what: string;
          connections: number;
          pooledEncryptedVsPlain: number;
          medianRoundEncryptedVsPlain: number;
        }[]
      ).map(
        (x) =>
          `| ${x.what} | ${x.connections} | ${at(`${x.what}, plain`, x.connections).perSecond} | ${at(`${x.what}, encrypted`, x.connections).perSecond} | ${x.pooledEncryptedVsPlain} | ${x.medianRoundEncryptedVsPlain} |`,
      ),
      `p50\n  at one connection ${at('ingress POST, encrypted', 1).p50ms} ms sealed against ${at('ingress POST, plain', 1).p50ms} ms plain`,
    ];
  },
  'bench/estate/results-steady.2026-11-28T203716Z.json': (r) => [
    ...estateSteadyRows(r),
    `**The import is 6 times slower: ${Math.round(r.import.ms / 1000).toLocaleString('en-US')} s against 180 s**`,
  ],
  'bench/estate/results-steady.2026-11-29T000611Z.json': (r) => estateSteadyRows(r),
  'bench/estate/results-steady.2026-11-29T071735Z.json': (r) => estateSteadyRows(r),
  'bench/estate/results-days.2026-11-28T200850Z.json': (r) => [
    daysAfterRow(r),
    `${thousands(r.import.adopted)} adopted, ${r.import.writes} writes, ${thousands(r.import.reads)} reads`,
  ],
  'bench/estate/results-days.2026-11-28T234425Z.json': (r) => [
    daysAfterRow(r),
    `${thousands(r.import.adopted)} adopted, ${r.import.writes} writes, ${thousands(r.import.reads)} reads`,
  ],
  'bench/estate/results-days.2026-11-29T060745Z.json': (r) => [
    daysAfterRow(r),
    `${thousands(r.import.adopted)} adopted, ${r.import.writes} writes, ${thousands(r.import.reads)} reads`,
  ],
  'bench/drills/results-kill.2026-11-27T113719Z.json': ({ figures: f }) => [
    `met **${f.rateLimited} × 429** each`,
  ],
  'bench/drills/results-kill.2026-11-27T114419Z.json': ({ figures: f }) => [
    `met **${f.rateLimited} × 429** each`,
    ...(f.rateLimitedCalls as string[]).map((c) => c.split(' @ ')[0]!),
  ],
  'bench/drills/results-kill.2026-11-27T114653Z.json': ({ figures: f }) => [
    `**${f.rateLimited} × 429** (also 0`,
  ],
  'bench/drills/results-kill.2026-11-27T120004Z.json': ({ figures: f }) => [
    `(${(f.writesCutByKill as string[][]).map((cut) => cut.length).join(', then ')} of them)`,
    `${f.completed} / ${f.orders} completed in ${f.seconds} s, restarts ${s1(Math.min(...f.restartMs))}–${s1(Math.max(...f.restartMs))} s`,
    `exactly ${f.brandCreates} brand POSTs, ${f.campaignCreates} creates, ${f.shares} shares and ${f.fees} fees, **${f.rateLimited} × 429**`,
  ],
  'bench/drills/results-kill.json': ({ figures: f }) => [
    `${f.completed} / ${f.orders} in ${f.seconds} s, restarts ${s1(Math.min(...f.restartMs))}–${s1(Math.max(...f.restartMs))} s`,
  ],
  'bench/drills/results-outage.2026-11-25T084304Z.json': ({ figures: f }) => [
    `${f.brands} PUBLIC_PROFIT brands`,
    `the ingress closed the connection on **${f.ingressHandoffFailures} failed hand-offs**`,
    `(${f.networkRetries} network retries, no HTTP status)`,
    `${f.delivered} delivered, **${f.discarded} discarded**`,
    `**${f.ready} / ${f.brands} brands ready, all woken by the webhook**`,
    `${f.recoverySeconds} s after the restart`,
  ],
  'bench/drills/results-outage.json': ({ figures: f }) => [
    `${f.retryStatuses['503']} answers 503, retried on the 13-step schedule, ready ${f.recoverySeconds} s after the restart`,
  ],
  'bench/drills/results-duplicate.2026-11-25T084203Z.json': ({ figures: f }) => [
    `${f.delivered} deliveries, **${f.resent} copies, all answered ${Object.keys(f.resendStatuses).join(', ')}**. ${f.ingressDuplicates} copies were caught`,
    `${f.copiesPastEdge} reached the workflows, whose own dedupe held (the campaign workflows counted ${f.campaignDuplicatesIgnored} copies they ignored). ${f.completed} / ${f.orders} completed in ${f.seconds} s`,
    `Exactly ${f.brandCreates} brand POSTs, ${f.campaignCreates} creates, ${f.shares} shares and ${f.fees} fees.`,
  ],
  'bench/drills/results-commit.json': ({ figures: f }) => [
    `\`error-after-commit\`: ${f.error.completed} / ${f.error.orders} completed in ${f.error.seconds} s, ${f.error.faultedCalls} faulted calls`,
    `\`timeout-after-commit\`: ${f.timeout.completed} / ${f.timeout.orders} completed in ${f.timeout.seconds} s, ${f.timeout.faultedCalls} faulted calls`,
  ],
  'bench/drills/results-drop.json': ({ figures: f }) => [
    `${f.dropped} of ${f.sent} webhooks dropped (**${Math.round(f.droppedShare * 100)} %**)`,
    `**${f.completed} / ${f.orders} orders completed** in ${f.seconds} s`,
    `${f.completedByWebhook.count} campaigns finished on a webhook (p50 ${s1(f.completedByWebhook.p50)} s, p99 ${s1(f.completedByWebhook.p99)} s)`,
    `${f.completedByPoll.count} on a reconciliation poll (p50 ${s1(f.completedByPoll.p50)} s, p99 ${s1(f.completedByPoll.p99)} s)`,
    `**Added delay: +${Math.round(f.addedDelayP50Ms / 1000)} s at p50, +${Math.round(f.addedDelayP99Ms / 1000)} s at p99**`,
  ],
  'bench/estate/results-steady.2026-11-27T053444Z.json': (r) => estateSteadyRows(r),
  'bench/estate/results-steady.2026-11-27T073138Z.json': (r) => estateSteadyRows(r),
  'bench/estate/results-steady.2026-11-27T090131Z.json': (r) => estateSteadyRows(r),
  'bench/estate/results-steady.2026-11-27T092120Z.json': (r) => estateSteadyRows(r),
  'bench/estate/results-steady.2026-11-27T164242Z.json': (r) => estateSteadyRows(r),
  'bench/estate/results-steady.2026-11-27T194249Z.json': (r) => [
    ...estateSteadyRows(r),
    `(${r.steady.workerRssMb} − ${r.workerRssAtStartMb}) / ${thousands(r.cache)} = ${((r.steady.workerRssMb - r.workerRssAtStartMb) / r.cache).toFixed(2)} MB`,
  ],
  'bench/estate/results-steady.2026-11-27T232707Z.json': (r) => [
    ...estateSteadyRows(r),
    `(${r.steady.workerRssMb} − ${r.workerRssAtStartMb}) / ${thousands(r.cache)} = ${((r.steady.workerRssMb - r.workerRssAtStartMb) / r.cache).toFixed(2)} MB`,
    `${r.steady.byEndpoint[0][1]} vet reads`,
  ],
  'bench/estate/results-days.2026-11-27T220939Z.json': (r) => [
    daysAfterRow(r),
    `(${r.days
      .slice(5, 9)
      .map((d: { reads: number }) => thousands(d.reads))
      .join(', ')} reads)`,
  ],
  'bench/estate/results-days.2026-11-27T221939Z.json': (r) => [
    daysAfterRow(r),
    `(${r.import.reads.toLocaleString('en-US')} reads: each campaign's share`,
  ],
  'bench/estate/results-steady.2026-11-27T150845Z.json': (r) => [
    ...estateSteadyRows(r),
    `${thousands(r.steady.byEndpoint[0][1])} vet reads and ${r.steady.byEndpoint[1][1]} brand reads`,
  ],
  'bench/estate/results.2026-11-25T105916Z.json': (r) => {
    const page = (p: { pages: number; meanMs: number; p50Ms: number; p99Ms: number }) =>
      `(${p.pages} pages) | mean ${p.meanMs} ms, p50 ${p.p50Ms} ms, p99 ${p.p99Ms} ms |`;
    return [
      `| Seeded | ${thousands(r.brands)} brands (${thousands(r.vets)} vets), ${thousands(r.campaigns)} campaigns`,
      `| Seed time (one control request) | **${thousands(r.seedMs)} ms** |`,
      `| Simulator RSS after seeding | **${r.simulatorRssMb} MB** (process ${r.rssMb.before} → ${r.rssMb.seeded} MB`,
      `| Brands, 500 per page ${page(r.paging.brandsAtMax)}`,
      `| Campaigns, 500 per page ${page(r.paging.campaignsAtMax)}`,
      `| Brands, 100 per page ${page(r.paging.brandsAt100)}`,
      `| Campaigns, 100 per page ${page(r.paging.campaignsAt100)}`,
      `| State file | **${r.stateFile.mb} MB** (${thousands(r.stateFile.bytes)} bytes) |`,
      `| First write after the seed (simulator busy) | ${thousands(r.stateFile.firstWriteAfterSeedMs)} ms |`,
      `| Close with a forced write | ${thousands(r.stateFile.closeWithWriteMs)} ms |`,
      `| Restart loading the file / to the first campaign page | ${thousands(r.stateFile.reloadMs)} ms / ${thousands(r.stateFile.reloadToFirstPageMs)} ms |`,
    ];
  },
};

/** README.md's summary of the same runs. */
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const readmeClaims: Record<string, (r: ReturnType<typeof results>) => string[]> = {
  'bench/estate/results-steady.2026-11-29T071735Z.json': (r) => [
    `import ${Math.round(r.import.ms / 1000).toLocaleString('en-US')} s (${Math.round(r.import.adopted / (r.import.ms / 1000))} a second) with **${r.import.writes} writes**; one sweep ${s1(r.sweep.ms)} s; a lost webhook noticed ${s1(r.lostWebhook.noticedAfterMs)} s into a sweep; evicted workflows woken in ${r.wakes.p50Ms} ms p50, **${r.wakes.p99Ms} ms p99**; worker ${tenths(r.steady.workerRssMb)} MB`,
  ],
  'bench/drills/results-registry-faults.2026-11-29T054845Z.json': ({ figures: f }) => [
    `${f.failedWorkflows} workflows failed; 40/40 orders done ${f.recoverySeconds.toFixed(1)} s after the registry healed; every \`registry-error\` cleared ${f.registryErrorsClearedSeconds.toFixed(1)} s after`,
  ],
  'bench/throughput/results-backlog.2026-11-29T062008Z.json': (r) => [
    `in p50 ${s1(r.operatorToRegistryCall.p50Ms)} s, p99 ${s1(r.operatorToRegistryCall.p99Ms)} s (${r.operatorToRegistryCall.count} probes`,
    `a webhook's read in p99 ${thousands(r.webhookToRegistryRead.p99Ms)} ms; ${r.rateLimited} × 429`,
  ],
  'bench/throughput/results-two-accounts.2026-11-29T053710Z.json': (r) => [
    `**${pct(r.accounts.east.shareOfLimit)}** and **${pct(r.accounts.west.shareOfLimit)}** of each one's write limit`,
  ],
  'bench/ingress/results.2026-11-28T193545Z.json': (r) => [
    `1 connection: **${ingressRatio(r, 'raw signalWithStart', 1)}** of the raw rate, p99 ${(r.results as IngressRow[]).find((x) => x.name === 'ingress POST' && x.connections === 1)!.p99ms.toFixed(1)} ms; 16 connections: **${ingressRatio(r, 'raw signalWithStart', 16)}**`,
  ],
  'bench/codec/results-ingress.2026-11-28T193253Z.json': (r) => {
    const ratio = (what: string, connections: number) =>
      Math.round(
        100 *
          (r.ratios as { what: string; connections: number; pooledEncryptedVsPlain: number }[]).find(
            (x) => x.what === what && x.connections === connections,
          )!.pooledEncryptedVsPlain,
      );
    return [
      `client signals keep ${ratio('client signal', 1)} % (1 connection) and ${ratio('client signal', 16)} % (16)`,
      `keeps **${ratio('ingress POST', 1)} %** and **${ratio('ingress POST', 16)} %**`,
    ];
  },
  'bench/estate/results-days.2026-11-29T060745Z.json': (r) => [
    `**${(r.at100k.secondWeek.readShareOfBudget * 100).toFixed(2)} % of the read budget**, ${r.at100k.secondWeek.workflowTasksPerSecond.toFixed(2)} workflow tasks a second, ${r.import.writes} writes`,
  ],
  'bench/throughput/results.2026-11-28T201101Z.json': (r) => [
    `that code on today's machine: ${r.product.writeSpan.ratioToSlidingWindowLimit.toFixed(3)} ×`,
  ],
  'bench/scale/results-1000.2026-11-29T055629Z.json': (r) => [
    `${r.workerHolding.rssMb} MB RSS (${r.workerEmpty.rssMb} MB empty), wake latency webhook → next registry call p50 ${r.wake.p50ms} ms, p99 ${r.wake.p99ms} ms`,
  ],
  'bench/estate/results-operator.2026-11-29T060005Z.json': (r) => [
    `${r.operatorSteps} steps: p50 ${(r.answerMs.p50 / 1000).toFixed(1)} s, p99 ${(r.answerMs.p99 / 1000).toFixed(1)} s; ${r.status429} × 429`,
  ],
  'bench/throughput/results.2026-11-29T053325Z.json': (r) => [
    `${r.product.completed}/${r.product.orders} orders, **${r.product.wholeRun.rateLimited} × 429**, one brand, campaign and fee each; the last write answered at ${r.product.writeSpan.lastWriteAnsweredSeconds} s (**${r.product.writeSpan.ratioToSlidingWindowLimit.toFixed(3)} ×** the sliding-window limit; the naive client ${r.naive.writeSpan.ratioToSlidingWindowLimit.toFixed(2)} ×), every order done at ${r.product.totalSeconds.toFixed(1)} s`,
  ],
  'bench/bad-input/results.2026-11-29T053837Z.json': ({ orders: o, cli, webhooks: w }) => [
    `Bad input: ${o.total} malformed orders, ${cli.total} bad files, ${w.total} forged webhooks | ${o.crashed.length} crashes; ${o.clear} orders and every file and webhook rejected naming the field; ${o.started.length} orders start a workflow by design`,
  ],
  'bench/throughput/results.json': (r) => [
    `**${pct(r.product.writeWindow.writeLimitShare)} of the write limit** from first to last write (${pct(r.product.wholeRun.writeLimitShare)} counted from the first order's start), **${r.product.wholeRun.rateLimited} × 429**, ${r.product.completed}/${r.product.orders} orders`,
    `p50 ${Math.round(r.product.e2eMs.p50 / 1000)} s, p99 ${Math.round(r.product.e2eMs.p99 / 1000)} s per order; ${r.product.ratioToMinimum.toFixed(2)} × the theoretical minimum`,
  ],
  'bench/scale/results-1000.json': (r) => [
    `1,000: ${thousands(r.workerHolding.rssMb)} MB, p50 ${r.wake.p50ms} ms / p99 ${r.wake.p99ms} ms`,
  ],
  'bench/bad-input/results.json': ({ orders: o, cli, webhooks: w }) => [
    `Bad input: ${o.total} malformed orders, ${cli.total} bad files, ${w.total} forged webhooks | ${o.crashed.length} crashes; every rejection names its field; ${o.started.length} orders start a workflow by design`,
  ],
  'bench/throughput/results.2026-11-27T233028Z.json': (r) => [
    `the last write answered at ${r.product.writeSpan.lastWriteAnsweredSeconds} s (**${r.product.writeSpan.ratioToSlidingWindowLimit.toFixed(3)} ×** the sliding-window limit; the naive client ${r.naive.writeSpan.ratioToSlidingWindowLimit.toFixed(2)} ×), every order done at ${r.product.totalSeconds.toFixed(1)} s`,
  ],
  'bench/estate/results-steady.2026-11-27T232707Z.json': (r) => [
    `at 100,000 **${Math.round(r.steady.workerRssMb)} MB** in the window`,
    `that window at ${pct(r.steady.readShareOfBudget)} of the read budget and ${r.steady.workflowTasksPerSecond.toFixed(1)} workflow tasks a second, wakes p99 ${r.wakes.p99Ms} ms`,
  ],
  'bench/estate/results-days.2026-11-27T221939Z.json': (r) => [
    `**${(r.at100k.secondWeek.readShareOfBudget * 100).toFixed(2)} % of the read budget, ${r.at100k.secondWeek.workflowTasksPerSecond.toFixed(2)} workflow tasks a second**`,
  ],
  'bench/throughput/results-backlog.2026-11-27T234510Z.json': (r) => [
    `a webhook's read reaches the registry in p99 **${s1(r.webhookToRegistryRead.p99Ms)} s**`,
    `in p50 **${s1(r.operatorToRegistryCall.p50Ms)} s**, p99 **${s1(r.operatorToRegistryCall.p99Ms)} s** (the first two after a quiet spell waited ${s1(r.operatorLatenciesMs[0])} s and ${s1(r.operatorLatenciesMs[1])} s`,
    `every later one p99 ${s1(r.operatorAfterFirstWindow.p99Ms)} s`,
  ],
  'bench/ingress/results.json': (r) => [
    `1 connection: **${ingressRatio(r, 'raw signalWithStart', 1)}** of the raw rate, p99 ${(r.results as IngressRow[]).find((x) => x.name === 'ingress POST' && x.connections === 1)!.p99ms.toFixed(1)} ms; 16 connections: **${ingressRatio(r, 'raw signalWithStart', 16)}**`,
  ],
  'bench/throughput/results.2026-11-28T100643Z.json': (r) => [
    `under load ${r.machine.loadavgAtStart[0]} on ${r.provenance.machine.cpus} cores (${r.provenance.commit.slice(0, 7)}): ${r.product.completed}/${r.product.orders} orders, **${r.product.wholeRun.rateLimited} × 429**`,
    `the last write answered at ${r.product.writeSpan.lastWriteAnsweredSeconds} s (**${r.product.writeSpan.ratioToSlidingWindowLimit.toFixed(3)} ×** the sliding-window limit; the naive client ${r.naive.writeSpan.ratioToSlidingWindowLimit.toFixed(2)} ×), every order done at ${r.product.totalSeconds.toFixed(1)} s`,
  ],
  'bench/scale/results-10000.json': (r) => [
    `**10,000 waiting brands: ${thousands(r.workerHolding.rssMb)} MB RSS, ${r.workerHolding.cpuPercent} % of one core, wake latency webhook → next registry call p50 ${r.wake.p50ms} ms, p99 ${r.wake.p99ms} ms**`,
  ],
};

describe('README.md figures match their results files', () => {
  for (const [file, claim] of Object.entries(readmeClaims))
    it(file, () => {
      expect(claim(results(file)).filter((text) => !readme.includes(text))).toEqual([]);
    });
});

/** docs/ingress.md's ingress benchmark (and README's line for it): the results files it cites. */
const INGRESS_RESULTS = ['bench/ingress/results.json', 'bench/ingress/results.2026-11-28T193545Z.json'];
const ingressDoc = readFileSync(join(root, 'docs/ingress.md'), 'utf8');
interface IngressRow {
  name: string;
  connections: number;
  perSecond: number;
  p50ms: number;
  p99ms: number;
  errors: number;
}
/** Ingress / raw rate in whole percent, as the benchmark prints it (from the events per second). */
const ingressRatio = (r: ReturnType<typeof results>, raw: string, connections: number) => {
  const rows = r.results as IngressRow[];
  const at = (name: string) => rows.find((x) => x.name === name && x.connections === connections)!;
  return `${Math.round((100 * at('ingress POST').perSecond) / at(raw).perSecond)} %`;
};
const ingressClaims = (r: ReturnType<typeof results>): string[] => {
  const median = (i: number) => `${Math.round((r.ratios[i].medianRoundVsSignalWithStart as number) * 100)} %`;
  const p99At1 = (r.results as IngressRow[]).find(
    (x) => x.name === 'ingress POST' && x.connections === 1,
  )!.p99ms;
  return [
    ...(r.results as IngressRow[]).map(
      (x) => `| ${x.name} | ${x.connections} | ${x.perSecond} | ${x.p50ms} | ${x.p99ms} | ${x.errors} |`,
    ),
    ...[1, 16].map(
      (n, i) =>
        `**${ingressRatio(r, 'raw signalWithStart', n)}; ${median(i)}** | ${ingressRatio(r, 'raw signal', n)} |`,
    ),
    `met at 1 connection (${ingressRatio(r, 'raw signalWithStart', 1)}) and at 16 (${ingressRatio(r, 'raw signalWithStart', 16)})`,
    `**p99 at one connection < 20 ms: met** (${p99At1.toFixed(1)} ms)`,
  ];
};

describe('docs/ingress.md ingress figures match their results files', () => {
  for (const file of INGRESS_RESULTS)
    it(file, () => {
      expect(ingressClaims(results(file)).filter((t) => !ingressDoc.includes(t))).toEqual([]);
    });
});

describe('docs/benchmarks.md figures match their results files', () => {
  for (const [file, claim] of Object.entries(claims))
    it(file, () => {
      const missing = claim(results(file)).filter((text) => !page.includes(text));
      expect(missing).toEqual([]);
    });

  it('a results file is written under a new dated name', () => {
    expect(datedResultsPath('/x/bench/drills/results-kill.json', new Date('2026-11-25T08:15:00.123Z'))).toBe(
      '/x/bench/drills/results-kill.2026-11-25T081500Z.json',
    );
  });
});

/**
 * Every cited results file measured today's code, or the page says it did not (issue 37): a results
 * file is current when it names the commit it measured, on a clean tree, and no later commit changed
 * the code its benchmark measures (bench/support/measured-code.ts, bench/support/freshness.ts).
 * docs/benchmarks.md's register lists each cited file with its status; README.md's figures table (the
 * headline) cites only current files, and a stale figure it keeps below the table names its status.
 */
describe('figures come from runs of the code they describe', () => {
  const cited = [...new Set([...Object.keys(claims), ...Object.keys(readmeClaims), ...INGRESS_RESULTS])];
  const section = readme.slice(readme.indexOf('## Figures measured so far'));
  const figures = section.slice(0, section.indexOf('\n## '));
  const stale = figures.indexOf('### Measured on older code');
  const headline = (stale < 0 ? figures : figures.slice(0, stale))
    .split('\n')
    .filter((line) => line.startsWith('|'))
    .join('\n');

  for (const file of cited)
    it(file, () => {
      const f = freshness(root, file);
      const problems: string[] = [];
      if (!page.includes(f.line))
        problems.push(
          `docs/benchmarks.md's register of results files lacks the line\n${f.line}${f.current ? '' : `\n(stale: ${f.why}; run its benchmark again, or keep the figure as stale)`}`,
        );
      if (!f.current && INGRESS_RESULTS.includes(file) && !ingressDoc.includes(f.line.slice(2)))
        problems.push(`docs/ingress.md cites a stale results file without its status: ${f.line.slice(2)}`);
      if (!f.current && file in readmeClaims) {
        const inHeadline = readmeClaims[file]!(results(file)).filter((text) => headline.includes(text));
        if (inHeadline.length > 0)
          problems.push(
            `README.md's figures table presents as current what ${file} measured, but ${f.why}: ${inHeadline.join(' / ')}`,
          );
        if (!figures.includes(f.line.slice(2)))
          problems.push(`README.md keeps a stale figure without its status: ${f.line.slice(2)}`);
      }
      expect(problems).toEqual([]);
    });
});
