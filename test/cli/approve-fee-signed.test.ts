/**
 * A signed fee approval as an operator types it (issue 35, item 3): `tcr approvers keygen` writes the
 * approver's private key (0600, never replacing a file) and prints the public entry; the workers run
 * with an approvers file holding it (TCR_FEE_APPROVERS_FILE); `tcr campaign approve-fee REF --by
 * alice` without a signature is refused and nothing is created; with `--signing-key` the campaign is
 * created once and `tcr status` shows the approval verified. Against the dev server, the simulator
 * and createWorkers (real activities), commands in-process through runCli.
 */
import { randomUUID } from 'node:crypto';
import { chmodSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForBrandPhase } from '../../src/orders/brand-client.js';
import { getCampaignStatus, waitForCampaignPhase } from '../../src/orders/campaign-orders.js';
import { SimulatorControl } from '../../src/simulator/control-client.js';
import { type RunningSimulator, startSimulator } from '../../src/simulator/index.js';
import { createWorkers, type RunningWorkers } from '../../src/workers/create-workers.js';
import { qualifyingCampaign } from '../fixtures/campaign-env.js';
import { simulatorAccount } from '../fixtures/workflow-simulator.js';
import { devServerEnv, workflowBundle } from '../support/temporal-env.js';
import { brandOrder, tcr, tempDir, writeJson } from './support.js';

const workflowsPath = fileURLToPath(new URL('../../src/workflows/index.ts', import.meta.url));
const ACCOUNT = 'local';
const dir = tempDir();
const keyFile = join(dir, 'alice.key');
const approversFile = join(dir, 'approvers.json');

let env: TestWorkflowEnvironment;
let sim: RunningSimulator;
let workers: RunningWorkers | undefined;
let running: Promise<void> | undefined;

beforeAll(async () => {
  env = await devServerEnv();
  sim = await startSimulator({ rateLimits: false });
});

afterAll(async () => {
  await workers?.shutdown();
  await running?.catch(() => undefined);
  await sim?.close();
  await env?.teardown();
});

async function startWorkers() {
  workers = await createWorkers(
    {
      temporal: { address: env.address, namespace: 'default' },
      accounts: [simulatorAccount(sim, ACCOUNT)],
    },
    {
      connection: env.nativeConnection,
      workflowBundle: await workflowBundle(workflowsPath),
      feeApproversFile: approversFile,
    },
  );
  running = workers.run();
}

describe('tcr approvers keygen, then approve-fee signed against workers with an approvers file', () => {
  it('keygen writes a 0600 key file once and prints the public entry', async () => {
    const made = await tcr(['approvers', 'keygen', '--name', 'alice', '--out', keyFile, '--json']);
    expect(made.code, made.stderr).toBe(0);
    const { name, publicKey } = JSON.parse(made.stdout) as { name: string; publicKey: string };
    expect(name).toBe('alice');
    expect(Buffer.from(publicKey, 'base64')).toHaveLength(32);
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    const again = await tcr(['approvers', 'keygen', '--name', 'alice', '--out', keyFile]);
    expect(again.code).toBe(3);
    expect(again.stderr).toMatch(/exists, never replaced/);
    writeFileSync(approversFile, JSON.stringify({ version: 1, approvers: { alice: publicKey } }));
    chmodSync(approversFile, 0o644);
  });

  it('an invalid approvers file stops the workers from starting, naming the variable and field', async () => {
    const bad = writeJson(dir, 'bad-approvers.json', { version: 1, approvers: { alice: 'not-a-key' } });
    chmodSync(bad, 0o644);
    await expect(
      createWorkers(
        { temporal: { address: env.address, namespace: 'default' }, accounts: [] },
        { connection: env.nativeConnection, feeApproversFile: bad },
      ),
    ).rejects.toThrow(/TCR_FEE_APPROVERS_FILE .*approvers\.alice: expected a base64 Ed25519 public key/);
  });

  it('unsigned: refused, nothing created; signed with --signing-key: created once, verified', async () => {
    await startWorkers();
    const brandRef = `globex-${randomUUID().slice(0, 8)}`;
    const reference = `globex-c-${randomUUID().slice(0, 8)}`;
    const brandFile = writeJson(dir, `${brandRef}.json`, brandOrder(brandRef, ACCOUNT));
    expect((await tcr(['brand', 'register', brandFile], { client: env.client })).code).toBe(0);
    await waitForBrandPhase(env.client, brandRef, 'ready', 30_000);
    const order = { reference, account: ACCOUNT, brandReference: brandRef, upstreamCnpId: 'SINCH' };
    const file = writeJson(dir, 'order.json', {
      ...order,
      requireFeeApproval: true,
      campaign: qualifyingCampaign(),
    });
    expect((await tcr(['campaign', 'create', file], { client: env.client })).code).toBe(0);
    await waitForCampaignPhase(env.client, reference, 'awaiting-fee-approval', 30_000);

    const unsigned = await tcr(['campaign', 'approve-fee', reference, '--by', 'alice'], {
      client: env.client,
    });
    expect(unsigned.code).toBe(1);
    expect(`${unsigned.stdout}\n${unsigned.stderr}`).toMatch(/refused.*signedApproval: required/s);
    const still = await getCampaignStatus(env.client, reference);
    expect(still).toMatchObject({ phase: 'awaiting-fee-approval', created: false });
    expect(still.feeApprovedBy).toBeUndefined();

    chmodSync(keyFile, 0o644);
    const exposed = await tcr(
      ['campaign', 'approve-fee', reference, '--by', 'alice', '--signing-key', keyFile],
      {
        client: env.client,
      },
    );
    expect(exposed.code).toBe(3);
    expect(exposed.stderr).toMatch(/--signing-key .*chmod 600/);
    chmodSync(keyFile, 0o600);

    const signed = await tcr(
      ['campaign', 'approve-fee', reference, '--by', 'alice', '--signing-key', keyFile, '--json'],
      { client: env.client },
    );
    expect(signed.code, signed.stderr).toBe(0);
    expect(JSON.parse(signed.stdout)).toMatchObject({
      outcome: 'done',
      ids: { campaignId: expect.any(String) },
    });
    const campaignId = JSON.parse(signed.stdout).ids.campaignId as string;
    const fees = (await new SimulatorControl(sim.url).ledger()).filter(
      (e) => e.kind === 'CAMPAIGN_REGISTRATION',
    );
    expect(fees.filter((e) => e.campaignId === campaignId)).toHaveLength(1);
    const shown = await tcr(['status', reference], { client: env.client });
    expect(shown.stdout).toMatch(/approved by alice \(signature verified\)/);
  });
});
