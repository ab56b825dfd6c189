/**
 * Files that hold secrets (payload keys, registry credentials, webhook secrets) are readable by their
 * owner only, and are written so that no one else can read or redirect them on the way.
 */
import { randomBytes } from 'node:crypto';
import { renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';

/**
 * A secret file must be readable by its owner only: refuse it when group or others have any access
 * (`chmod 600` fixes it). Returns a problem, or undefined.
 */
export function secretFileProblem(variable: string, path: string): string | undefined {
  let mode: number;
  try {
    mode = statSync(path).mode;
  } catch (error) {
    return `${variable} (${path}): cannot read the file (${(error as NodeJS.ErrnoException).code ?? 'error'})`;
  }
  if ((mode & 0o077) !== 0)
    return `${variable} (${path}): the file is readable or writable by group or others (mode ${(mode & 0o777).toString(8).padStart(4, '0')}); it holds secrets: run chmod 600 ${path}`;
  return undefined;
}

/**
 * Replaces `path` with `text` in one rename, through a temporary file of a random name created
 * exclusively (O_EXCL: a planted file or symlink is never followed) with mode 0600.
 */
export function writeSecretFile(path: string, text: string): void {
  const temporary = `${path}.${randomBytes(8).toString('hex')}.tmp`;
  writeFileSync(temporary, text, { mode: 0o600, flag: 'wx' });
  try {
    renameSync(temporary, path);
  } catch (error) {
    unlinkSync(temporary);
    throw error;
  }
}
