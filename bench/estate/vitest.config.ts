import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// The simulator at estate scale (bench/estate, issue 19 item 5). Not a timed test, never part of `npm test`:
//   nice -n 19 npx vitest run --config bench/estate/vitest.config.ts
export default defineConfig({
  root: fileURLToPath(new URL('../..', import.meta.url)),
  test: {
    include: ['bench/estate/**/*.bench-run.ts'],
    pool: 'forks',
    maxWorkers: 1,
    fileParallelism: false,
    // 4 hours: the paced import adopts about 9 registrations a second (10,000 took 1,130 s on
    // 2026-11-28, past the 20 minutes this was), so 100,000 takes about 3 hours. A timed-out run can
    // leave its stack's processes running (docs/benchmarks.md, section 1): check before the next.
    testTimeout: 14_400_000,
    reporters: ['default'],
  },
});
