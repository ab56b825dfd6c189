/**
 * What each benchmark measures, as source paths (issue 37): a results file is current only while no
 * commit after the one it measured changed these paths. test/docs/benchmark-figures.test.ts reads this
 * table for every results file README.md and the docs cite, so a new benchmark declares its paths here
 * (a results file no entry matches fails that test).
 *
 * The paths are the product code the run exercises and the bench's own driver; they leave out this
 * folder's results.ts and freshness.ts (they record and judge runs, they are not measured).
 */

/** The product a worker-backed run exercises: workflows, activities, the registry client and simulator. */
const worker = [
  'src/workflows',
  'src/activities',
  'src/workers',
  'src/registry',
  'src/orders',
  'src/contracts',
  'src/codec',
  'src/config',
  'src/common',
  'src/simulator',
  'src/stack',
];
/** The bench stack every worker-backed bench starts (bench/support/bench-stack.ts and its helpers). */
const stack = [
  'bench/support/bench-stack.ts',
  'bench/support/orders.ts',
  'bench/support/stats.ts',
  'bench/support/counting-proxy.ts',
  'bench/support/call-stats.ts',
  'bench/support/allocator.ts',
];

export interface MeasuredCode {
  /** Results files (paths from the project root) this entry covers. */
  results: RegExp;
  /** The benchmark that writes them. */
  bench: string;
  /** Source paths (files or folders) whose change makes its results stale. */
  paths: string[];
}

export const measuredCode: MeasuredCode[] = [
  {
    results: /^bench\/throughput\/results(\.[\dTZ-]+)?\.json$/,
    bench: 'bench/throughput/throughput.bench-run.ts',
    paths: [...worker, ...stack, 'bench/support/bulk.ts', 'bench/throughput/throughput.bench-run.ts'],
  },
  {
    results: /^bench\/throughput\/results-backlog\./,
    bench: 'bench/throughput/backlog.bench-run.ts',
    paths: [
      ...worker,
      ...stack,
      'src/ingress',
      'bench/support/webhooks.ts',
      'bench/throughput/backlog.bench-run.ts',
    ],
  },
  {
    results: /^bench\/throughput\/results-two-accounts\./,
    bench: 'bench/throughput/two-accounts.bench-run.ts',
    paths: [...worker, ...stack, 'bench/throughput/two-accounts.bench-run.ts'],
  },
  {
    results: /^bench\/scale\/results-\d+[.]/,
    bench: 'bench/scale/scale.bench-run.ts',
    paths: [
      ...worker,
      ...stack,
      'src/ingress',
      'bench/support/webhooks.ts',
      'bench/support/memory-reporter.cjs',
      'bench/scale/scale.bench-run.ts',
    ],
  },
  {
    results: /^bench\/bad-input\/results[.]/,
    bench: 'bench/bad-input/bad-input.bench-run.ts',
    paths: [
      ...worker,
      ...stack,
      'src/ingress',
      'src/cli',
      'bench/support/bad-input-corpus.ts',
      'bench/bad-input/bad-input.bench-run.ts',
    ],
  },
  {
    results: /^bench\/ingress\/results(-in-process)?[.]/,
    bench: 'bench/ingress/ingress.bench-run.ts',
    paths: [
      'src/ingress',
      'src/codec',
      'src/contracts',
      'src/cli/ingress.ts',
      'bench/ingress/ingress.bench-run.ts',
    ],
  },
  {
    results: /^bench\/ingress\/results-slow-clients(-edge)?[.]/,
    bench: 'bench/ingress/slow-clients.bench-run.ts',
    paths: ['src/ingress', 'src/contracts', 'src/cli/ingress.ts', 'bench/ingress/slow-clients.bench-run.ts'],
  },
  {
    results: /^bench\/drills\/results-(kill|outage|duplicate|commit|drop)[.]/,
    bench: 'bench/drills/drills.bench-run.ts',
    paths: [
      ...worker,
      ...stack,
      'src/ingress',
      'bench/support/drills.ts',
      'bench/support/webhooks.ts',
      'bench/drills/drills.bench-run.ts',
    ],
  },
  {
    results: /^bench\/drills\/results-registry-faults[.]/,
    bench: 'bench/drills/registry-faults.bench-run.ts',
    paths: [...worker, ...stack, 'bench/support/bulk.ts', 'bench/drills/registry-faults.bench-run.ts'],
  },
  {
    results: /^bench\/estate\/results-steady[.]/,
    bench: 'bench/estate/steady-state.bench-run.ts',
    paths: [
      ...worker,
      ...stack,
      'src/ingress',
      'src/cli/estate.ts',
      'bench/support/prometheus.ts',
      'bench/estate/steady-state.bench-run.ts',
    ],
  },
  {
    results: /^bench\/estate\/results-operator[.]/,
    bench: 'bench/estate/operator-during-import.bench-run.ts',
    paths: [...worker, ...stack, 'bench/estate/operator-during-import.bench-run.ts'],
  },
  {
    results: /^bench\/estate\/results-days[.]/,
    bench: 'bench/estate/days-after.bench-run.ts',
    paths: [...worker, ...stack, 'bench/support/prometheus.ts', 'bench/estate/days-after.bench-run.ts'],
  },
  {
    results: /^bench\/estate\/results[.]/,
    bench: 'bench/estate/seed.bench-run.ts',
    paths: ['src/simulator', 'bench/estate/seed.bench-run.ts'],
  },
  {
    results: /^bench\/codec\/results(-ingress)?[.]/,
    bench: 'bench/codec/codec.bench-run.ts and ingress-codec.bench-run.ts',
    paths: ['src/codec', 'src/ingress', 'bench/codec'],
  },
];

/** The entry for a results file (a path from the project root); throws when no bench declares it. */
export function measuredCodeOf(resultsFile: string): MeasuredCode {
  const entry = measuredCode.find((m) => m.results.test(resultsFile));
  if (entry === undefined)
    throw new Error(
      `${resultsFile}: no benchmark declares the code it measures (add it to bench/support/measured-code.ts)`,
    );
  return entry;
}
