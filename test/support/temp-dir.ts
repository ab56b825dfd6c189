/**
 * Temporary folders for tests: made under the system's temporary directory and removed after the
 * test file's last test (the setup file test/support/remove-temp-dirs.ts registers that for every test
 * file), so a run of the suite leaves nothing behind in /tmp.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made = new Set<string>();

/** A new empty folder named `prefix` + random characters; removed after the file's tests. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.add(dir);
  return dir;
}

/** Removes every folder `tempDir` made so far. */
export function removeTempDirs(): void {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
  made.clear();
}
