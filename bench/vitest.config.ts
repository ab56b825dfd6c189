import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// The benchmarks and drills under bench/ (except bench/ingress, which has its own config). Not timed
// tests, never part of `npm test`. One at a time, by folder:
//   npx vitest run --config bench/vitest.config.ts bench/throughput   (throughput, backlog, two-accounts; one by its file path)
//   npx vitest run --config bench/vitest.config.ts bench/drills
//   npx vitest run --config bench/vitest.config.ts bench/scale
//   npx vitest run --config bench/vitest.config.ts bench/bad-input
export default defineConfig({
  root: fileURLToPath(new URL('..', import.meta.url)),
  test: {
    include: ['bench/{throughput,drills,scale,bad-input}/**/*.bench-run.ts'],
    pool: 'forks',
    maxWorkers: 1,
    fileParallelism: false,
    testTimeout: 3_600_000,
    hookTimeout: 300_000,
    reporters: ['default'],
    setupFiles: ['test/support/quiet-runtime.ts'],
  },
});
