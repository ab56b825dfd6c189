/**
 * The help of `tcr worker` and the connection help every Temporal command shares name the variables
 * the configuration actually reads, as docs/operations.md's tables list them (a test elsewhere holds
 * those tables to src/config): a variable added to a table and not to the help fails here.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { connectionHelp } from '../../src/cli/args.js';
import { workerCommand } from '../../src/cli/worker.js';
import { projectRoot } from '../../src/toolchain/paths.js';

const operations = readFileSync(join(projectRoot, 'docs/operations.md'), 'utf8');

/** The variables named in the first column of the table under the `### {heading}` section. */
function tableVariables(heading: string, rows?: RegExp): string[] {
  const start = operations.indexOf(`### ${heading}`);
  expect(start, `docs/operations.md has a '### ${heading}' section`).toBeGreaterThanOrEqual(0);
  const section = operations.slice(start + 4).split(/\n### /)[0] ?? '';
  const names = section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => line.split('|')[1] ?? '')
    .filter((cell) => !rows || rows.test(cell))
    .flatMap((cell) => [...cell.matchAll(/`([A-Z][A-Z0-9_<>]+)`/g)].map((m) => m[1]!));
  expect(names.length, `variables in '${heading}'`).toBeGreaterThan(0);
  return names;
}

const temporal = tableVariables('Temporal connection');

/** `name` (capitals, digits, _ < >: nothing a RegExp reads specially) as a whole word. */
function named(text: string, name: string): boolean {
  return new RegExp(`(?<![A-Z0-9_])${name}(?![A-Z0-9_])`).test(text);
}

describe('tcr worker --help', () => {
  const help = workerCommand.help;
  it.each([
    ...temporal,
    ...tableVariables('Worker'),
    ...tableVariables('Payload encryption', /TCR_PAYLOAD_KEYS/),
    'TCR_REGISTRY_<ENV>_HOSTS',
  ])('names %s', (name) => {
    expect(named(help, name)).toBe(true);
  });

  it("names the accounts' fields, allowedHosts included, and the earlier TLS names", () => {
    expect(help).toContain(
      '{name, environment, baseUrl, apiKey, apiSecret, cspId?, allowedHosts?, rateLimits?, timeoutMs?}',
    );
    for (const name of ['TEMPORAL_TLS_CERT', 'TEMPORAL_TLS_KEY', 'TEMPORAL_TLS_CA'])
      expect(help).toContain(name);
  });
});

describe('the connection help of every Temporal command', () => {
  it.each(temporal)('names %s', (name) => {
    expect(named(connectionHelp, name)).toBe(true);
  });
});
