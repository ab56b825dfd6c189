/**
 * Where a module of the product is on disk: the build's .js next to this file's (dist/), or the .ts
 * source when running from src (tests). For the paths handed to the workflow bundler.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** `path` is under src/ (or dist/), without extension: `workflows/index`, `contracts/ids`. */
export function moduleFile(path: string): string {
  const built = fileURLToPath(new URL(`../${path}.js`, import.meta.url));
  return existsSync(built) ? built : fileURLToPath(new URL(`../${path}.ts`, import.meta.url));
}
