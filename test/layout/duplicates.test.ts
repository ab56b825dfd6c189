/**
 * Code written twice (issue 20): every file under src/ and test/ is read as its significant lines (trimmed,
 * whitespace collapsed; blank lines, comments, imports, lines of brackets alone and bare names in a
 * list such as an object literal's shorthand fields left out), each run
 * of WINDOW such lines is hashed, and two places with the same hashes for consecutive windows are one
 * duplicated block. Declarative data and schemas are left out (IGNORED). No dependency: a small
 * script of its own, like the import test.
 *
 * The duplicates the code still has are listed in ./duplicates-baseline.txt, one a line, each as
 * "fileA <-> fileB #hash" (the hash of the duplicated lines). A duplicate not listed fails, naming both
 * places; so does a listed one the code no longer has (remove it: the list only shrinks). Changing the
 * lines of a listed duplicate changes its hash: fix the duplicate rather than re-list it.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');

/** Lines in a window: a duplicated block has at least this many significant lines. */
const WINDOW = 6;

/** The trees checked, as paths from the repository's root. */
const TREES = ['src', 'test'] as const;

/** Declarative data and schemas: long, regular, and alike by nature. */
const IGNORED: readonly string[] = [
  'src/registry/schemas.ts',
  'src/simulator/reference-data.ts',
  'src/simulator/brand-schemas.ts',
  'src/simulator/campaign-schemas.ts',
];

interface SignificantLine {
  /** 1-based line number in the file. */
  line: number;
  text: string;
}

/** The lines that carry code: no blank, comment, import or bracket-only line. */
function significantLines(source: string): SignificantLine[] {
  const lines: SignificantLine[] = [];
  let inComment = false;
  let inImport = false;
  source.split('\n').forEach((raw, i) => {
    const text = raw.trim().replace(/\s+/g, ' ');
    if (inComment) {
      if (text.includes('*/')) inComment = false;
      return;
    }
    if (text.startsWith('/*')) {
      inComment = !text.includes('*/');
      return;
    }
    if (inImport) {
      if (/\bfrom\s+['"]/.test(text)) inImport = false;
      return;
    }
    if (/^(import|export)\b.*\bfrom\s+['"]/.test(text) || /^import\s+['"]/.test(text)) return;
    if (/^(import|export)( type)? \{$/.test(text)) {
      inImport = true;
      return;
    }
    if (text === '' || text.startsWith('//') || /^[\s{}()[\];,.]*$/.test(text)) return;
    // A bare name in a list (`input,`): the shorthand fields of an object literal, not logic.
    if (/^[\w$]+,?$/.test(text)) return;
    lines.push({ line: i + 1, text });
  });
  return lines;
}

interface Duplicate {
  /** "fileA <-> fileB #hash": stable while the duplicated lines and the two files stay. */
  key: string;
  /** Where, with line ranges: "fileA:10-25 and fileB:40-55". */
  where: string;
}

function hash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 12);
}

/** The duplicated blocks across the files (path → source), each maximal run of matching windows once. */
function findDuplicates(files: ReadonlyMap<string, string>): Duplicate[] {
  const lines = new Map<string, SignificantLine[]>();
  for (const [path, source] of files) lines.set(path, significantLines(source));
  // window hash → every place it starts (file, index of its first significant line)
  const places = new Map<string, { file: string; at: number }[]>();
  for (const [file, ls] of lines)
    for (let at = 0; at + WINDOW <= ls.length; at++) {
      const key = hash(
        ls
          .slice(at, at + WINDOW)
          .map((l) => l.text)
          .join('\n'),
      );
      places.set(key, [...(places.get(key) ?? []), { file, at }]);
    }
  // every pair of places with the same window: "fileA at a" matches "fileB at b"
  const pairs = new Set<string>();
  for (const group of places.values())
    for (let i = 0; i < group.length; i++)
      for (let j = i + 1; j < group.length; j++) {
        const [p, q] = [group[i]!, group[j]!];
        if (p.file === q.file && Math.abs(p.at - q.at) < WINDOW) continue; // overlapping: a repetition
        const [a, b] = p.file < q.file || (p.file === q.file && p.at < q.at) ? [p, q] : [q, p];
        pairs.add(`${a.file}\u0000${a.at}\u0000${b.file}\u0000${b.at}`);
      }
  // runs of consecutive matching windows are one block, reported from its first window
  const found: Duplicate[] = [];
  for (const pair of pairs) {
    const [fa = '', at = '', fb = '', bt = ''] = pair.split('\u0000');
    const [a, b] = [Number(at), Number(bt)];
    if (pairs.has(`${fa}\u0000${a - 1}\u0000${fb}\u0000${b - 1}`)) continue; // not the first window
    let length = WINDOW;
    while (pairs.has(`${fa}\u0000${a + length - WINDOW + 1}\u0000${fb}\u0000${b + length - WINDOW + 1}`))
      length++;
    const la = lines.get(fa)!;
    const lb = lines.get(fb)!;
    const text = la
      .slice(a, a + length)
      .map((l) => l.text)
      .join('\n');
    found.push({
      key: `${fa} <-> ${fb} #${hash(text)}`,
      where: `${fa}:${la[a]!.line}-${la[a + length - 1]!.line} and ${fb}:${lb[b]!.line}-${lb[b + length - 1]!.line}`,
    });
  }
  return found.sort((x, y) => x.key.localeCompare(y.key));
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The baseline's entries: one key a line; blank lines and lines starting with # are comments. */
function baseline(): string[] {
  return readFileSync(join(import.meta.dirname, 'duplicates-baseline.txt'), 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
}

describe('duplicate code', () => {
  const files = new Map(
    TREES.flatMap((tree) => sourceFiles(join(root, tree)))
      .map((file) => [relative(root, file), readFileSync(file, 'utf8')] as const)
      .filter(([path]) => !IGNORED.includes(path)),
  );
  const duplicates = findDuplicates(files);

  it('no duplicated block of 6 or more significant lines in src/ and test/, outside the baseline', () => {
    const listed = new Set(baseline());
    const added = duplicates.filter((d) => !listed.has(d.key)).map((d) => `${d.key}  (${d.where})`);
    expect(added, 'new duplicates (both places named): factor them out').toEqual([]);
  });

  it('lists no duplicate the code no longer has (the baseline only shrinks)', () => {
    const keys = new Set(duplicates.map((d) => d.key));
    expect(baseline().filter((key) => !keys.has(key))).toEqual([]);
  });

  it('ignores only files that exist', () => {
    for (const path of IGNORED) expect(() => readFileSync(join(root, path)), path).not.toThrow();
  });

  it('finds a duplicated block once, with both places, and not a repetition within a window', () => {
    const block = [
      'const a = f(x);',
      'const b = g(a);',
      'if (b) h(b);',
      'log(a, b);',
      'x++;',
      'y--;',
      'z();',
    ];
    const one = ['// one', ...block, 'done();'].join('\n');
    const two = ['import { f } from "./f.js";', 'start();', '', ...block.map((l) => `    ${l}`)].join('\n');
    const found = findDuplicates(
      new Map([
        ['one.ts', one],
        ['two.ts', two],
      ]),
    );
    expect(found).toHaveLength(1);
    expect(found[0]!.where).toBe('one.ts:2-8 and two.ts:4-10');
    expect(found[0]!.key).toMatch(/^one\.ts <-> two\.ts #[0-9a-f]{12}$/);
    // five lines alike are not a duplicate; comments, imports and brackets do not count
    expect(
      findDuplicates(
        new Map([
          ['one.ts', block.slice(0, 5).join('\n')],
          ['two.ts', block.slice(0, 5).join('\n')],
        ]),
      ),
    ).toEqual([]);
    expect(significantLines('/**\n * doc\n */\nimport {\n  a,\n} from "a";\n});\n  input,\nreal();')).toEqual(
      [{ line: 9, text: 'real();' }],
    );
    // the same six lines twice in one file, apart: one duplicate
    expect(findDuplicates(new Map([['one.ts', [...block, 'other();', ...block].join('\n')]]))).toHaveLength(
      1,
    );
  });
});
