/**
 * A fee approval signed by its approver and verified by the product (issue 35, item 3). With an
 * approvers file configured for the workers, the approveFee path asks the verifyFeeApproval activity
 * before the billed creation: an unsigned approval, a signature by a key the file does not hold, one
 * over another campaign's statement, one whose maxMonthlyFee was changed after signing, and an
 * expired one are refused, the campaign staying in awaiting-fee-approval with nothing
 * created or billed; a good one creates the campaign once, feeApprovedBy verified. On the
 * time-skipping server with the simulator (campaign-env.ts).
 */

import { createPrivateKey } from 'node:crypto';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateApproverKey } from '../../src/config/fee-approvers.js';
import {
  approveCampaignFee,
  getCampaignStatus,
  signedFeeApproval,
  waitForCampaignPhase,
} from '../../src/orders/campaign-orders.js';
import {
  type CampaignBench,
  closeCampaignBench,
  orderBenchBrand,
  orderBenchCampaign,
  startCampaignBench,
} from '../fixtures/campaign-env.js';
import { recordHistory } from '../fixtures/workflow-harness.js';
import { registrationFeesFor } from '../support/registration-fees.js';
import { tempDir } from '../support/temp-dir.js';
import { timeSkippingEnv } from '../support/temporal-env.js';

let env: TestWorkflowEnvironment;
let bench: CampaignBench;
let brandReference: string;
const handles: { terminate(reason?: string): Promise<unknown> }[] = [];
const alice = generateApproverKey();
const mallory = generateApproverKey();
const aliceKey = createPrivateKey(alice.privateKeyPem);
const malloryKey = createPrivateKey(mallory.privateKeyPem);

beforeAll(async () => {
  const dir = tempDir('fee-approvers-');
  const file = join(dir, 'approvers.json');
  writeFileSync(file, JSON.stringify({ version: 1, approvers: { alice: alice.publicKey } }));
  chmodSync(file, 0o644);
  env = await timeSkippingEnv();
  bench = await startCampaignBench(env, { feeApproversFile: file });
  brandReference = (await orderBenchBrand(bench, (h) => handles.push(h), { until: 'ready' })).brandReference;
});
afterAll(() => closeCampaignBench(handles, bench, env));

async function awaitingApproval() {
  const { reference, handle } = await orderBenchCampaign(bench, brandReference, { requireFeeApproval: true });
  handles.push(handle);
  const status = await waitForCampaignPhase(env.client, reference, 'awaiting-fee-approval', 20_000);
  return { reference, handle, fee: status.expectedMonthlyFee! };
}

async function nothingCreated(reference: string) {
  const status = await getCampaignStatus(env.client, reference);
  expect(status.phase).toBe('awaiting-fee-approval');
  expect(status.created).toBe(false);
  expect(status.feeApprovedBy).toBeUndefined();
  expect(status.needsAction.map((a) => a.key)).toContain('fee-approval');
  expect(await registrationFeesFor(bench, reference)).toEqual([]);
}

describe('signed fee approvals, approvers configured', () => {
  it('refuses unsigned, unknown-key, other-campaign, tampered-fee and expired approvals; a good one creates the campaign once, verified', async () => {
    const { reference, handle, fee } = await awaitingApproval();
    const other = { account: bench.account, reference: 'another-campaign' };
    const ref = { account: bench.account, reference };
    const tries = [
      ['unsigned', { approvedBy: 'alice' }, /signedApproval: required/],
      [
        'a key the file does not hold',
        await signedFeeApproval(env.client, ref, { approvedBy: 'alice' }, malloryKey),
        /signature: not alice's signature/,
      ],
      [
        'an approver the file does not name',
        await signedFeeApproval(env.client, ref, { approvedBy: 'mallory' }, malloryKey),
        /mallory is not an approver/,
      ],
      [
        "another campaign's statement",
        await signedFeeApproval(env.client, other, { approvedBy: 'alice' }, aliceKey),
        /signature: not alice's signature/,
      ],
      [
        'maxMonthlyFee changed after signing',
        {
          ...(await signedFeeApproval(
            env.client,
            ref,
            { approvedBy: 'alice', maxMonthlyFee: fee },
            aliceKey,
          )),
          maxMonthlyFee: fee + 1000,
        },
        /signature: not alice's signature/,
      ],
      [
        'expired',
        await signedFeeApproval(
          env.client,
          ref,
          { approvedBy: 'alice' },
          aliceKey,
          new Date(Date.now() - 20 * 60_000),
        ),
        /more than 15 minutes ago/,
      ],
    ] as const;
    for (const [what, request, reason] of tries) {
      const outcome = await approveCampaignFee(env.client, ref, request);
      expect(outcome.outcome, what).toBe('refused');
      expect(outcome.detail, what).toMatch(reason);
      await nothingCreated(reference);
    }

    const good = await signedFeeApproval(
      env.client,
      reference,
      { approvedBy: 'alice', maxMonthlyFee: fee },
      aliceKey,
    );
    const approved = await approveCampaignFee(env.client, reference, good);
    expect(approved).toMatchObject({ outcome: 'done', ids: { campaignId: expect.any(String) } });
    const after = await getCampaignStatus(env.client, reference);
    expect(after).toMatchObject({ created: true, feeApprovedBy: 'alice', feeApprovalVerified: true });
    expect(after.audit.entries.map((e) => e.detail).join('\n')).toContain('by alice (signature verified)');
    expect((await registrationFeesFor(bench, reference)).map((e) => e.campaignId)).toEqual([
      approved.ids!.campaignId,
    ]);
    await recordHistory(handle, 'campaign-fee-approval-signed');
  });
});
