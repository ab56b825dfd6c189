/**
 * Writes a benchmark's results as JSON and formats the file with the project's Biome, so a rerun
 * leaves a file `npm run check` accepts. Every run writes a new file named after the time it was
 * written (`results-kill.json` → `results-kill.2026-11-25T081500Z.json`, UTC) and never overwrites
 * one: the figures in docs/benchmarks.md name the file they come from, and
 * test/docs/benchmark-figures.test.ts checks them against it.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { projectRoot } from '../../src/toolchain/paths.js';

/** `results-kill.json` → `results-kill.2026-11-25T081500Z.json` (UTC, to the second). */
export function datedResultsPath(path: string, at: Date = new Date()): string {
  const stamp = `${at.toISOString().slice(0, 19).replace(/:/g, '')}Z`;
  return path.replace(/(\.json)?$/, `.${stamp}.json`);
}

/** Writes `results` next to `file` under a dated name (fails rather than overwrite); returns the path. */
export function writeResults(file: URL, results: unknown): string {
  const path = datedResultsPath(fileURLToPath(file));
  writeFileSync(path, `${JSON.stringify(results, null, 2)}\n`, { flag: 'wx' });
  try {
    execFileSync(join(projectRoot, 'node_modules/.bin/biome'), ['format', '--write', path], {
      stdio: 'ignore',
    });
  } catch {
    // formatting is cosmetic: the figures are written either way
  }
  console.log(`results written to ${path}`);
  return path;
}
