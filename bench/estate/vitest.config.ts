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
    testTimeout: 1_200_000,
    reporters: ['default'],
  },
});
