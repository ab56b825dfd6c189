/**
 * Every results file a benchmark writes names the code it measured (issue 37): the commit, whether the
 * tree was clean, the machine and its load (bench/support/results.ts).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
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
