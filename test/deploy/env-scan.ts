/**
 * Finds every environment variable the product reads, by scanning src/ (so a variable added
 * tomorrow is caught by the deployment tests without anyone updating a list):
 *
 * - every `TCR_*` / `TEMPORAL_*` name written anywhere in the source (reads through `process.env`,
 *   an `env` record, zod schemas keyed by variable name, help texts), minus the few names below
 *   that are not environment variables;
 * - any other name read as `process.env.X`, `env.X` or `env['X']` (for example `NODE_ENV`);
 * - families built from a template: `` `TCR_REGISTRY_${env}_` `` + `` `${prefix}BASE_URL` `` gives
 *   `TCR_REGISTRY_<ENV>_BASE_URL`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/** Names that look like variables but are not read from the environment, and why. */
export const NOT_ENVIRONMENT: Record<string, string> = {
  TEMPORAL_CLI_VERSION: 'a key of scripts/toolchain.env, read with toolchainVersions()',
  TEMPORAL_TEST_SERVER_VERSION: 'a key of scripts/toolchain.env, read with toolchainVersions()',
  TEMPORAL_TEST_SERVER_PATCH: 'a key of scripts/toolchain.env, read with toolchainVersions()',
};

/** System variables the product reads that the deployment does not configure. */
export const SYSTEM_VARIABLES: Record<string, string> = {
  PATH: 'searched for a `temporal` executable by `tcr dev`',
  USER: 'default approver name of `tcr campaign approve-fee`',
  LOGNAME: 'default approver name of `tcr campaign approve-fee` when USER is unset',
};

export interface EnvScan {
  /** Variable name → source files (relative to root) that mention it. */
  variables: Map<string, string[]>;
  /** Names read through `process.env.X` / `env.X` / `env['X']` (a subset of `variables`' keys). */
  directReads: Set<string>;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|mts|cts)$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

const PREFIXED = /\b(?:TCR|TEMPORAL)_[A-Z0-9_]*[A-Z0-9]\b/g;
const DIRECT_DOT = /(?:process\.env|\benv)\.([A-Z_][A-Z0-9_]*)\b/g;
const DIRECT_INDEX = /(?:process\.env|\benv)\[\s*['"]([A-Z_][A-Z0-9_]*)['"]\s*\]/g;
const FAMILY_PREFIX = /`((?:TCR|TEMPORAL)_[A-Z0-9_]*_)\$\{[^}`]+\}_`/g;
const FAMILY_SUFFIX = /`\$\{\w+\}([A-Z][A-Z0-9_]*)`/g;

export function scanEnvironmentVariables(root: string): EnvScan {
  const variables = new Map<string, string[]>();
  const directReads = new Set<string>();
  const add = (name: string, file: string) => {
    if (Object.hasOwn(NOT_ENVIRONMENT, name)) return;
    const files = variables.get(name) ?? [];
    if (!files.includes(file)) files.push(file);
    variables.set(name, files);
  };
  for (const path of sourceFiles(join(root, 'src'))) {
    const file = relative(root, path);
    const text = readFileSync(path, 'utf8');
    for (const m of text.matchAll(PREFIXED)) add(m[0], file);
    for (const re of [DIRECT_DOT, DIRECT_INDEX]) {
      for (const m of text.matchAll(re)) {
        const name = m[1] as string;
        directReads.add(name);
        add(name, file);
      }
    }
    const prefixes = [...text.matchAll(FAMILY_PREFIX)].map((m) => m[1] as string);
    if (prefixes.length > 0) {
      const suffixes = [...text.matchAll(FAMILY_SUFFIX)].map((m) => m[1] as string);
      for (const prefix of prefixes) for (const suffix of suffixes) add(`${prefix}<ENV>_${suffix}`, file);
    }
  }
  return { variables, directReads };
}
