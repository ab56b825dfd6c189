/**
 * Every operator action command (src/cli/action-command.ts) against a recording client, no server:
 * the checked request goes to the named update of the right workflow, the outcome is printed in one
 * line (or as JSON), and the exit code is 0 only for `done`. A Temporal failure names the workflow
 * and the update.
 */
import type { Client } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import type { OperationOutcome } from '../../src/workflows/entity/operations.js';
import { tcr } from './support.js';

interface Call {
  workflowId: string;
  update: string;
  args: unknown[] | undefined;
}

/** A client whose updates are recorded and answer `outcome` (or throw it, when it is an Error). */
function recordingClient(outcome: OperationOutcome | Error): { client: Client; calls: Call[] } {
  const calls: Call[] = [];
  const client = {
    workflow: {
      getHandle: (workflowId: string) => ({
        async executeUpdate(definition: { name: string }, options?: { args?: unknown[] }) {
          calls.push({ workflowId, update: definition.name, args: options?.args });
          if (outcome instanceof Error) throw outcome;
          return outcome;
        },
      }),
    },
  } as unknown as Client;
  return { client, calls };
}

const done: OperationOutcome = {
  id: 1,
  operation: 'x',
  outcome: 'done',
  phase: 'active',
  ids: { brandId: 'B1' },
};
const refused: OperationOutcome = {
  id: 2,
  operation: 'x',
  outcome: 'refused',
  phase: 'registering',
  detail: 'not now',
  registryErrors: [{ fields: ['email'], description: 'bad email' }],
};

const cases: {
  argv: string[];
  workflowId: string;
  update: string;
  args: unknown[] | undefined;
  action: string;
}[] = [
  {
    argv: ['brand', 'correct', 'brand/acme', '--set', 'email=a@b.co', '--revet'],
    workflowId: 'brand/local/acme',
    update: 'correctBrand',
    args: [{ patch: { email: 'a@b.co' }, revet: true }],
    action: 'corrected',
  },
  {
    argv: ['brand', 'revet', 'acme'],
    workflowId: 'brand/local/acme',
    update: 'revet',
    args: undefined,
    action: 'revet requested',
  },
  {
    argv: ['brand', 'appeal', 'acme', '--category', 'VERIFY_TAX_ID', '--explanation', 'wrong'],
    workflowId: 'brand/local/acme',
    update: 'appeal',
    args: [{ appealCategories: ['VERIFY_TAX_ID'], attachmentUuids: [], explanation: 'wrong' }],
    action: 'appeal filed',
  },
  {
    argv: ['brand', 'cancel', 'acme', '--reason', 'gone'],
    workflowId: 'brand/local/acme',
    update: 'cancel',
    args: [{ reason: 'gone' }],
    action: 'cancelled',
  },
  {
    argv: ['brand', 'acknowledge', 'acme', '--key', 'appeal-overdue'],
    workflowId: 'brand/local/acme',
    update: 'acknowledge',
    args: [{ key: 'appeal-overdue' }],
    action: 'acknowledged',
  },
  {
    argv: ['vet', 'order', 'acme', '--evp', 'AEGIS', '--class', 'STANDARD'],
    workflowId: 'brand/local/acme',
    update: 'orderVet',
    args: [{ evpId: 'AEGIS', vettingClass: 'STANDARD' }],
    action: 'vet ordered',
  },
  {
    argv: ['vet', 'import', 'acme', '--evp', 'AEGIS', '--vetting-id', 'v1', '--token', 't'],
    workflowId: 'brand/local/acme',
    update: 'importVet',
    args: [{ evpId: 'AEGIS', vettingId: 'v1', vettingToken: 't' }],
    action: 'vet import requested',
  },
  {
    argv: ['campaign', 'resubmit', 'campaign/c1', '--set', 'description=A description long enough here.'],
    workflowId: 'campaign/local/c1',
    update: 'resubmit',
    args: [{ changes: { description: 'A description long enough here.' } }],
    action: 'resubmitted',
  },
  {
    argv: [
      'campaign',
      'update',
      'c1',
      '--set',
      'autoRenewal=false',
      '--set',
      'mnoIDs=10017,10035',
      '--answers',
      'nudge-X',
    ],
    workflowId: 'campaign/local/c1',
    update: 'update',
    args: [{ changes: { autoRenewal: false, mnoIDs: [10017, 10035] }, answers: 'nudge-X' }],
    action: 'updated',
  },
  {
    argv: ['campaign', 'share', 'c1', '--partner', 'SFHGR'],
    workflowId: 'campaign/local/c1',
    update: 'shareWith',
    args: [{ upstreamCnpId: 'SFHGR' }],
    action: 'shared',
  },
  {
    argv: ['campaign', 'approve-fee', 'c1', '--max-fee', '10'],
    workflowId: 'campaign/local/c1',
    update: 'approveFee',
    args: [{ approvedBy: 'alice', maxMonthlyFee: 10 }],
    action: 'fee approved',
  },
  {
    argv: ['campaign', 'cancel', 'c1', '--reason', 'gone'],
    workflowId: 'campaign/local/c1',
    update: 'cancel',
    args: [{ reason: 'gone' }],
    action: 'cancelled',
  },
  {
    argv: ['campaign', 'acknowledge', 'c1', '--key', 'k1'],
    workflowId: 'campaign/local/c1',
    update: 'acknowledge',
    args: [{ key: 'k1' }],
    action: 'acknowledged',
  },
];

describe('tcr campaign update: --set values read by the field type', () => {
  it('a value that is not of the field type, or an unknown field, is refused naming it, nothing sent', async () => {
    const env = { USER: 'alice', TCR_ACCOUNT: 'local' };
    for (const [set, named] of [
      ['autoRenewal=maybe', 'changes.autoRenewal'],
      ['mnoIDs=1,x', 'changes.mnoIDs'],
      ['colour=red', 'changes.colour'],
    ] as const) {
      const rec = recordingClient(done);
      const run = await tcr(['campaign', 'update', 'c1', '--set', set], { client: rec.client, env });
      expect(run.code).not.toBe(0);
      expect(run.stderr).toContain(named);
      expect(rec.calls).toEqual([]);
    }
  });
});

describe('operator action commands', () => {
  for (const c of cases)
    it(`${c.argv.slice(0, 2).join(' ')}: sends ${c.update} to ${c.workflowId} and exits 0 only when done`, async () => {
      // The account a bare REF (or brand/REF) is of.
      const env = { USER: 'alice', TCR_ACCOUNT: 'local' };
      const ok = recordingClient(done);
      const run = await tcr(c.argv, { client: ok.client, env });
      expect(run.code, run.stderr).toBe(0);
      expect(ok.calls).toEqual([{ workflowId: c.workflowId, update: c.update, args: c.args }]);
      expect(run.stdout).toBe(`${c.action}: done, phase active, brandId B1`);

      const no = recordingClient(refused);
      const refusedRun = await tcr(c.argv, { client: no.client, env });
      expect(refusedRun.code).toBe(1);
      expect(refusedRun.stdout).toBe(`${c.action}: refused, phase registering: not now\n  email: bad email`);

      const json = await tcr([...c.argv, '--json'], { client: recordingClient(done).client, env });
      expect(json.code).toBe(0);
      expect(JSON.parse(json.stdout)).toEqual({ workflowId: c.workflowId, action: c.action, ...done });

      const failing = await tcr(c.argv, { client: recordingClient(new Error('boom')).client, env });
      expect(failing.code).toBe(1);
      // A vet request's failure also names its idempotency key (src/cli/vet.ts).
      expect(failing.stderr.replace(/ \(idempotency key \S+: .*\)$/, '')).toBe(
        `tcr: ${c.workflowId}: ${c.update} failed: boom`,
      );
    });
});
