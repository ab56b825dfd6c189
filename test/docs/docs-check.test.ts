/**
 * The docs say true things about the tree: every repository path named in README.md and docs/*.md
 * exists, every `tcr` command line shown names a command (and subcommand) the CLI has, whose
 * `--help` succeeds and lists each option the line uses, every `npm run X` / `npm X` shown names a
 * script of package.json, and every `npx tsx <path>` / `node <path>` / `bash <path>` a file that exists.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commands } from '../../src/cli/run.js';
import { tcr } from '../cli/support.js';

const root = join(import.meta.dirname, '..', '..');
const docs = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const text = (doc: string) => readFileSync(join(root, doc), 'utf8');

/** Files an operator creates from an example (they are named, not shipped). */
const CREATED_BY_THE_OPERATOR = new Set([
  'temporal-docker/.env',
  'temporal-docker/secrets/payload-keys.json',
  'temporal-docker/secrets/ingress-public-keys.json',
]);

const PATH = /(?<![\w/.-])((?:src|test|bench|docs|scripts|temporal-docker|examples|\.ci)\/[\w./-]*[\w/])/g;

/** Repository paths a doc names: bare or in code spans, and relative link targets (not globs or templates). */
function namedPaths(doc: string, body: string): string[] {
  const found = new Set<string>();
  for (const m of body.matchAll(PATH)) {
    // A glob or template (`results-*.json`, `results.<time>.json`, `${dir}/x`): not a path to check.
    if (/^[.-]?[*{<$]/.test(body.slice((m.index ?? 0) + m[0].length))) continue;
    found.add(m[1]!);
  }
  for (const m of body.matchAll(/\]\(([^)#\s]+)/g)) {
    const target = m[1]!;
    if (/^[a-z]+:/i.test(target)) continue;
    found.add(normalize(join(dirname(doc), target)));
  }
  return [...found].filter((p) => !CREATED_BY_THE_OPERATOR.has(p));
}

/** `tcr ...` lines: in code blocks (a leading `$ ` and trailing `# comment` dropped) and in code spans. */
function tcrLines(body: string): string[] {
  const lines = new Set<string>();
  let inBlock = false;
  for (const raw of body.split('\n')) {
    if (/^\s*```/.test(raw)) {
      inBlock = !inBlock;
      continue;
    }
    if (inBlock) {
      const line = raw
        .replace(/^\s*\$\s+/, '')
        .replace(/\s+#.*$/, '')
        .trim();
      if (/^(npx )?tcr /.test(line)) lines.add(line.replace(/^npx /, ''));
    } else {
      for (const m of raw.matchAll(/`(tcr [^`]+)`/g)) lines.add(m[1]!.trim());
    }
  }
  return [...lines];
}

/**
 * Shell commands shown: code block lines (a leading `$ ` and trailing `# comment` dropped) and code
 * spans, split at `&&`, `||`, `;` and `|`, with leading `NAME=value` assignments dropped.
 */
function shellCommands(body: string): string[] {
  const lines: string[] = [];
  let inBlock = false;
  for (const raw of body.split('\n')) {
    if (/^\s*```/.test(raw)) {
      inBlock = !inBlock;
      continue;
    }
    if (inBlock) lines.push(raw.replace(/^\s*\$\s+/, '').replace(/\s+#.*$/, ''));
    else for (const m of raw.matchAll(/`([^`]+)`/g)) lines.push(m[1]!);
  }
  const commands = new Set<string>();
  for (const line of lines)
    for (const part of line.split(/&&|\|\||;|\|/)) {
      const command = part.trim().replace(/^(?:[A-Z][A-Z0-9_]*=\S*\s+)+/, '');
      if (/^(npm|npx|node|bash|sh) /.test(command)) commands.add(command);
    }
  return [...commands];
}

/** npm's own commands (not scripts of package.json). */
const NPM_BUILTINS = new Set([
  'install',
  'i',
  'ci',
  'link',
  'exec',
  'pack',
  'publish',
  'audit',
  'ls',
  'view',
  'version',
  'init',
  'outdated',
  'update',
  'uninstall',
  'config',
  'cache',
  'help',
  'rebuild',
  'prune',
  'dedupe',
]);

/** What is wrong with a shell command shown (a missing script or file), or undefined. */
function commandProblem(command: string, scripts: Record<string, string>): string | undefined {
  const words = command.split(/\s+/);
  if (words[0] === 'npm') {
    const script =
      words[1] === 'run' || words[1] === 'run-script'
        ? words.slice(2).find((w) => !w.startsWith('-'))
        : words[1] !== undefined && !words[1].startsWith('-') && !NPM_BUILTINS.has(words[1])
          ? words[1]
          : undefined;
    if (script !== undefined && !Object.hasOwn(scripts, script))
      return `no script '${script}' in package.json`;
    return undefined;
  }
  const program =
    words[0] === 'npx' && words[1] === 'tsx'
      ? words.slice(2)
      : words[0] === 'node' || words[0] === 'bash' || words[0] === 'sh'
        ? words.slice(1)
        : undefined;
  if (!program) return undefined;
  const file = program.find((w) => !w.startsWith('-'));
  if (file === undefined || !/^[\w.][\w./-]*\.(m?[jt]s|sh)$|^[\w.][\w./-]*\//.test(file)) return undefined;
  if (existsSync(join(root, file))) return undefined;
  // dist/ is built from src/ (npm run build): dist/cli/main.js stands for src/cli/main.ts.
  const source = file.replace(/^dist\//, 'src/').replace(/\.js$/, '.ts');
  if (file.startsWith('dist/') && existsSync(join(root, source))) return undefined;
  return `no file ${file}`;
}

/** The command path a line names (`brand register`), and the options it uses (`--json`). */
function parseLine(line: string): { path: string[]; options: string[] } {
  const words = line.split(/\s+/).slice(1);
  const path: string[] = [];
  for (const w of words) {
    if (!/^[a-z][a-z-]*$/.test(w) || path.length === 2) break;
    path.push(w);
  }
  const options = words.flatMap((w) => {
    const m = /^(--[a-z][a-z0-9-]*)/.exec(w);
    return m ? [m[1]!] : [];
  });
  return { path, options };
}

/** The help text of a command path, and whether each level exists. */
async function helpOf(path: string[]): Promise<{ known: boolean; help: string }> {
  const [name, sub] = path;
  if (name === undefined || !Object.hasOwn(commands, name)) return { known: false, help: '' };
  const command = commands[name]!;
  const isGroup = /^Commands:$/m.test(command.help);
  if (!isGroup || sub === undefined) return { known: true, help: command.help };
  if (!new RegExp(`^  ${sub}\\s`, 'm').test(command.help)) return { known: false, help: command.help };
  const run = await tcr([name, sub, '--help']);
  return { known: run.code === 0, help: run.stdout };
}

describe('docs check', () => {
  it('every repository path named in README.md and docs/ exists', () => {
    const missing = docs.flatMap((doc) =>
      namedPaths(doc, text(doc))
        .filter((p) => !existsSync(join(root, p.replace(/:\d+(-\d+)?$/, ''))))
        .map((p) => `${doc}: ${p}`),
    );
    expect(missing).toEqual([]);
  });

  it('every tcr command line shown names a real command whose --help lists the options used', async () => {
    const lines = docs.flatMap((doc) => tcrLines(text(doc)).map((line) => ({ doc, line })));
    expect(lines.length).toBeGreaterThan(20);
    const problems: string[] = [];
    for (const { doc, line } of lines) {
      const { path, options } = parseLine(line);
      const { known, help } = await helpOf(path);
      if (!known) {
        problems.push(`${doc}: ${line} (no such command)`);
        continue;
      }
      for (const option of options)
        if (option !== '--help' && !new RegExp(`${option}(?![a-z-])`).test(help))
          problems.push(`${doc}: ${line} (${option} is not in 'tcr ${path.join(' ')} --help')`);
    }
    expect(problems).toEqual([]);
  });

  it('every npm script and every file run with npx tsx, node or bash shown exists', () => {
    const { scripts } = JSON.parse(text('package.json')) as { scripts: Record<string, string> };
    const shown = docs.flatMap((doc) => shellCommands(text(doc)).map((command) => ({ doc, command })));
    expect(shown.filter((c) => c.command.startsWith('npm ')).length).toBeGreaterThan(10);
    expect(shown.filter((c) => /^(node|bash) /.test(c.command)).length).toBeGreaterThan(5);
    const problems = shown.flatMap(({ doc, command }) => {
      const problem = commandProblem(command, scripts);
      return problem ? [`${doc}: ${command} (${problem})`] : [];
    });
    expect(problems).toEqual([]);
  });

  it('the checks find what they look for', () => {
    expect(
      shellCommands(
        'run `npm test`, then\n```sh\n$ TCR_QUIET=1 npm run build && node dist/cli/main.js dev   # note\nls | bash scripts/x.sh\n```\n',
      ),
    ).toEqual(['npm test', 'npm run build', 'node dist/cli/main.js dev', 'bash scripts/x.sh']);
    const scripts = { build: 'tsc', test: 'vitest', start: 'node x' };
    expect(commandProblem('npm run bild', scripts)).toBe("no script 'bild' in package.json");
    expect(commandProblem('npm run --silent build', scripts)).toBeUndefined();
    expect(commandProblem('npm tset', scripts)).toBe("no script 'tset' in package.json");
    expect(commandProblem('npm ci --ignore-scripts', scripts)).toBeUndefined();
    expect(commandProblem('npm start -- --port 7300', scripts)).toBeUndefined();
    expect(commandProblem('node dist/cli/main.js dev', scripts)).toBeUndefined();
    expect(commandProblem('node dist/cli/nowhere.js', scripts)).toBe('no file dist/cli/nowhere.js');
    expect(commandProblem('bash scripts/nowhere.sh', scripts)).toBe('no file scripts/nowhere.sh');
    expect(commandProblem('npx tsx bench/nowhere.ts', scripts)).toBe('no file bench/nowhere.ts');

    expect(
      namedPaths(
        'docs/x.md',
        'see `src/nowhere.ts` and [it](../src/cli/run.ts), not `test/drills/*.test.ts` or `bench/x/results.<time>.json`',
      ),
    ).toEqual(['src/nowhere.ts', 'src/cli/run.ts']);
    expect(
      tcrLines('text `tcr status ref`\n```sh\n$ tcr brand register x.json --json   # note\nls\n```\n'),
    ).toEqual(['tcr status ref', 'tcr brand register x.json --json']);
  });
});
