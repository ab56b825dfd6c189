/**
 * CI skips nothing (issue 37, item 2). `.ci/run` exports CI=true itself, whatever its caller's
 * environment, and runs the README's test command with it; every skip in test/ is either a
 * requirement (test/support/ci-requirement.ts: skipped on a developer's machine that lacks the tool,
 * naming it and its setup, and failing under CI) or on the allow-list below of tests that do not apply,
 * each with its reason, which the test's name also gives when it skips.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isCi, requirement } from '../support/ci-requirement.js';
import { tempDir } from '../support/temp-dir.js';

const root = join(import.meta.dirname, '..', '..');
const ciRun = readFileSync(join(root, '.ci/run'), 'utf8');
const readme = readFileSync(join(root, 'README.md'), 'utf8');

/** The README's test command: the first command in backquotes of its "## Tests" section. */
function readmeTestCommand(): string {
  const start = readme.indexOf('\n## Tests\n');
  if (start < 0) throw new Error('README.md has no "## Tests" section');
  const command = /`(npm [^`]+)`/.exec(readme.slice(start))?.[1];
  if (!command) throw new Error('README.md\'s "## Tests" section names no npm command');
  return command;
}

/**
 * Runs a copy of `.ci/run` in a folder where every `bash scripts/X` it calls, and `npm`, only write
 * a line to a log: the command and the CI it saw. Returns the log's lines.
 */
function dryRun(ci: string | undefined): string[] {
  const dir = tempDir('tcr-ci-run-');
  const log = join(dir, 'log');
  mkdirSync(join(dir, '.ci'));
  mkdirSync(join(dir, 'scripts'));
  mkdirSync(join(dir, 'bin'));
  copyFileSync(join(root, '.ci/run'), join(dir, '.ci/run'));
  const record = (name: string) =>
    `#!/usr/bin/env bash\nprintf '%s\\n' "${name} $* CI=\${CI-unset}" | sed 's/  */ /g' >>"${log}"\n`;
  const scripts = [...new Set([...ciRun.matchAll(/\bbash (scripts\/[\w.-]+)/g)].map((m) => m[1] ?? ''))];
  for (const script of scripts) writeFileSync(join(dir, script), record(script));
  for (const tool of ['npm', 'npx']) {
    writeFileSync(join(dir, 'bin', tool), record(tool));
    chmodSync(join(dir, 'bin', tool), 0o755);
  }
  const env: NodeJS.ProcessEnv = { PATH: `${join(dir, 'bin')}:/usr/bin:/bin`, HOME: dir };
  if (ci !== undefined) env.CI = ci;
  execFileSync('bash', [join(dir, '.ci/run')], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  return readFileSync(log, 'utf8').trim().split('\n');
}

describe('.ci/run', () => {
  it('is valid bash', () => {
    execFileSync('bash', ['-n', join(root, '.ci/run')]);
  });

  for (const ci of [undefined, '', 'false', '0']) {
    it(`exports CI=true to every step, with CI ${ci === undefined ? 'unset' : `'${ci}'`} in its caller's environment`, () => {
      const lines = dryRun(ci);
      expect(lines.length).toBeGreaterThan(3);
      for (const line of lines) expect(line, line).toMatch(/ CI=true$/);
    });
  }

  it("runs the README's test command, after the browser and the test tools are installed", () => {
    const command = readmeTestCommand();
    expect(command).toBe('npm test');
    const lines = dryRun(undefined);
    const test = lines.indexOf(`${command} CI=true`);
    expect(test, lines.join('\n')).toBeGreaterThan(0);
    const tools = lines.findIndex((line) => line.startsWith('scripts/setup-test-tools.sh '));
    expect(tools, 'scripts/setup-test-tools.sh runs').toBeGreaterThanOrEqual(0);
    expect(tools).toBeLessThan(test);
  });

  it("runs the image's Node subset (scripts/test-on-image-node.sh --ci-subset), the choice docs/operations.md gives", () => {
    const lines = dryRun(undefined);
    expect(lines).toContain('scripts/test-on-image-node.sh --ci-subset CI=true');
    const operations = readFileSync(join(root, 'docs/operations.md'), 'utf8');
    expect(operations).toContain('scripts/test-on-image-node.sh --ci-subset');
  });
});

describe('requirement (test/support/ci-requirement.ts)', () => {
  it('skips a test whose tool is missing only when CI is not set, and says why in its name', () => {
    const local = requirement('chromium', undefined, 'bash scripts/setup-browser.sh', {});
    expect(local.skip).toBe(true);
    expect(local.note).toBe(
      ' (skipped: chromium is missing and CI is not set; bash scripts/setup-browser.sh)',
    );
    const ci = requirement('chromium', undefined, 'bash scripts/setup-browser.sh', { CI: 'true' });
    expect(ci.skip).toBe(false);
    expect(ci.note).toBe('');
    expect(() => ci.check()).toThrow(
      'chromium is missing, and under CI this test fails rather than skip: bash scripts/setup-browser.sh',
    );
    const present = requirement('chromium', '/usr/bin/chromium', 'bash scripts/setup-browser.sh', {});
    expect([present.missing, present.skip, present.note]).toEqual([false, false, '']);
    expect(present.check()).toBe('/usr/bin/chromium');
  });

  it('reads CI as set for any value but empty, 0 and false', () => {
    expect([undefined, '', '0', 'false', 'FALSE'].map((CI) => isCi(CI === undefined ? {} : { CI }))).toEqual([
      false,
      false,
      false,
      false,
      false,
    ]);
    expect(['true', '1', 'yes'].map((CI) => isCi({ CI }))).toEqual([true, true, true]);
  });
});

/** Tests that may skip because they do not apply; their names say why when they skip. */
const NOT_APPLICABLE: Record<string, string> = {
  'test/cluster/cluster.test.ts':
    'runs only with TCR_CLUSTER=1: it needs PostgreSQL, nginx and the Temporal server that scripts/setup-cluster.sh builds; CI runs it as its own step, scripts/cluster-test.sh',
};

/** Every skip-like construct in a test file, with the text that follows it. */
const SKIP = /\.(skip|skipIf|runIf|todo|only)\s*\(|[{,]\s*(skip|todo|only)\s*:\s*(true\b|!)/g;

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'histories' ? [] : testFiles(path);
    return /\.ts$/.test(entry.name) ? [relative(root, path)] : [];
  });
}

/**
 * A skip call followed by its title: the condition's text and the title's literal (quotes included).
 * A title given by a name (`title`), and each `${name}` in it, is looked up as `const name = …` in `text`.
 */
function skipCall(after: string, text: string): { condition: string; title: string } | undefined {
  const open = after.indexOf('(');
  let depth = 0;
  let close = open;
  for (; close < after.length; close++) {
    if (after[close] === '(') depth++;
    else if (after[close] === ')' && --depth === 0) break;
  }
  const constant = (name: string) =>
    new RegExp(`\\bconst ${name} =\\s*([\\s\\S]*?);\\n`).exec(text)?.[1] ?? '';
  const given = /^\(\s*(`[^`]*`|'[^']*'|\w+)\s*,/.exec(after.slice(close + 1))?.[1];
  if (given === undefined) return undefined;
  const literal = /^\w+$/.test(given) ? constant(given) : given;
  const title = literal.replace(/\$\{(\w+)\}/g, (whole, name: string) => `${whole}${constant(name)}`);
  return { condition: after.slice(open + 1, close).trim(), title };
}

describe('skips in test/', () => {
  const found = testFiles(join(root, 'test')).flatMap((file) => {
    const text = readFileSync(join(root, file), 'utf8');
    return [...text.matchAll(SKIP)].map((m) => ({ file, text, construct: m[0], after: text.slice(m.index) }));
  });

  it('are each a requirement that fails under CI, or a test that does not apply (allow-listed, its name saying why)', () => {
    const problems: string[] = [];
    for (const { file, text, construct, after } of found) {
      const where = `${file}: ${construct.trim()}`;
      const call = skipCall(after, text);
      // A requirement: skipIf on x.skip, the title carrying x.note, x made by requirement() and x.check() called.
      const req = call && /^(\w+)\.skip$/.exec(call.condition)?.[1];
      if (call && req && construct.startsWith('.skipIf') && call.title.includes(`\${${req}.note}`)) {
        if (!new RegExp(`\\b${req} = requirement\\(`).test(text))
          problems.push(`${where}: ${req} is not made by requirement() (test/support/ci-requirement.ts)`);
        if (!new RegExp(`\\b${req}\\.check\\(\\)`).test(text))
          problems.push(
            `${where}: ${req}.check() is never called, so it would pass under CI without the tool`,
          );
        continue;
      }
      if (!Object.hasOwn(NOT_APPLICABLE, file)) {
        problems.push(
          `${where}: skips without failing under CI; use requirement() (test/support/ci-requirement.ts), or allow-list it here with the reason it does not apply`,
        );
        continue;
      }
      if (!/^\.(skipIf|runIf)\(/.test(construct) || !call?.title.includes('(skipped: '))
        problems.push(
          `${where}: an allowed skip is a skipIf/runIf whose name says "(skipped: why)" when it skips`,
        );
    }
    expect(problems).toEqual([]);
  });

  it('the allow-list names only files that still skip', () => {
    const skipping = new Set(found.map((f) => f.file));
    expect(Object.keys(NOT_APPLICABLE).filter((file) => !skipping.has(file))).toEqual([]);
  });
});

describe('quiet tests (scripts/check-test-output.sh)', () => {
  const check = (lines: number) => {
    const dir = tempDir('tcr-quiet-');
    const file = join(dir, 'npm-test.log');
    writeFileSync(file, Array.from({ length: lines }, (_, i) => `line ${i}\n`).join(''));
    try {
      execFileSync('bash', [join(root, 'scripts/check-test-output.sh'), file], { stdio: 'pipe' });
      return 0;
    } catch (error) {
      return (error as { status: number }).status;
    }
  };

  it('passes 300 lines of npm test output and fails 301', () => {
    expect(check(300)).toBe(0);
    expect(check(301)).toBe(1);
  });

  it("is run by .ci/run on npm test's captured output, right after it", () => {
    const lines = dryRun(undefined);
    const test = lines.indexOf('npm test CI=true');
    expect(lines[test + 1]).toBe('scripts/check-test-output.sh test-results/npm-test.log CI=true');
    expect(ciRun).toContain('npm test 2>&1 | tee test-results/npm-test.log');
  });
});
