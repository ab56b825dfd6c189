import { accessSync, constants, readFileSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The project's root folder (this file lives in src/toolchain or dist/toolchain). */
export const projectRoot = resolve(fileURLToPath(new URL('../..', import.meta.url)));

/** Pinned versions from scripts/toolchain.env, the one place they are written. */
export function toolchainVersions(): Record<string, string> {
  const text = readFileSync(join(projectRoot, 'scripts', 'toolchain.env'), 'utf8');
  const versions: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const match = /^([A-Z0-9_]+)=(.*)$/.exec(line.trim());
    if (match?.[1] && match[2] !== undefined) versions[match[1]] = match[2];
  }
  return versions;
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

export function toolsDir(): string {
  return process.env.TCR_TOOLS_DIR ?? join(projectRoot, '.tools');
}

const runSetup = 'Run `npm run setup` (npm start and npm test run it for you).';

/**
 * The Temporal CLI to run the dev server with: TEMPORAL_CLI_PATH, else `temporal` on PATH, else the
 * one scripts/setup.sh built. The same order as the setup script, so the two never disagree.
 */
export function temporalCliPath(): string {
  const fromEnv = process.env.TEMPORAL_CLI_PATH;
  if (fromEnv) {
    if (!isExecutable(fromEnv)) throw new Error(`TEMPORAL_CLI_PATH=${fromEnv} is not an executable file`);
    return fromEnv;
  }
  const found = onPath('temporal');
  if (found) return found;
  const built = join(toolsDir(), 'temporal-cli', toolchainVersions().TEMPORAL_CLI_VERSION ?? '', 'temporal');
  if (isExecutable(built)) return built;
  throw new Error(`The Temporal CLI is not built yet (looked for ${built}). ${runSetup}`);
}

/** The launcher of the Java time-skipping test server: TEMPORAL_TEST_SERVER_PATH, else the built one. */
export function testServerPath(): string {
  const fromEnv = process.env.TEMPORAL_TEST_SERVER_PATH;
  if (fromEnv) {
    if (!isExecutable(fromEnv))
      throw new Error(`TEMPORAL_TEST_SERVER_PATH=${fromEnv} is not an executable file`);
    return fromEnv;
  }
  const { TEMPORAL_TEST_SERVER_VERSION: version = '', TEMPORAL_TEST_SERVER_PATCH: patch = '' } =
    toolchainVersions();
  const built = join(toolsDir(), 'temporal-test-server', `${version}-${patch}`, 'launch');
  if (isExecutable(built)) return built;
  throw new Error(`The Temporal test server is not built yet (looked for ${built}). ${runSetup}`);
}
