/**
 * `tcr dev --strict`: the local stack with a simulator that answers only what the registry's spec
 * documents (no mobilePhoneVerifiedDate, no mnoOperationStatus, no undocumented list filters) and caps
 * every list page at 3 records whatever is asked. Every example order still reaches its documented end
 * state, through the simulator's signed webhooks and the workflows' reads of documented fields alone.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { getBrandStatus } from '../../src/orders/brand-client.js';
import { getCampaignStatus } from '../../src/orders/campaign-orders.js';
import type { LocalStack } from '../../src/stack/index.js';
import { expectedEndStates, startTestLocalStack, waitForEndStates } from './example-end-states.js';

const dataDir = mkdtempSync(join(tmpdir(), 'tcr-stack-strict-'));
let stack: LocalStack | undefined;

beforeAll(async () => {
  // The example order system (its own campaigns and fees) is tested in test/nexus: off here, so the fees
  // checked are the examples' own.
  stack = await startTestLocalStack(dataDir, { strict: true, maxRecordsPerPage: 3, orderSystem: false });
}, 180_000);

afterAll(async () => {
  await stack?.stop();
  rmSync(dataDir, { recursive: true, force: true });
}, 60_000);

it('brings every example to its documented end state against the strict registry', async () => {
  const s = stack!;
  await s.examples?.done;
  expect(await waitForEndStates(s, 150_000)).toEqual(expectedEndStates);

  // The sole proprietor is ready from what the spec documents: the registry still reports it
  // SELF_DECLARED, and the strict registry has no mobile-verification field.
  const sole = await getBrandStatus(s.client, 'bright-minds-tutoring');
  expect(sole.identityStatus).toBe('SELF_DECLARED');
  const answered = await fetch(`${s.urls.simulatorApi}/brand/${sole.brandId}`, {
    headers: { authorization: `Basic ${Buffer.from('local-api-key:local-api-secret').toString('base64')}` },
  }).then((r) => r.json() as Promise<Record<string, unknown>>);
  expect(answered).toMatchObject({ brandId: sole.brandId, identityStatus: 'SELF_DECLARED' });
  expect(answered).not.toHaveProperty('mobilePhoneVerifiedDate');

  // Shared with SINCH, a DCA: its acceptance is the DCA's; shared with the partner CSPUPSTREAM: the
  // CAMPAIGN_DCA_COMPLETE webhook decided.
  const direct = await getCampaignStatus(s.client, 'acme-account-notifications');
  expect(direct.sharing).toMatchObject({ upstreamCnpId: 'SINCH', sharingStatus: 'ACCEPTED' });
  const viaPartner = await getCampaignStatus(s.client, 'globex-delivery-updates');
  expect(viaPartner.sharing).toMatchObject({ upstreamCnpId: 'CSPUPSTREAM', sharingStatus: 'ACCEPTED' });
  expect(viaPartner.dcaComplete).toBe(true);
  expect(viaPartner.needsAction).toEqual([]);

  // The example vet (AEGIS STANDARD, ordered once acme-widgets is ready) follows the strict vet records
  // to ACTIVE, and the brand to VETTED_VERIFIED.
  let acme = await getBrandStatus(s.client, 'acme-widgets');
  for (
    let i = 0;
    i < 60 && !(acme.identityStatus === 'VETTED_VERIFIED' && acme.vets[0]?.state === 'active');
    i++
  ) {
    await new Promise((r) => setTimeout(r, 1_000));
    acme = await getBrandStatus(s.client, 'acme-widgets');
  }
  expect(acme.identityStatus).toBe('VETTED_VERIFIED');
  expect(acme.vets.map((v) => [v.evpId, v.state])).toEqual([['AEGIS', 'active']]);

  const fees = (await s.control.ledger()).filter((e) => e.kind === 'CAMPAIGN_REGISTRATION');
  expect(fees.map((e) => e.campaignId).sort()).toEqual(
    [
      direct.campaignId,
      viaPartner.campaignId,
      (await getCampaignStatus(s.client, 'riverside-volunteer-alerts')).campaignId,
    ].sort(),
  );
}, 240_000);
