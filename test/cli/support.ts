/** Helpers for the CLI suites: run `tcr` in-process and capture what it prints. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CliDeps } from '../../src/cli/context.js';
import { runCli } from '../../src/cli/run.js';
import { privateBrandFields } from '../support/brand-fixtures.js';
import { tempDir as makeTempDir } from '../support/temp-dir.js';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

export async function tcr(argv: string[], deps: Omit<CliDeps, 'io'> = {}): Promise<CliRun> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, {
    env: {},
    ...deps,
    io: { out: (t) => out.push(t), err: (t) => err.push(t) },
  });
  return { code, stdout: out.join('\n'), stderr: err.join('\n') };
}

export function tempDir(): string {
  return makeTempDir('tcr-cli-test-');
}

export function writeJson(dir: string, name: string, value: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, typeof value === 'string' ? value : JSON.stringify(value, null, 2));
  return path;
}

/** A brand order every simulated registry accepts (PRIVATE_PROFIT: no contact verification). */
export function brandOrder(reference: string, account: string, overrides: Record<string, unknown> = {}) {
  return { reference, account, brand: privateBrandFields(overrides) };
}
