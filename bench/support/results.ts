/**
 * Writes a benchmark's results as JSON and formats the file with the project's Biome, so a rerun
 * leaves a file `npm run check` accepts.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { projectRoot } from '../../src/toolchain/paths.js';

export function writeResults(file: URL, results: unknown): void {
  const path = fileURLToPath(file);
  writeFileSync(path, `${JSON.stringify(results, null, 2)}\n`);
  try {
    execFileSync(join(projectRoot, 'node_modules/.bin/biome'), ['format', '--write', path], {
      stdio: 'ignore',
    });
  } catch {
    // formatting is cosmetic: the figures are written either way
  }
}
