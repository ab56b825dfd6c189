/**
 * `tcr vet order --payload-file` and `tcr vet import --class`: the POLITICAL order's payload (a JSON
 * object from a file) and the import's declared class reach the brand workflow's update; a payload
 * that is not a JSON object, or on another class, is refused at the edge (exit 3) with nothing sent.
 */
import type { Client } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { tcr, tempDir, writeJson } from './support.js';

function recordingClient(): { client: Client; args: unknown[] } {
  const args: unknown[] = [];
  const client = {
    workflow: {
      getHandle: () => ({
        async executeUpdate(_definition: unknown, options?: { args?: unknown[] }) {
          args.push(...(options?.args ?? []));
          return { id: 1, operation: 'x', outcome: 'done', phase: 'ready' };
        },
      }),
    },
  } as unknown as Client;
  return { client, args };
}

const order = ['vet', 'order', 'acme', '--evp', 'AEGIS'];

describe('tcr vet: political payload and declared import class', () => {
  it('sends the payload file of a POLITICAL order, and an import with its class', async () => {
    const payload = { additionalVettingPayload: { committeeId: 'C00123456', locale: 'FEDERAL' } };
    const file = writeJson(tempDir(), 'payload.json', payload);
    const sent = recordingClient();
    const run = await tcr([...order, '--class', 'POLITICAL', '--payload-file', file], {
      client: sent.client,
      env: { TCR_ACCOUNT: 'local' },
    });
    expect(run.code, run.stderr).toBe(0);
    expect(sent.args).toEqual([{ evpId: 'AEGIS', vettingClass: 'POLITICAL', politicalPayload: payload }]);

    const imported = recordingClient();
    const importRun = await tcr(
      ['vet', 'import', 'acme', '--evp', 'CV', '--vetting-id', 'cv-1', '--class', 'POLITICAL'],
      { client: imported.client, env: { TCR_ACCOUNT: 'local' } },
    );
    expect(importRun.code, importRun.stderr).toBe(0);
    expect(imported.args).toEqual([{ evpId: 'CV', vettingId: 'cv-1', vettingClass: 'POLITICAL' }]);
  });

  it('refuses a payload that is not a JSON object, or on a STANDARD order, naming the field; nothing is sent', async () => {
    const dir = tempDir();
    for (const [cls, content] of [
      ['POLITICAL', ['a', 'b']],
      ['POLITICAL', '{not json'],
      ['STANDARD', { committeeId: 'C1' }],
    ] as const) {
      const sent = recordingClient();
      const file = writeJson(dir, `p-${cls}.json`, content);
      const run = await tcr([...order, '--class', cls, '--payload-file', file], {
        client: sent.client,
        env: { TCR_ACCOUNT: 'local' },
      });
      expect(run.code).toBe(3);
      expect(run.stderr).toMatch(/politicalPayload|not valid JSON/);
      expect(sent.args).toEqual([]);
    }
  });
});
