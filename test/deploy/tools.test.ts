/** The deployment tests' own tools: the YAML subset parser and the environment-variable scan. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { scanEnvironmentVariables } from './env-scan.js';
import { parseYamlSubset } from './yaml-subset.js';

describe('parseYamlSubset', () => {
  it('parses mappings, sequences, flow sequences, quoting, comments and core-schema scalars', () => {
    const doc = parseYamlSubset(
      [
        '# comment',
        'name: tcr # trailing comment',
        'services:',
        '  a:',
        '    image: "x:1.2" ',
        '    command: ["worker", "--flag=a#b"]',
        '    ports:',
        '      - "127.0.0.1:1:1"',
        '    retries: 5',
        '    enabled: true',
        "    quoted: 'it''s'",
        '    empty:',
        'list:',
        '- a',
        '- b',
      ].join('\n'),
    );
    expect(doc).toEqual({
      name: 'tcr',
      services: {
        a: {
          image: 'x:1.2',
          command: ['worker', '--flag=a#b'],
          ports: ['127.0.0.1:1:1'],
          retries: 5,
          enabled: true,
          quoted: "it's",
          empty: null,
        },
      },
      list: ['a', 'b'],
    });
  });

  it('refuses what it does not understand, naming the line', () => {
    expect(() => parseYamlSubset('a: &anchor 1')).toThrow(/line 1: unsupported/);
    expect(() => parseYamlSubset('a:\n  - b: 1')).toThrow(/line 2: only scalar/);
    expect(() => parseYamlSubset('a: 1\na: 2')).toThrow(/line 2: duplicate key a/);
    expect(() => parseYamlSubset('a:\n\tb: 1')).toThrow(/line 2: tab/);
    expect(() => parseYamlSubset('a: |\n  text')).toThrow(/unsupported/);
    expect(() => parseYamlSubset('a: "open')).toThrow(/unterminated/);
  });
});

describe('scanEnvironmentVariables', () => {
  const root = mkdtempSync(join(tmpdir(), 'env-scan-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('finds prefixed names, direct reads of other names, and template families', () => {
    mkdirSync(join(root, 'src', 'part'), { recursive: true });
    writeFileSync(
      join(root, 'src', 'part', 'config.ts'),
      [
        'const a = process.env.TCR_NEW_THING;',
        "const b = env['HTTP_PROXY'];",
        'const c = env.NODE_OPTIONS ?? ctx.env.TEMPORAL_OTHER;',
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a fixture file
        'const prefix = `TCR_PROVIDER_${name.toUpperCase()}_`;',
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a fixture file
        'const d = env[`${prefix}TOKEN`];',
        "const notEnv = 'TEMPORAL_CLI_VERSION';",
      ].join('\n'),
    );
    const scan = scanEnvironmentVariables(root);
    expect([...scan.variables.keys()].sort()).toEqual(
      ['HTTP_PROXY', 'NODE_OPTIONS', 'TCR_NEW_THING', 'TCR_PROVIDER_<ENV>_TOKEN', 'TEMPORAL_OTHER'].sort(),
    );
    expect(scan.variables.get('TCR_NEW_THING')).toEqual([join('src', 'part', 'config.ts')]);
  });
});
