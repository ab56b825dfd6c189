/** Finds Debian's Chromium for the Web UI test and runs it headless. */
import { execFile } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export function findChromium(): string | undefined {
  const candidates = [process.env.CHROMIUM_PATH];
  for (const dir of (process.env.PATH ?? '').split(delimiter))
    if (dir) candidates.push(join(dir, 'chromium'), join(dir, 'chromium-browser'));
  for (const c of candidates) {
    if (!c) continue;
    try {
      accessSync(c, constants.X_OK);
      return c;
    } catch {}
  }
  return undefined;
}

/** Headless, quiet, and with a profile of its own: how every test starts Chromium. */
export function headlessArgs(userDataDir: string): string[] {
  return [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    `--user-data-dir=${userDataDir}`,
  ];
}

function baseArgs(userDataDir: string): string[] {
  return [...headlessArgs(userDataDir), '--virtual-time-budget=15000'];
}

/** The rendered DOM of `url` after the page's scripts ran. */
export async function dumpDom(chromium: string, userDataDir: string, url: string): Promise<string> {
  const { stdout } = await run(chromium, [...baseArgs(userDataDir), '--dump-dom', url], {
    maxBuffer: 64 * 1024 * 1024,
    timeout: 90_000,
  });
  return stdout;
}

export async function screenshot(
  chromium: string,
  userDataDir: string,
  url: string,
  file: string,
): Promise<void> {
  await run(chromium, [...baseArgs(userDataDir), `--screenshot=${file}`, '--window-size=1400,900', url], {
    timeout: 90_000,
  });
}
