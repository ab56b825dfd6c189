/**
 * Every results file a benchmark writes names the code it measured (issue 37): the commit, whether the
 * tree was clean, the machine and its load (bench/support/results.ts).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { freshness } from '../../bench/support/freshness.js';
import { measuredCodeOf } from '../../bench/support/measured-code.js';
import { provenance, writeResults } from '../../bench/support/results.js';
import { tempDir } from '../support/temp-dir.js';

const head = execFileSync('git', ['rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();

describe('results provenance', () => {
  it('names the commit, whether the tree was clean, the machine and its load', () => {
    const p = provenance();
    expect(p.commit).toBe(head);
    expect(typeof p.clean).toBe('boolean');
    if (!p.clean) expect(p.changed?.length).toBeGreaterThan(0);
    expect(p.machine.cpus).toBeGreaterThan(0);
    expect(p.machine.loadavg).toHaveLength(3);
  });

  it('is written at the head of every results file', () => {
    const file = pathToFileURL(join(tempDir('tcr-results-'), 'results-x.json'));
    const said = vi.spyOn(console, 'log').mockImplementation(() => {});
    const path = writeResults(file, { figure: 1 });
    expect(said).toHaveBeenCalledWith(`results written to ${path}`);
    said.mockRestore();
    const written = JSON.parse(readFileSync(path, 'utf8'));
    expect(Object.keys(written)[0]).toBe('provenance');
    expect(written.provenance.commit).toBe(head);
    expect(written.figure).toBe(1);
  });
});

/**
 * bench/support/freshness.ts on a throwaway repository: a results file is current only while it names
 * a commit, measured on a clean tree, that holds every later change to its bench's measured code.
 */
describe('results freshness', () => {
  const file = 'bench/throughput/results.2026-01-01T000000Z.json';
  function repo() {
    const dir = tempDir('tcr-freshness-');
    const git = (...args: string[]) =>
      execFileSync(
        'git',
        ['-c', 'user.name=t', '-c', 'user.email=t@t', '-c', 'commit.gpgsign=false', ...args],
        { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
      ).trim();
    git('init', '-q');
    const put = (path: string, text: string) => {
      mkdirSync(join(dir, path, '..'), { recursive: true });
      writeFileSync(join(dir, path), text);
    };
    const commit = (message: string) => {
      git('add', '.');
      git('commit', '-q', '-m', message);
      return git('rev-parse', 'HEAD');
    };
    const results = (p: object | undefined) =>
      put(file, JSON.stringify({ ...(p ? { provenance: p } : {}), figure: 1 }));
    return { dir, git, put, commit, results };
  }
  const machine = { cpus: 2, loadavg: [3.5, 2, 1] };

  it('is current when no later commit changed the code it measures', () => {
    const r = repo();
    r.put('src/workflows/a.ts', 'a');
    const measured = r.commit('code');
    r.results({ commit: measured, clean: true, machine });
    r.put('docs/other.md', 'x');
    r.commit('results and an unrelated change');
    const f = freshness(r.dir, file);
    expect(f.current).toBe(true);
    expect(f.line).toBe(
      `- \`${file}\`: current: measured ${measured.slice(0, 7)} on a clean tree (load 3.5 on 2 cores)`,
    );
  });

  it('stays current when a later commit only adds results files inside a measured folder', () => {
    const r = repo();
    const codec = 'bench/codec/results.2026-01-01T000000Z.json';
    r.put('src/codec/a.ts', 'a');
    r.put('bench/codec/codec.bench-run.ts', 'bench');
    const measured = r.commit('code');
    r.put(codec, JSON.stringify({ provenance: { commit: measured, clean: true, machine }, figure: 1 }));
    r.put('bench/codec/results-ingress.2026-01-01T000001Z.json', '{}');
    r.commit('results, under the bench folder the codec entry measures');
    expect(freshness(r.dir, codec).current).toBe(true);
    r.put('bench/codec/codec.bench-run.ts', 'changed bench');
    r.commit('the bench changed');
    expect(freshness(r.dir, codec).current).toBe(false);
  });

  it('is stale once a later commit changes a measured path', () => {
    const r = repo();
    r.put('src/workflows/a.ts', 'a');
    const measured = r.commit('code');
    r.results({ commit: measured, clean: true, machine });
    r.commit('results');
    r.put('src/workflows/a.ts', 'b');
    r.commit('later change');
    const f = freshness(r.dir, file);
    expect(f.current).toBe(false);
    expect(f.line).toBe(
      `- \`${file}\`: stale: measured ${measured.slice(0, 7)}; the code it measures changed since`,
    );
  });

  it('is stale when it measured a dirty tree, records no commit, or measured another branch', () => {
    const r = repo();
    r.put('src/workflows/a.ts', 'a');
    const measured = r.commit('code');
    r.results({ commit: measured, clean: false, changed: ['src/workflows/a.ts'], machine });
    r.commit('dirty results');
    expect(freshness(r.dir, file).line).toContain(`stale: measured ${measured.slice(0, 7)} on a dirty tree`);
    r.results(undefined);
    const added = r.git('log', '--diff-filter=A', '--format=%H', '--', file);
    r.commit('results without provenance');
    expect(freshness(r.dir, file).line).toBe(
      `- \`${file}\`: stale: records no commit (committed in ${added.slice(0, 7)})`,
    );
    r.git('checkout', '-q', '-b', 'side');
    r.put('src/workflows/a.ts', 'side');
    const side = r.commit('side branch');
    r.git('checkout', '-q', '-');
    r.results({ commit: side, clean: true, machine });
    r.commit('results of the side branch');
    expect(freshness(r.dir, file).line).toContain("not in this branch's history");
  });

  it("fails, never passes, when the clone lacks the measured commit, and names a bench's missing declaration", () => {
    const r = repo();
    r.put('src/workflows/a.ts', 'a');
    r.commit('code');
    r.results({ commit: 'f'.repeat(40), clean: true, machine });
    r.commit('results');
    expect(() => freshness(r.dir, file)).toThrow(/does not hold/);
    expect(() => measuredCodeOf('bench/new/results.json')).toThrow(/no benchmark declares/);
  });
});
