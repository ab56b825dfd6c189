/**
 * The CSP account a command's bare REF is of (issue 35: references are unique only within an
 * account, workflow ids are `{kind}/{account}/{reference}`): `--account`, else TCR_ACCOUNT, else the
 * local stack's account when the CLI talks to the stack `tcr dev` started (its data folder names the
 * address). Without one, a bare REF is resolved by the order client (a legacy `{kind}/{REF}` workflow
 * of an earlier release), or refused naming --account.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { accountNamePattern } from '../contracts/task-queues.js';
import { CLI_PROFILE_FILE_NAME } from '../stack/codec.js';
import { LOCAL_ACCOUNT_NAME } from '../stack/options.js';
import { localStackAddress, localStackDataDir, normalAddress } from './cli-keys.js';
import { CliError, ExitCode } from './errors.js';

type Env = Record<string, string | undefined>;

export function cliAccounts(flag: string | undefined, env: Env, address: string): string[] {
  const given = flag ?? (env.TCR_ACCOUNT || undefined);
  if (given !== undefined) {
    if (!accountNamePattern.test(given))
      throw new CliError(
        `${flag !== undefined ? '--account' : 'TCR_ACCOUNT'}: not an account name (letters, digits, . _ -, up to 64)`,
        ExitCode.usage,
      );
    return [given];
  }
  const dataDir = localStackDataDir(env);
  if (!existsSync(join(dataDir, CLI_PROFILE_FILE_NAME))) return [];
  const stack = localStackAddress(dataDir);
  return stack !== undefined && normalAddress(stack) === normalAddress(address) ? [LOCAL_ACCOUNT_NAME] : [];
}
