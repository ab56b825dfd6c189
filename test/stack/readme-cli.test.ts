/**
 * README.md's Quick start, as a new user runs it (issue 34): after `npm start`, in a second terminal,
 * the CLI lines the README shows, VERBATIM (read from README.md, so the test follows the README), then
 * the `temporal` CLI's `workflow query --name status` and `workflow metadata` with the stack's profile.
 *
 * The stack is started the way `npm start` starts it (startLocalStack; the same key file, codec server
 * and `temporal-cli.toml` in its data folder), but on free ports in a temporary data folder, so that a
 * stack a developer runs on the default ports is not disturbed. The README's lines assume the default
 * address and data folder; they run here with the two variables that point a shell at this stack
 * instead: TEMPORAL_ADDRESS (its printed gRPC address) and TCR_DATA_DIR (its data folder). Nothing
 * else: no TCR_PAYLOAD_KEYS_FILE, no TEMPORAL_CONFIG_FILE (an empty profile path keeps the
 * developer's own ~/.config/temporalio out), so the CLI must find the stack's keys by itself.
 *
 * Needs `npm run --silent build` (dist/cli/main.js) and the Temporal CLI (scripts/setup.sh).
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getBrandStatus } from '../../src/orders/brand-client.js';
import { getCampaignStatus } from '../../src/orders/campaign-orders.js';
import { LOCAL_ACCOUNT_NAME, type LocalStack } from '../../src/stack/index.js';
import { projectRoot, temporalCliPath } from '../../src/toolchain/paths.js';
import { tempDir } from '../support/temp-dir.js';
import { startTestLocalStack } from './example-end-states.js';

const run = promisify(execFile);

/** The runnable CLI lines of README.md's "Quick start": every `node dist/cli/main.js` or `tcr` line of its code blocks. */
function readmeCliLines(readme: string): string[] {
  const start = readme.indexOf('## Quick start');
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end === -1 ? undefined : end);
  const blocks = [...section.matchAll(/```[a-z]*\n([\s\S]*?)```/g)].map((m) => m[1] as string);
  return blocks
    .flatMap((block) => block.split('\n'))
    .map((line) => line.trim())
    .filter((line) => /^(node dist\/cli\/main\.js|tcr) /.test(line));
}

const lines = readmeCliLines(readFileSync(join(projectRoot, 'README.md'), 'utf8'));
const dataDir = tempDir('tcr-readme-');
let stack: LocalStack | undefined;

/** What a shell in a second terminal has: the user's environment, pointed at this stack. */
function shellEnv(s: LocalStack): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of Object.keys(env))
    if (name.startsWith('TCR_') || name.startsWith('TEMPORAL_')) delete env[name];
  return {
    ...env,
    TEMPORAL_ADDRESS: s.urls.temporal,
    TCR_DATA_DIR: dataDir,
    TEMPORAL_CONFIG_FILE: join(dataDir, 'no-user-profile.toml'),
  };
}

async function until<T>(what: string, read: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
  const deadline = Date.now() + 90_000;
  let last: T | string = 'never read';
  while (Date.now() < deadline) {
    try {
      last = await read();
      if (ok(last)) return last;
    } catch (error) {
      last = String(error);
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`${what}: not reached within 90 s (last: ${JSON.stringify(last)})`);
}

describe("README's Quick start CLI lines against the local stack", () => {
  beforeAll(async () => {
    if (!existsSync(join(projectRoot, 'dist/cli/main.js')))
      throw new Error('dist/cli/main.js is missing: run npm run --silent build first');
    stack = await startTestLocalStack(dataDir, { progress: false });
    const s = stack;
    // The README's lines act on two examples once they wait for an operator.
    await until(
      'brand/initech-unverified needs-correction',
      () =>
        getBrandStatus(s.client, { account: LOCAL_ACCOUNT_NAME, reference: 'initech-unverified' }).then(
          (x) => x.phase,
        ),
      (p) => p === 'needs-correction',
    );
    await until(
      'campaign/acme-marketing awaiting-fee-approval',
      () =>
        getCampaignStatus(s.client, { account: LOCAL_ACCOUNT_NAME, reference: 'acme-marketing' }).then(
          (x) => x.phase,
        ),
      (p) => p === 'awaiting-fee-approval',
    );
  }, 180_000);

  afterAll(async () => {
    await stack?.stop();
  }, 60_000);

  it('finds the four lines in the README', () => {
    expect(lines).toEqual([
      expect.stringMatching(/^node dist\/cli\/main\.js list --needs-action\b/),
      'node dist/cli/main.js status brand/initech-unverified',
      expect.stringMatching(/^node dist\/cli\/main\.js brand correct initech-unverified /),
      'node dist/cli/main.js campaign approve-fee acme-marketing',
    ]);
  });

  it('without keys (another data folder), refuses to send in clear and names where the keys are', async () => {
    const s = stack as LocalStack;
    const elsewhere = tempDir('tcr-readme-nokeys-');
    // The account named (another data folder is not the stack's): the lines reach the keys check.
    const env = { ...shellEnv(s), TCR_DATA_DIR: elsewhere, TCR_ACCOUNT: LOCAL_ACCOUNT_NAME };
    for (const line of lines.filter((l) => / (status|correct|approve-fee) /.test(l))) {
      const failed = await run('bash', ['-c', line], { cwd: projectRoot, env, timeout: 60_000 }).then(
        () => undefined,
        (error: { code?: number; stderr?: string }) => error,
      );
      expect(failed?.code, line).toBe(2);
      expect(failed?.stderr, line).toMatch(/TCR_PAYLOAD_KEYS_FILE/);
      expect(failed?.stderr, line).toContain(join(elsewhere, 'payload-keys.json'));
    }
    // Nothing was sent: the examples still wait for the operator.
    expect(
      (await getBrandStatus(s.client, { account: LOCAL_ACCOUNT_NAME, reference: 'initech-unverified' }))
        .phase,
    ).toBe('needs-correction');
    expect(
      (await getCampaignStatus(s.client, { account: LOCAL_ACCOUNT_NAME, reference: 'acme-marketing' })).phase,
    ).toBe('awaiting-fee-approval');
  }, 120_000);

  it('runs each line verbatim in a shell: exit 0 and a sensible answer', async () => {
    const s = stack as LocalStack;
    // What each line's answer says (in the order of the README).
    const expected: RegExp[] = [
      /initech-unverified[\s\S]*acme-marketing|acme-marketing[\s\S]*initech-unverified/,
      /brand\/local\/initech-unverified[\s\S]*needs-correction/,
      /done/,
      /done/,
    ];
    for (const [i, line] of lines.entries()) {
      let result: { stdout: string; stderr: string; code: number };
      try {
        const { stdout, stderr } = await run('bash', ['-c', line], {
          cwd: projectRoot,
          env: shellEnv(s),
          timeout: 60_000,
        });
        result = { stdout, stderr, code: 0 };
      } catch (error) {
        const e = error as { stdout?: string; stderr?: string; code?: number };
        result = { stdout: e.stdout ?? '', stderr: e.stderr ?? '', code: e.code ?? -1 };
      }
      expect(result.code, `${line}\n${result.stderr}${result.stdout}`).toBe(0);
      expect(result.stdout, line).toMatch(expected[i] ?? /./);
      expect(result.stderr, line).not.toMatch(/binary\/encrypted|Unknown encoding/);
    }
    // The two operator steps took effect.
    await until(
      'brand/initech-unverified after the correction',
      () =>
        getBrandStatus(s.client, { account: LOCAL_ACCOUNT_NAME, reference: 'initech-unverified' }).then(
          (x) => x.phase,
        ),
      (p) => p !== 'needs-correction',
    );
    await until(
      'campaign/acme-marketing after the fee approval',
      () =>
        getCampaignStatus(s.client, { account: LOCAL_ACCOUNT_NAME, reference: 'acme-marketing' }).then(
          (x) => x.phase,
        ),
      (p) => p !== 'awaiting-fee-approval',
    );
  }, 240_000);

  it("`temporal workflow query --name status` and `workflow metadata` with the stack's profile decode through its codec server", async () => {
    const s = stack as LocalStack;
    const temporal = async (args: string[]) => {
      const env: NodeJS.ProcessEnv = { ...shellEnv(s), TEMPORAL_CONFIG_FILE: s.codec.cliConfigFile };
      delete env.TEMPORAL_ADDRESS;
      try {
        const { stdout } = await run(temporalCliPath(), args, { env, timeout: 60_000 });
        return stdout;
      } catch (error) {
        const e = error as { stdout?: string; stderr?: string };
        throw new Error(`temporal ${args.join(' ')} failed: ${e.stderr ?? ''}${e.stdout ?? ''}`);
      }
    };
    const query = await temporal([
      'workflow',
      'query',
      '--workflow-id',
      `brand/${LOCAL_ACCOUNT_NAME}/acme-widgets`,
      '--name',
      'status',
      '--output',
      'json',
    ]);
    // The query's answer decoded: the brand's status, not an encrypted payload.
    expect(query).toContain('acme-widgets');
    expect(query).toMatch(/"phase"/);
    expect(query).not.toMatch(/binary\/encrypted/);
    const metadata = await temporal([
      'workflow',
      'metadata',
      '--workflow-id',
      `brand/${LOCAL_ACCOUNT_NAME}/acme-widgets`,
    ]);
    expect(metadata).not.toMatch(/binary\/encrypted|Invalid input/);
    // The Web UI's current details: the brand's phase and what it waits for (issue 34, item 7).
    expect(metadata).toMatch(/\*\*Brand\*\* `acme-widgets` \(account `local`\): phase \*\*[a-z-]+\*\*/);
    expect(metadata).toMatch(/Waits for: |Working: /);
  }, 120_000);
});
