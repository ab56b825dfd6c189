/**
 * A test that needs a tool the machine may lack (Chromium, PyYAML, a mount namespace): on a
 * developer's machine without it the test skips and its name says what is missing and how the
 * project's setup installs it; under CI (`.ci/run` exports CI=true) it runs and fails with that same
 * message. Nothing the README promises is skipped in CI. test/layout/ci-run.test.ts holds every skip in
 * test/ to this helper or to its allow-list of tests that do not apply, with reasons.
 *
 *   const browser = requirement('chromium', findChromium(), 'bash scripts/setup-browser.sh installs it');
 *   it.skipIf(browser.skip)(`the Web UI ...${browser.note}`, async () => { const path = browser.check(); ... });
 */

/** Whether CI is set: any value but empty, `0` or `false` (GitHub, GitLab and `.ci/run` set `true`). */
export function isCi(env: NodeJS.ProcessEnv = process.env): boolean {
  const value = (env.CI ?? '').trim().toLowerCase();
  return value !== '' && value !== '0' && value !== 'false';
}

export interface Requirement<T> {
  /** The tool is missing. */
  readonly missing: boolean;
  /** Skip the test: the tool is missing and CI is not set. */
  readonly skip: boolean;
  /** To append to the test's name: why it is skipped, or '' when it runs. */
  readonly note: string;
  /** The tool found; throws, naming the tool and how setup installs it, when it is missing (under CI). */
  check(): T;
}

/**
 * @param what the missing thing, as a user would name it ("chromium", "PyYAML for python3")
 * @param found what the machine has of it (a path, options...), undefined when it is missing
 * @param install how the project's own setup installs it (a command a user can run)
 */
export function requirement<T>(
  what: string,
  found: T | undefined,
  install: string,
  env: NodeJS.ProcessEnv = process.env,
): Requirement<T> {
  const missing = found === undefined;
  const skip = missing && !isCi(env);
  return {
    missing,
    skip,
    note: skip ? ` (skipped: ${what} is missing and CI is not set; ${install})` : '',
    check(): T {
      if (found === undefined)
        throw new Error(`${what} is missing, and under CI this test fails rather than skip: ${install}`);
      return found;
    },
  };
}
