#!/usr/bin/env node
// Checks of package-lock.json that need nothing installed, so setup runs them before `npm ci`:
//
//   node scripts/check-lockfile.mjs [--root DIR] complete
//     The lock file is complete: lockfileVersion 3, its root entry says what package.json says, and
//     every dependency of every locked package, optional ones included, resolves to a locked entry.
//     An optional dependency is locked even when it is for another platform (@biomejs/cli-darwin-arm64
//     on Linux): `npm ci` refuses a lock file without it and `npm install` would add it. Exit 1 names
//     what is missing.
//   node scripts/check-lockfile.mjs [--root DIR] installed
//     node_modules holds what the lock file locks: npm's own record of it, node_modules/.package-lock.json,
//     has the same version of every package (another platform's optional package may be absent).
//     Exit 1 with the first difference when it is missing or stale; setup then runs `npm ci`.
//   node scripts/check-lockfile.mjs [--root DIR] engines [VERSION]
//     VERSION (default: this Node.js) satisfies package.json "engines.node". Exit 1 says it does not.
//
// Plain Node.js with no dependencies. test/deploy/lockfile.test.ts tests it.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({
  options: { root: { type: 'string', default: join(import.meta.dirname, '..') } },
  allowPositionals: true,
});
const root = values.root;
const [command = 'complete', argument] = positionals;

function fail(...lines) {
  for (const line of lines) process.stderr.write(`[lockfile] ${line}\n`);
  process.exit(1);
}

function readJson(name) {
  const path = join(root, name);
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    return fail(`cannot read ${path}: ${err.message}`);
  }
}

/** The lock file key that `name` resolves to from the package at key `from`: the nearest node_modules up. */
function resolveFrom(packages, from, name) {
  for (let base = from; ; ) {
    const key = base === '' ? `node_modules/${name}` : `${base}/node_modules/${name}`;
    if (key in packages) return key;
    if (base === '') return undefined;
    const cut = base.lastIndexOf('/node_modules/');
    base = cut < 0 ? '' : base.slice(0, cut);
  }
}

const EXACT_VERSION = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$/;

function checkComplete() {
  const manifest = readJson('package.json');
  const lock = readJson('package-lock.json');
  const packages = lock.packages ?? {};
  const problems = [];
  if (lock.lockfileVersion !== 3) problems.push(`lockfileVersion is ${lock.lockfileVersion}, not 3`);
  for (const field of [
    'dependencies',
    'devDependencies',
    'optionalDependencies',
    'peerDependencies',
    'engines',
  ]) {
    const want = canonical(manifest[field]);
    const got = canonical(packages['']?.[field]);
    if (want !== got)
      problems.push(`package.json "${field}" is ${want}, the lock file's root entry says ${got}`);
  }
  let missing = false;
  for (const [from, entry] of Object.entries(packages)) {
    if (entry.link) continue;
    const optional = entry.optionalDependencies ?? {};
    const wanted = { ...entry.dependencies, ...optional, ...(from === '' ? entry.devDependencies : {}) };
    // npm installs peer dependencies too, unless they are marked optional.
    for (const [name, spec] of Object.entries(entry.peerDependencies ?? {}))
      if (!entry.peerDependenciesMeta?.[name]?.optional) wanted[name] ??= spec;
    const who = from === '' ? 'package.json' : from.slice(from.lastIndexOf('node_modules/') + 13);
    for (const [name, spec] of Object.entries(wanted)) {
      const at = resolveFrom(packages, from, name);
      if (at === undefined) {
        missing = true;
        const kind = name in optional ? 'optional dependency' : 'dependency';
        problems.push(`${who} needs ${name}@${spec} (${kind}), which the lock file lacks`);
      } else if (EXACT_VERSION.test(spec) && packages[at].version !== spec) {
        problems.push(`${who} needs ${name}@${spec}, the lock file has ${packages[at].version} at ${at}`);
      }
    }
  }
  if (problems.length === 0) return;
  fail(
    'package-lock.json is not complete:',
    ...problems.map((p) => `  ${p}`),
    ...(missing
      ? [
          'npm writes such a lock file when it installs over an existing node_modules: it keeps only the',
          'optional binaries this machine has (npm/cli#4828). npm adds them when it resolves from the',
          'lock file alone:  npm install --package-lock-only',
        ]
      : ['Update it with `npm install` and commit package.json and package-lock.json together.']),
  );
}

function checkInstalled() {
  const locked = readJson('package-lock.json').packages ?? {};
  if (!existsSync(join(root, 'node_modules', '.package-lock.json')))
    fail('node_modules/.package-lock.json is missing: the dependencies are not installed');
  const installed = readJson('node_modules/.package-lock.json').packages ?? {};
  for (const [key, entry] of Object.entries(locked)) {
    if (key === '' || entry.link) continue;
    const have = installed[key];
    if (have === undefined) {
      if (entry.optional || entry.devOptional) continue; // not for this platform: npm skipped it
      fail(`${key} ${entry.version} is locked but not installed`);
    }
    if (have.version !== entry.version || (entry.integrity && have.integrity !== entry.integrity))
      fail(`${key} is installed at ${have.version}, the lock file has ${entry.version}`);
  }
  for (const key of Object.keys(installed))
    if (!(key in locked)) fail(`${key} is installed but not in the lock file`);
}

/** `version` satisfies `range`, in the forms "engines" uses here: `^X.Y.Z` and `>=X.Y.Z`, joined by `||`. */
function satisfies(version, range) {
  const v = parseVersion(version);
  return range.split('||').some((part) => {
    const m = /^\s*(\^|>=)\s*(\d+\.\d+\.\d+)\s*$/.exec(part);
    if (!m) fail(`unsupported "engines.node" range '${part.trim()}' (use ^X.Y.Z or >=X.Y.Z)`);
    const low = parseVersion(m[2]);
    const atLeast = v[0] - low[0] || v[1] - low[1] || v[2] - low[2];
    return atLeast >= 0 && (m[1] === '>=' || v[0] === low[0]);
  });
}

function parseVersion(text) {
  const m = /^v?(\d+)\.(\d+)\.(\d+)/.exec(text.trim());
  return m ? m.slice(1, 4).map(Number) : fail(`not a version: '${text}'`);
}

function checkEngines(version) {
  const range = readJson('package.json').engines?.node;
  if (typeof range !== 'string') fail('package.json has no "engines.node"');
  if (!satisfies(version, range))
    fail(`Node.js ${version} is not supported: package.json "engines.node" is '${range}' (README.md, Setup)`);
}

/** JSON with the keys sorted; a missing object reads as {}. */
function canonical(value) {
  return JSON.stringify(Object.fromEntries(Object.entries(value ?? {}).sort(([a], [b]) => (a < b ? -1 : 1))));
}

if (command === 'complete') checkComplete();
else if (command === 'installed') checkInstalled();
else if (command === 'engines') checkEngines(argument ?? process.version);
else fail(`unknown command '${command}' (complete, installed or engines)`);
