/**
 * Writes a benchmark's results as JSON and formats the file with the project's Biome, so a rerun
 * leaves a file `npm run check` accepts. Every run writes a new file named after the time it was
 * written (`results-kill.json` → `results-kill.2026-11-25T081500Z.json`, UTC) and never overwrites
 * one: the figures in docs/benchmarks.md name the file they come from, and
 * test/docs/benchmark-figures.test.ts checks them against it.
 *
 * Every file also records its provenance (issue 37): the commit it measured, whether the tree was clean
 * (a dirty tree's figures measured code no commit holds), the machine and its load when it was written.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { projectRoot } from '../../src/toolchain/paths.js';

/** `results-kill.json` → `results-kill.2026-11-25T081500Z.json` (UTC, to the second). */
export function datedResultsPath(path: string, at: Date = new Date()): string {
  const stamp = `${at.toISOString().slice(0, 19).replace(/:/g, '')}Z`;
  return path.replace(/(\.json)?$/, `.${stamp}.json`);
}

export interface Provenance {
  /** `git rev-parse HEAD` when the results were written. */
  commit: string;
  /** `git status --porcelain` was empty apart from results files under bench/. */
  clean: boolean;
  /** What the tree had changed, when not clean (at most 20 paths). */
  changed?: string[];
  node: string;
  machine: { cpus: number; model: string; memoryGiB: number; loadavg: number[] };
  writtenAt: string;
}

const git = (args: string[]) => execFileSync('git', args, { cwd: projectRoot, encoding: 'utf8' }).trim();

/** Where the code measured comes from: the commit, clean or not, the machine and its load now. */
export function provenance(): Provenance {
  const changed = git(['status', '--porcelain'])
    .split('\n')
    .map((line) => line.slice(3))
    .filter((path) => path !== '' && !/^bench\/.*results[^/]*$/.test(path));
  return {
    commit: git(['rev-parse', 'HEAD']),
    clean: changed.length === 0,
    ...(changed.length > 0 ? { changed: changed.slice(0, 20) } : {}),
    node: process.version,
    machine: {
      cpus: cpus().length,
      model: cpus()[0]?.model ?? 'unknown',
      memoryGiB: Math.round(totalmem() / 2 ** 30),
      loadavg: loadavg().map((l) => Number(l.toFixed(2))),
    },
    writtenAt: new Date().toISOString(),
  };
}

/**
 * Writes `results` next to `file` under a dated name (fails rather than overwrite), with its
 * provenance; returns the path.
 */
export function writeResults(file: URL, results: unknown): string {
  const path = datedResultsPath(fileURLToPath(file));
  const recorded = { provenance: provenance(), ...(results as Record<string, unknown>) };
  writeFileSync(path, `${JSON.stringify(recorded, null, 2)}\n`, { flag: 'wx' });
  try {
    execFileSync(join(projectRoot, 'node_modules/.bin/biome'), ['format', '--write', path], {
      stdio: 'ignore',
    });
  } catch {
    // formatting is cosmetic: the figures are written either way
  }
  console.log(`results written to ${path}`);
  return path;
}
