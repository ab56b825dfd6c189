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
    // Quiet runs (issue 37): one line per file; a test is listed on its own only when it fails or
    // takes over 30 s. Worker logs go to test-results/logs (test/support/quiet-runtime.ts).
    slowTestThreshold: 30_000,
    setupFiles: ['test/support/quiet-runtime.ts', 'test/support/remove-temp-dirs.ts'],
  },
});
