import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// The payload encryption benchmark (bench/codec). Not a timed test, never part of `npm test`:
//   npx vitest run --config bench/codec/vitest.config.ts
export default defineConfig({
  root: fileURLToPath(new URL('../..', import.meta.url)),
  test: {
    include: ['bench/codec/**/*.bench-run.ts'],
    pool: 'forks',
    maxWorkers: 1,
    fileParallelism: false,
    testTimeout: 600_000,
    reporters: ['default'],
  },
});
