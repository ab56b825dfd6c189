import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// The ingress benchmark, the slow-client drill and the long fuzz run go through vitest only because it
// compiles TypeScript on the fly; they are not timed tests and never part of `npm test`. One at a time:
//   npx vitest run --config bench/ingress/vitest.config.ts bench/ingress/ingress.bench-run.ts
//   npx vitest run --config bench/ingress/vitest.config.ts bench/ingress/slow-clients.bench-run.ts
//   npx vitest run --config bench/ingress/vitest.config.ts bench/ingress/fuzz.bench-run.ts
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
