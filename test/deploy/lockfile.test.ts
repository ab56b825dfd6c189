/**
 * scripts/check-lockfile.mjs, which setup runs before every `npm start` and `npm test`: the project's
 * lock file is complete, and the check finds what an incomplete or stale one lacks.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../../src/toolchain/paths.js';

const script = join(projectRoot, 'scripts/check-lockfile.mjs');
const readJson = (path: string) => JSON.parse(readFileSync(path, 'utf8'));
const manifest = readJson(join(projectRoot, 'package.json'));
const lock = readJson(join(projectRoot, 'package-lock.json'));

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A project folder holding the given package.json and package-lock.json (and an installed record). */
function project(files: { manifest?: unknown; lock?: unknown; installed?: unknown }): string {
  const dir = mkdtempSync(join(tmpdir(), 'tcr-lockfile-'));
  dirs.push(dir);
  writeFileSync(join(dir, 'package.json'), JSON.stringify(files.manifest ?? manifest));
  writeFileSync(join(dir, 'package-lock.json'), JSON.stringify(files.lock ?? lock));
  if (files.installed !== undefined) {
    mkdirSync(join(dir, 'node_modules'));
    writeFileSync(join(dir, 'node_modules/.package-lock.json'), JSON.stringify(files.installed));
  }
  return dir;
}

function check(root: string, ...args: string[]): { status: number | null; stderr: string } {
  const run = spawnSync(process.execPath, [script, '--root', root, ...args], { encoding: 'utf8' });
  return { status: run.status, stderr: run.stderr };
}

const withoutPackages = (...keys: string[]) => {
  const copy = structuredClone(lock);
  for (const key of keys) {
    expect(copy.packages).toHaveProperty([key]);
    delete copy.packages[key];
  }
  return copy;
};

describe('check-lockfile complete', () => {
  it('accepts the project lock file', () => {
    expect(check(projectRoot, 'complete')).toEqual({ status: 0, stderr: '' });
  });

  it("names another platform's optional binary that the lock file lacks", () => {
    const dir = project({
      lock: withoutPackages(
        'node_modules/@biomejs/cli-darwin-arm64',
        'node_modules/@swc/core-win32-x64-msvc',
      ),
    });
    const { status, stderr } = check(dir, 'complete');
    expect(status).toBe(1);
    expect(stderr).toContain('@biomejs/biome needs @biomejs/cli-darwin-arm64@');
    expect(stderr).toContain('@swc/core needs @swc/core-win32-x64-msvc@');
    expect(stderr).toContain('(optional dependency), which the lock file lacks');
  });

  it('names a dependency of package.json that the lock file lacks', () => {
    const dir = project({ lock: withoutPackages('node_modules/zod') });
    const { status, stderr } = check(dir, 'complete');
    expect(status).toBe(1);
    expect(stderr).toContain('package.json needs zod@');
  });

  it('refuses a lock file whose root entry is out of step with package.json', () => {
    const dir = project({ manifest: { ...manifest, engines: { node: '>=18' } } });
    const { status, stderr } = check(dir, 'complete');
    expect(status).toBe(1);
    expect(stderr).toContain('package.json "engines" is {"node":">=18"}');
  });
});

describe('check-lockfile installed', () => {
  it('accepts node_modules installed from the lock file, without other platforms’ optional binaries', () => {
    const installed = withoutPackages('node_modules/@biomejs/cli-darwin-arm64');
    delete installed.packages[''];
    expect(check(project({ installed }), 'installed').status).toBe(0);
  });

  it('reports a missing install, and one made from another lock file', () => {
    expect(check(project({}), 'installed')).toMatchObject({
      status: 1,
      stderr: expect.stringContaining('the dependencies are not installed'),
    });
    const older = structuredClone(lock);
    older.packages['node_modules/zod'].version = '3.0.0';
    expect(check(project({ installed: older }), 'installed')).toMatchObject({
      status: 1,
      stderr: expect.stringContaining(`node_modules/zod is installed at 3.0.0, the lock file has`),
    });
    const extra = structuredClone(lock);
    extra.packages['node_modules/left-pad'] = { version: '1.3.0' };
    expect(check(project({ installed: extra }), 'installed').stderr).toContain(
      'node_modules/left-pad is installed but not in the lock file',
    );
  });
});

describe('check-lockfile engines', () => {
  it('reads the "engines" range of package.json', () => {
    const dir = project({ manifest: { engines: { node: '^20.19.0 || ^22.12.0 || >=24.0.0' } } });
    const supported = (version: string) => check(dir, 'engines', version).status === 0;
    expect(['20.19.0', 'v20.20.2', '22.12.0', '22.20.1', '24.0.0', '26.1.0'].filter(supported)).toHaveLength(
      6,
    );
    expect(['20.18.9', '21.7.3', '22.11.0', '23.9.0', '18.20.0'].filter(supported)).toEqual([]);
  });

  it('accepts the Node.js running the tests', () => {
    expect(check(projectRoot, 'engines').status).toBe(0);
  });
});

describe('supported Node.js versions', () => {
  it('README.md states the range package.json "engines" has, and it includes the current LTS line', () => {
    const range: string = manifest.engines.node;
    const readme = readFileSync(join(projectRoot, 'README.md'), 'utf8');
    expect(readme.includes(`\`${range}\``), `README.md does not name \`${range}\``).toBe(true);
    // Node.js 24 is an LTS line until April 2028, and 26 became the active LTS line in October 2026.
    for (const major of [24, 26]) expect(range).toContain(`^${major}.0.0`);
  });

  it('the Docker image builds on a supported Node.js', () => {
    const dockerfile = readFileSync(join(projectRoot, 'Dockerfile'), 'utf8');
    const image = /^ARG NODE_IMAGE=node:(\d+\.\d+\.\d+)-/m.exec(dockerfile)?.[1];
    expect(image).toBeDefined();
    expect(check(projectRoot, 'engines', image as string).status).toBe(0);
  });
});
