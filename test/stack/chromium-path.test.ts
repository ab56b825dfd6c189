import { execFile } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { findChromium } from './chromium.js';

const run = promisify(execFile);
const root = join(import.meta.dirname, '..', '..');

// CHROMIUM_PATH (docs/local-stack.md): the browser the Web UI test runs and setup-browser.sh accepts
// instead of installing one.
describe('CHROMIUM_PATH', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tcr-chromium-path-'));
  const fake = join(dir, 'my-browser');
  writeFileSync(fake, '#!/bin/sh\necho "Fake Chromium 1.2.3"\n');
  chmodSync(fake, 0o755);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is the browser setup-browser.sh reports, ahead of any chromium on PATH, and nothing is installed', async () => {
    const { stdout } = await run('bash', [join(root, 'scripts/setup-browser.sh')], {
      env: { ...process.env, CHROMIUM_PATH: fake },
    });
    expect(stdout.trim()).toBe(`setup-browser: chromium already installed: ${fake} (Fake Chromium 1.2.3)`);
  });

  it('is the browser the Web UI test runs, ahead of any chromium on PATH', () => {
    const saved = process.env.CHROMIUM_PATH;
    process.env.CHROMIUM_PATH = fake;
    try {
      expect(findChromium()).toBe(fake);
    } finally {
      if (saved === undefined) delete process.env.CHROMIUM_PATH;
      else process.env.CHROMIUM_PATH = saved;
    }
  });
});
