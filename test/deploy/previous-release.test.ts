/**
 * scripts/previous-release names the release the upgrade drill starts from (docs/workflows.md,
 * "Upgrade drill"): one `TAG COMMIT` line whose commit this clone has, an ancestor of HEAD, and the tag
 * (where the clone has it) on that commit. A wrong line would make the drill build something else or
 * nothing; this says so without building.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const git = (...args: string[]) =>
  execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

function previousRelease(text: string): { tag: string; commit: string } {
  const lines = text.split('\n').filter((line) => line.trim() !== '' && !line.startsWith('#'));
  expect(lines, 'exactly one TAG COMMIT line').toHaveLength(1);
  const [tag = '', commit = '', ...rest] = (lines[0] ?? '').trim().split(/\s+/);
  expect(rest, 'TAG COMMIT, nothing more').toEqual([]);
  expect(tag).toMatch(/^release-\d{4}-\d{2}-\d{2}\.\d+$/);
  expect(commit).toMatch(/^[0-9a-f]{40}$/);
  return { tag, commit };
}

describe('scripts/previous-release', () => {
  const { tag, commit } = previousRelease(readFileSync(join(root, 'scripts/previous-release'), 'utf8'));

  it('names a commit of this clone that HEAD descends from', () => {
    expect(git('cat-file', '-t', commit)).toBe('commit');
    expect(() => git('merge-base', '--is-ancestor', commit, 'HEAD')).not.toThrow();
  });

  it('names the commit its tag points at, where the clone has the tag', () => {
    let tagged: string | undefined;
    try {
      tagged = git('rev-parse', '-q', '--verify', `refs/tags/${tag}^{commit}`);
    } catch {
      tagged = undefined; // a clone without tags: the commit alone decides
    }
    if (tagged !== undefined) expect(tagged).toBe(commit);
  });

  it('rejects a line that is not TAG COMMIT', () => {
    expect(() => previousRelease('# comment\nrelease-2026-11-28.1\n')).toThrow();
    expect(() => previousRelease('release-2026-11-28.1 2c62557\n')).toThrow();
  });
});
