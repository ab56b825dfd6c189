/**
 * `tcr campaign confirm-dca REF [--by NAME] [--note TEXT]` against a recording client, no server: the
 * checked request goes to the campaign's `confirmDcaComplete` update, `--by` defaults to $USER, and a
 * bad request is refused before anything is sent.
 */
import type { Client } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import type { OperationOutcome } from '../../src/workflows/entity/operations.js';
import { tcr } from './support.js';

function recordingClient(outcome: OperationOutcome) {
  const calls: { workflowId: string; update: string; args: unknown[] | undefined }[] = [];
  const client = {
    workflow: {
      getHandle: (workflowId: string) => ({
        async executeUpdate(definition: { name: string }, options?: { args?: unknown[] }) {
          calls.push({ workflowId, update: definition.name, args: options?.args });
          return outcome;
        },
      }),
    },
  } as unknown as Client;
  return { client, calls };
}

const done: OperationOutcome = { id: 1, operation: 'confirmDcaComplete', outcome: 'done', phase: 'running' };

describe('tcr campaign confirm-dca', () => {
  it('sends confirmDcaComplete with who confirmed and the note', async () => {
    const { client, calls } = recordingClient(done);
    const run = await tcr(
      ['campaign', 'confirm-dca', 'c1', '--by', 'alice', '--note', 'portal: accepted by SINCH'],
      { client, env: { TCR_ACCOUNT: 'local' } },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(calls).toEqual([
      {
        workflowId: 'campaign/local/c1',
        update: 'confirmDcaComplete',
        args: [{ confirmedBy: 'alice', note: 'portal: accepted by SINCH' }],
      },
    ]);
    expect(run.stdout).toBe('DCA acceptance confirmed: done, phase running');
  });

  it('--by defaults to $USER; no note is sent when none is given', async () => {
    const { client, calls } = recordingClient(done);
    const run = await tcr(['campaign', 'confirm-dca', 'campaign/c2'], {
      client,
      env: { USER: 'bob', TCR_ACCOUNT: 'local' },
    });
    expect(run.code, run.stderr).toBe(0);
    expect(calls[0]).toMatchObject({ workflowId: 'campaign/local/c2', args: [{ confirmedBy: 'bob' }] });
  });

  it('an empty note is refused naming the field, and nothing is sent', async () => {
    const { client, calls } = recordingClient(done);
    const run = await tcr(['campaign', 'confirm-dca', 'c1', '--by', 'alice', '--note', ''], {
      client,
      env: {},
    });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/note/);
    expect(calls).toEqual([]);
  });

  it('is listed in the campaign group help', async () => {
    const run = await tcr(['campaign', '--help'], { env: {} });
    expect(`${run.stdout}\n${run.stderr}`).toMatch(/confirm-dca/);
  });
});
