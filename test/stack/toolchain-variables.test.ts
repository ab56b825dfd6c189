/**
 * The toolchain variables (README, docs/local-stack.md, docs/operations.md): TEMPORAL_CLI_PATH and
 * TCR_TOOLS_DIR choose the Temporal CLI the local stack runs as its dev server, and
 * TEMPORAL_TEST_SERVER_PATH the Java time-skipping server the tests run. Each is set here and
 * observed: the path chosen, and for the CLI, the program the dev server start really runs.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { startDevServer } from '../../src/stack/temporal-dev-server.js';
import { temporalCliPath, testServerPath, toolchainVersions } from '../../src/toolchain/paths.js';

const dir = mkdtempSync(join(tmpdir(), 'tcr-toolchain-vars-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => {
  vi.unstubAllEnvs();
});

/** An executable script at `path` that writes its arguments to `path.args` and exits 3. */
function fakeProgram(path: string): string {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, `#!/bin/sh\necho "$@" > "${path}.args"\nexit 3\n`);
  chmodSync(path, 0o755);
  return path;
}

describe('TEMPORAL_CLI_PATH', () => {
  it('is the Temporal CLI the dev server is started with', async () => {
    const fake = fakeProgram(join(dir, 'cli', 'my-temporal'));
    vi.stubEnv('TEMPORAL_CLI_PATH', fake);
    expect(temporalCliPath()).toBe(fake);
    // The dev server start runs it (it exits at once, so the start fails saying so).
    await expect(
      startDevServer({ port: 1, uiPort: 2, namespace: 'default', startTimeoutMs: 20_000 }),
    ).rejects.toThrow(/exited/);
    expect(readFileSync(`${fake}.args`, 'utf8')).toMatch(/^server start-dev .*--port 1\b/);
  });

  it('that is not an executable file is refused, naming the variable', () => {
    vi.stubEnv('TEMPORAL_CLI_PATH', join(dir, 'missing'));
    expect(() => temporalCliPath()).toThrow(/TEMPORAL_CLI_PATH=.*missing is not an executable file/);
  });
});

describe('TCR_TOOLS_DIR', () => {
  it('is where the built Temporal CLI and test server are looked for', () => {
    const tools = join(dir, 'tools');
    const versions = toolchainVersions();
    const cli = fakeProgram(join(tools, 'temporal-cli', versions.TEMPORAL_CLI_VERSION ?? '', 'temporal'));
    const launcher = fakeProgram(
      join(
        tools,
        'temporal-test-server',
        `${versions.TEMPORAL_TEST_SERVER_VERSION}-${versions.TEMPORAL_TEST_SERVER_PATCH}`,
        'launch',
      ),
    );
    vi.stubEnv('TEMPORAL_CLI_PATH', '');
    vi.stubEnv('TEMPORAL_TEST_SERVER_PATH', '');
    vi.stubEnv('PATH', ''); // no `temporal` on PATH: the built one is used
    vi.stubEnv('TCR_TOOLS_DIR', tools);
    expect(temporalCliPath()).toBe(cli);
    expect(testServerPath()).toBe(launcher);
    vi.stubEnv('TCR_TOOLS_DIR', join(dir, 'empty-tools'));
    expect(existsSync(join(dir, 'empty-tools'))).toBe(false);
    expect(() => temporalCliPath()).toThrow(/empty-tools.*npm run setup/);
    expect(() => testServerPath()).toThrow(/empty-tools.*npm run setup/);
  });
});

describe('TEMPORAL_TEST_SERVER_PATH', () => {
  it('is the test server launcher, and refused when not executable', () => {
    const fake = fakeProgram(join(dir, 'ts', 'my-launch'));
    vi.stubEnv('TEMPORAL_TEST_SERVER_PATH', fake);
    expect(testServerPath()).toBe(fake);
    vi.stubEnv('TEMPORAL_TEST_SERVER_PATH', join(dir, 'nope'));
    expect(() => testServerPath()).toThrow(/TEMPORAL_TEST_SERVER_PATH=.*nope is not an executable file/);
  });
});
