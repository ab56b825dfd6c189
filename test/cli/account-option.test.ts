/**
 * `tcr --account` (issue 35, item 2): workflow ids carry the account, so a steering command's REF is
 * of an account: `--account`, else TCR_ACCOUNT, or named in the id (`brand/{account}/{ref}`). Without
 * one, a bare REF finds only a workflow an earlier release opened under `brand/{ref}`, and otherwise
 * is refused naming the account; nothing is sent.
 */
import { type Client, WorkflowNotFoundError } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { tcr } from './support.js';

/** Records updates; describes nothing (no workflow under a legacy id). */
function recordingClient() {
  const calls: string[] = [];
  const client = {
    workflow: {
      getHandle: (workflowId: string) => ({
        workflowId,
        async executeUpdate(definition: { name: string }) {
          calls.push(`${workflowId} ${definition.name}`);
          return { id: 1, operation: definition.name, outcome: 'done', phase: 'ready' };
        },
        async describe(): Promise<never> {
          throw new WorkflowNotFoundError('not found', workflowId, undefined);
        },
      }),
    },
  } as unknown as Client;
  return { client, calls };
}

describe('tcr --account', () => {
  it("steers the account's workflow: --account, TCR_ACCOUNT, or the account in the id", async () => {
    const flag = recordingClient();
    const byFlag = await tcr(['brand', 'cancel', 'R1', '--reason', 'gone', '--account', 'prod'], {
      client: flag.client,
      env: { TCR_ACCOUNT: 'qa' },
    });
    expect(byFlag.code, byFlag.stderr).toBe(0);
    expect(flag.calls).toEqual(['brand/prod/R1 cancel']);

    const env = recordingClient();
    await tcr(['brand', 'cancel', 'R1', '--reason', 'gone'], {
      client: env.client,
      env: { TCR_ACCOUNT: 'qa' },
    });
    expect(env.calls).toEqual(['brand/qa/R1 cancel']);

    const inId = recordingClient();
    await tcr(['campaign', 'cancel', 'campaign/prod/C1', '--reason', 'gone'], {
      client: inId.client,
      env: {},
    });
    expect(inId.calls).toEqual(['campaign/prod/C1 cancel']);
  });

  it('refuses a bare REF of no known account, naming the account, and sends nothing', async () => {
    const none = recordingClient();
    const run = await tcr(['brand', 'cancel', 'R1', '--reason', 'gone'], { client: none.client, env: {} });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/account/);
    expect(none.calls).toEqual([]);

    const bad = await tcr(['brand', 'cancel', 'R1', '--reason', 'gone', '--account', 'no/slash'], {
      client: none.client,
      env: {},
    });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--account/);
  });
});
