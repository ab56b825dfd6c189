/**
 * README.md's architecture table and its folder tree name every folder under src/, and name no
 * folder that is not there (issue 20: "the README's architecture table and the folder tree agree").
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const folders = readdirSync(join(root, 'src'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

/** The text of a `## Title` section, up to the next `## `. */
function section(title: string): string {
  const start = readme.indexOf(`\n## ${title}\n`);
  if (start < 0) throw new Error(`README.md has no "## ${title}" section`);
  const end = readme.indexOf('\n## ', start + 1);
  return readme.slice(start, end < 0 ? undefined : end);
}

/** The top-level src/ folders a text names (`src/x`, `src/x/…`). */
function named(text: string): string[] {
  return [
    ...new Set([...text.matchAll(/\bsrc\/([a-z][a-z0-9-]*)(?=[/`\s,)])/g)].map((m) => m[1] ?? '')),
  ].sort();
}

describe('README layout', () => {
  it('the folder tree under "Layout" names every src/ folder, and only those', () => {
    const tree = section('Layout');
    const rows = [...tree.matchAll(/^src\/([a-z][a-z0-9-]*)\//gm)].map((m) => m[1] ?? '').sort();
    expect(rows).toEqual(folders);
  });

  it('the architecture table names every src/ folder, and only those', () => {
    expect(named(section('Architecture'))).toEqual(folders);
  });
});
