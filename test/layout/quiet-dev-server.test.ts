/**
 * The tests' dev servers run through test/support/temporal-cli-quiet.sh: their warnings go to the log
 * file only (a healthy `npm test` printed 6–20 of them a run), everything else also to stderr, and the
 * CLI stays the process the SDK started (so stopping the server stops the CLI). A fake CLI stands in
 * for the real one.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../support/temp-dir.js';

const wrapper = fileURLToPath(new URL('../support/temporal-cli-quiet.sh', import.meta.url));

const WARN = 'time=2026-11-29T03:41:02.123 level=WARN msg="Slow gRPC call" service=frontend';
const ERROR = 'time=2026-11-29T03:41:02.456 level=ERROR msg="Unable to process task" service=history';

describe("the tests' dev-server wrapper", () => {
  it('keeps warnings in the log file only; errors and other lines reach stderr too; the CLI is exec-ed', () => {
    const dir = tempDir('quiet-cli-');
    const fakeCli = join(dir, 'temporal');
    writeFileSync(
      fakeCli,
      `#!/bin/sh\necho "banner $*"\necho '${WARN}' >&2\necho '${ERROR}' >&2\necho 'panic: not a log line' >&2\necho "pid $$"\n`,
      { mode: 0o755 },
    );
    const run = spawnSync(wrapper, ['server', 'start-dev'], {
      encoding: 'utf8',
      env: { ...process.env, TCR_TEMPORAL_CLI: fakeCli, TCR_TEST_LOG_DIR: join(dir, 'logs') },
    });
    expect(run.status).toBe(0);
    expect(run.stdout).toBe('');
    expect(run.stderr).not.toContain('level=WARN');
    expect(run.stderr).toContain(ERROR);
    expect(run.stderr).toContain('panic: not a log line');
    const log = readFileSync(join(dir, 'logs', 'temporal-dev-server.log'), 'utf8');
    expect(log).toContain('banner server start-dev');
    expect(log).toContain(WARN);
    expect(log).toContain(ERROR);
    expect(log).toContain(`pid ${run.pid}`);
  });
});
