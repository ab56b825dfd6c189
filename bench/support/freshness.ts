/**
 * Whether a results file measured today's code (issue 37): it names the commit it measured on a clean
 * tree (bench/support/results.ts writes that provenance), and no later commit changed the paths its
 * benchmark measures (bench/support/measured-code.ts). Read from the repository's history with git,
 * so it holds in a fresh clone with its history and under CI; a clone without the measured commit
 * (shallow) is an error, never a pass.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { measuredCodeOf } from './measured-code.js';

export type Freshness =
  | { current: true; commit: string; line: string }
  | { current: false; commit?: string; line: string; why: string };

const short = (commit: string) => commit.slice(0, 7);

function git(root: string, args: string[]): string {
  return execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

function isAncestor(root: string, ancestor: string, of: string): boolean {
  try {
    git(root, ['merge-base', '--is-ancestor', ancestor, of]);
    return true;
  } catch {
    return false;
  }
}

/** Git's pathspec for every results file under bench/ (left out of the code a run measured). */
const RESULTS_FILES = ':(exclude,glob)bench/**/results*.json';

/**
 * The freshness of `resultsFile` (a path from `root`), with the line the docs' register of results
 * files (docs/benchmarks.md, "Results files and the code they measured") prints for it.
 */
export function freshness(root: string, resultsFile: string): Freshness {
  const { paths } = measuredCodeOf(resultsFile);
  const recorded = JSON.parse(readFileSync(join(root, resultsFile), 'utf8')) as {
    provenance?: { commit?: string; clean?: boolean; machine?: { cpus?: number; loadavg?: number[] } };
  };
  const p = recorded.provenance;
  const entry = (status: string) => `- \`${resultsFile}\`: ${status}`;
  if (p?.commit === undefined) {
    const added = git(root, ['log', '--diff-filter=A', '--format=%H', '--', resultsFile]).split('\n').at(-1);
    if (added === undefined || added === '')
      throw new Error(`${resultsFile}: not committed, and it records no commit: run its benchmark again`);
    const why = `it records no commit (committed in ${short(added)}; the code it measured is unknown)`;
    return { current: false, why, line: entry(`stale: records no commit (committed in ${short(added)})`) };
  }
  const commit = p.commit;
  try {
    git(root, ['cat-file', '-e', `${commit}^{commit}`]);
  } catch {
    throw new Error(
      `${resultsFile}: measured ${commit}, which this clone does not hold (a shallow clone? fetch the full history)`,
    );
  }
  if (p.clean !== true)
    return {
      current: false,
      commit,
      why: `it measured ${short(commit)} on a dirty tree`,
      line: entry(`stale: measured ${short(commit)} on a dirty tree`),
    };
  if (!isAncestor(root, commit, 'HEAD'))
    return {
      current: false,
      commit,
      why: `it measured ${short(commit)}, which is not in this branch's history`,
      line: entry(`stale: measured ${short(commit)}, not in this branch's history`),
    };
  // Results files are records, not code: a commit that only adds them (under bench/codec, a measured
  // folder) changes nothing a run measured.
  const last = git(root, ['log', '-1', '--format=%H', 'HEAD', '--', ...paths, RESULTS_FILES]);
  if (last !== '' && !isAncestor(root, last, commit))
    return {
      current: false,
      commit,
      why: `it measured ${short(commit)}; ${short(last)} changed the code it measures (${paths.join(', ')}) since`,
      line: entry(`stale: measured ${short(commit)}; the code it measures changed since`),
    };
  const load = p.machine?.loadavg?.[0];
  return {
    current: true,
    commit,
    line: entry(
      `current: measured ${short(commit)} on a clean tree (load ${load ?? '?'} on ${p.machine?.cpus ?? '?'} cores)`,
    ),
  };
}
