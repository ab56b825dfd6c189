/**
 * A run of the suite leaves nothing in /tmp (test/support/temp-dir.ts): a test file that makes a folder
 * with `mkdtempSync` itself, instead of `tempDir`, must remove it (`rmSync` / `rm`). Three files once
 * left 208 folders behind on one machine, a test secrets file among them.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');

it('every test file that calls mkdtempSync removes what it made, or uses tempDir', () => {
  const leaking = readdirSync(join(root, 'test'), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts') && file !== join('support', 'temp-dir.ts'))
    .filter((file) => {
      const text = readFileSync(join(root, 'test', file), 'utf8');
      return /mkdtempSync\(/.test(text) && !/\brm(Sync)?\(/.test(text);
    });
  expect(leaking).toEqual([]);
});
