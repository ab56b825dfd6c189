import { defineConfig } from 'vitest/config';

// Workflow suites start real Temporal servers and bundle workflow code, so they get generous
// timeouts; each file runs in its own process. Two cores: at most two files at once.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    reporters: ['default'],
    setupFiles: ['test/support/quiet-runtime.ts', 'test/support/remove-temp-dirs.ts'],
  },
});
