import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// The ingress benchmark runs through vitest only because it compiles TypeScript on the fly; it is
// not a timed test and is never part of `npm test`:
//   npx vitest run --config bench/ingress/vitest.config.ts
export default defineConfig({
  root: fileURLToPath(new URL('../..', import.meta.url)),
  test: {
    include: ['bench/ingress/**/*.bench-run.ts'],
    pool: 'forks',
    maxWorkers: 1,
    testTimeout: 600_000,
    hookTimeout: 120_000,
    reporters: ['default'],
    setupFiles: ['test/support/quiet-runtime.ts'],
  },
});
