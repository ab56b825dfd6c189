import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { type Api, campaignBody, type Json, privateBrand, startApi } from './helpers.js';

let api: Api;
const START = new Date('2026-06-01T12:00:00.000Z');
beforeAll(async () => {
  api = await startApi({ now: () => new Date(START.getTime()) });
});
beforeEach(() => api.control.reset());
afterAll(() => api.close());

async function brandId(overrides: Record<string, unknown> = {}): Promise<string> {
  return (await api.call('POST', '/brand/nonBlocking', privateBrand(overrides))).body.brandId;
}
const create = (body: unknown) => api.call('POST', '/campaignBuilder', body);
/** Every MNO of a campaign's mnoOperationStatus is REGISTERED, and there is at least one. */
const allRegistered = (status: Record<string, string>) =>
  Object.keys(status).length > 0 && Object.values(status).every((s) => s === 'REGISTERED');

describe('campaign builder checks', () => {
  test('brand check lists every use case with qualification and reasons', async () => {
    const id = await brandId();
    const res = await api.call('GET', `/campaignBuilder/brand/${id}`);
    expect(res.status).toBe(200);
    const byUseCase = Object.fromEntries(res.body.map((e: Json) => [e.usecase, e]));
    expect(byUseCase.MARKETING).toMatchObject({ qualified: true, reasons: [] });
    expect(byUseCase.POLITICAL.qualified).toBe(false);
    expect(byUseCase.SOLE_PROPRIETOR.qualified).toBe(false);
    expect(byUseCase.SWEEPSTAKES.reasons[0]).toMatch(/VETTED_VERIFIED/);
  });

  test('use-case check, and an UNVERIFIED brand qualifies for nothing', async () => {
    const id = await brandId();
    const res = await api.call('GET', `/campaignBuilder/brand/${id}/usecase/MIXED`);
    expect(res.body).toMatchObject({
      usecase: 'MIXED',
      qualified: true,
      minSubUsecases: 2,
      maxSubUsecases: 5,
      monthlyFee: 10,
    });
    expect(Object.keys(res.body.mnoMetadata)).toContain('10017');
    expect((await api.call('GET', `/campaignBuilder/brand/${id}/usecase/NOPE`)).status).toBe(404);
    const bad = await brandId({ companyName: 'UNVERIFIED Ltd' });
    const all = (await api.call('GET', `/campaignBuilder/brand/${bad}`)).body;
    expect(all.length).toBeGreaterThan(0);
    expect(all.filter((e: Json) => e.qualified !== false)).toEqual([]);
  });
});

describe('creation', () => {
  test('returns campaignId and full mnoMetadata; records a fee; GET has monthlyFee', async () => {
    const id = await brandId({ mock: true });
    const res = await create(campaignBody(id, { referenceId: 'camp-1', tag: ['a'], mnoIDs: [] }));
    expect(res.status).toBe(200);
    expect(res.body.campaignId).toMatch(/^C/);
    for (const meta of Object.values<Json>(res.body.mnoMetadata)) {
      expect(Object.keys(meta).sort()).toEqual(
        [
          'brandDailyCap',
          'brandTier',
          'minMsgSamples',
          'mno',
          'mnoReview',
          'mnoSupport',
          'noEmbeddedLink',
          'noEmbeddedPhone',
          'qualify',
          'reqSubscriberHelp',
          'reqSubscriberOptin',
          'reqSubscriberOptout',
        ].sort(),
      );
    }
    const got = (await api.call('GET', `/campaign/${res.body.campaignId}`)).body;
    expect(got).toMatchObject({
      campaignId: res.body.campaignId,
      cspId: 'CSPLOCAL',
      resellerId: 'R000000',
      brandId: id,
      status: 'ACTIVE',
      usecase: 'ACCOUNT_NOTIFICATION',
      referenceId: 'camp-1',
      mock: true,
      monthlyFee: 10,
      autoRenewal: true,
      expirationDate: null,
      nextRenewalOrExpirationDate: '2026-09-01',
      createDate: START.toISOString(),
      billedDate: START.toISOString(),
    });
    const ledger = await api.control.ledger('CSPLOCAL');
    expect(ledger).toEqual([
      expect.objectContaining({ kind: 'CAMPAIGN_REGISTRATION', campaignId: res.body.campaignId, amount: 30 }),
    ]);
  });

  test('duplicate referenceId is refused with 400 and charges nothing', async () => {
    const id = await brandId();
    expect((await create(campaignBody(id, { referenceId: 'same' }))).status).toBe(200);
    const again = await create(campaignBody(id, { referenceId: 'same' }));
    expect(again.status).toBe(400);
    expect(again.body[0]).toMatchObject({ code: 509, fields: ['referenceId'] });
    expect(await api.control.ledger()).toHaveLength(1);
  });

  test('sub-use-case counts between the use case min and max', async () => {
    const id = await brandId();
    expect(
      (await create(campaignBody(id, { usecase: 'MIXED', subUsecases: ['MARKETING'] }))).body[0].code,
    ).toBe(507);
    expect(
      (
        await create(
          campaignBody(id, {
            usecase: 'MIXED',
            subUsecases: [
              'MARKETING',
              '2FA',
              'CUSTOMER_CARE',
              'FRAUD_ALERT',
              'SECURITY_ALERT',
              'POLLING_VOTING',
            ],
          }),
        )
      ).body[0].code,
    ).toBe(507);
    expect(
      (await create(campaignBody(id, { usecase: 'MIXED', subUsecases: ['MARKETING', 'POLITICAL'] }))).body[0]
        .fields,
    ).toEqual(['subUsecases']);
    expect(
      (await create(campaignBody(id, { usecase: 'MIXED', subUsecases: ['MARKETING', '2FA'] }))).status,
    ).toBe(200);
    expect(
      (await create(campaignBody(id, { usecase: 'LOW_VOLUME', subUsecases: ['MARKETING'] }))).status,
    ).toBe(200);
    expect(
      (await create(campaignBody(id, { usecase: 'MARKETING', subUsecases: ['2FA'] }))).body[0].code,
    ).toBe(507);
  });

  test('no qualifying MNO: 508, nothing created or charged; partial qualification is reported', async () => {
    const id = await brandId();
    const none = await create(campaignBody(id, { subscriberOptout: false }));
    expect(none.status).toBe(400);
    expect(none.body[0].code).toBe(508);
    expect((await api.call('GET', '/campaign')).body.totalRecords).toBe(0);
    expect(await api.control.ledger()).toHaveLength(0);
    // Without opt-in only the MNOs that do not require it qualify.
    const partial = await create(campaignBody(id, { subscriberOptin: false }));
    expect(partial.status).toBe(200);
    const qualified = Object.entries<Json>(partial.body.mnoMetadata)
      .filter(([, m]) => m.qualify)
      .map(([k]) => k);
    expect(qualified.sort()).toEqual(['10037', '10043']);
    expect((await create(campaignBody(id, { mnoIDs: [10017, 10035] }))).body.mnoMetadata).toHaveProperty(
      '10035',
    );
    expect((await create(campaignBody(id, { mnoIDs: [99999] }))).body[0].fields).toEqual(['mnoIDs']);
    expect((await create(campaignBody(id, { sample2: null }))).body[0].code).toBe(508);
  });

  test('brand tier and daily cap follow the vet score', async () => {
    const id = await brandId();
    await api.call('PUT', `/brand/${id}/externalVetting`, { evpId: 'AEGIS', vettingId: 'x' });
    const res = await create(campaignBody(id));
    expect(res.body.mnoMetadata['10035']).toMatchObject({ brandTier: 'TOP', brandDailyCap: 200000 });
  });

  test('validation errors name fields; unknown brand is 404', async () => {
    const id = await brandId();
    const res = await create({ ...campaignBody(id), description: 5, embeddedLink: 'yes' });
    expect(res.status).toBe(400);
    expect(res.body.map((e: Json) => e.fields[0]).sort()).toEqual(['description', 'embeddedLink']);
    expect((await create(campaignBody('BNOPE'))).status).toBe(404);
  });
});

describe('list, get, update', () => {
  test('list filters by brandId and referenceId with paging; unknown campaign is 404', async () => {
    const a = await brandId();
    const b = await brandId();
    await create(campaignBody(a, { referenceId: 'a1' }));
    await create(campaignBody(a, { referenceId: 'a2' }));
    await create(campaignBody(b, { referenceId: 'b1' }));
    expect((await api.call('GET', '/campaign')).body.totalRecords).toBe(3);
    expect((await api.call('GET', `/campaign?brandId=${a}`)).body.totalRecords).toBe(2);
    expect((await api.call('GET', '/campaign?referenceId=b1')).body.records[0].brandId).toBe(b);
    const page = (await api.call('GET', '/campaign?recordsPerPage=2&page=2')).body;
    expect(page).toMatchObject({ page: 2, totalRecords: 3 });
    expect(page.records).toHaveLength(1);
    expect((await api.call('GET', '/campaign/CNOPE')).status).toBe(404);
  });

  test('update changes submitted fields only; non-updatable fields are refused', async () => {
    const id = await brandId();
    const { campaignId } = (await create(campaignBody(id))).body;
    const res = await api.call('PUT', `/campaign/${campaignId}`, {
      description: 'A new description for the campaign.',
      autoRenewal: false,
    });
    expect(res.body).toMatchObject({
      description: 'A new description for the campaign.',
      autoRenewal: false,
      expirationDate: '2026-09-01',
      sample1: expect.any(String),
    });
    const refused = await api.call('PUT', `/campaign/${campaignId}`, { usecase: 'MARKETING' });
    expect(refused.body[0]).toMatchObject({ code: 502, fields: ['usecase'] });
  });
});

describe('expiry and renewal', () => {
  test('auto-renewal bills another term; without it the campaign expires on its date', async () => {
    const id = await brandId();
    const renewing = (await create(campaignBody(id))).body.campaignId;
    const ending = (await create(campaignBody(id, { autoRenewal: false }))).body.campaignId;
    expect((await api.call('GET', `/campaign/${ending}`)).body.expirationDate).toBe('2026-09-01');
    await api.control.setClock('2026-09-01T00:00:01.000Z');
    expect((await api.call('GET', `/campaign/${renewing}`)).body).toMatchObject({
      status: 'ACTIVE',
      nextRenewalOrExpirationDate: '2026-12-01',
    });
    expect((await api.call('GET', `/campaign/${ending}`)).body.status).toBe('EXPIRED');
    expect((await api.control.ledger()).map((e) => e.kind)).toEqual([
      'CAMPAIGN_REGISTRATION',
      'CAMPAIGN_REGISTRATION',
      'CAMPAIGN_RENEWAL',
    ]);
    expect(
      (await api.call('PUT', `/campaign/${ending}`, { description: 'changed description' })).body[0].code,
    ).toBe(516);
  });

  test('control API expires and suspends', async () => {
    const id = await brandId();
    const { campaignId } = (await create(campaignBody(id))).body;
    const suspended = await api.control.suspendCampaign(campaignId, 10035);
    expect(suspended.mnoOperationStatus['10035']).toBe('SUSPENDED');
    expect((await api.control.expireCampaign(campaignId)).status).toBe('EXPIRED');
  });
});

describe('sharing', () => {
  async function campaign(overrides: Record<string, unknown> = {}) {
    return (await create(campaignBody(await brandId(), overrides))).body.campaignId as string;
  }
  const share = (id: string, cnp: string) => api.call('PUT', `/campaign/${id}/sharing/${cnp}`);
  const sharing = async (id: string) => (await api.call('GET', `/campaign/${id}/sharing`)).body.sharedByMe;

  test('PUT sharing gives PENDING; no change or rescind while PENDING', async () => {
    const id = await campaign();
    const res = await share(id, 'SINCH');
    expect(res.body).toMatchObject({
      downstreamCnpId: 'CSPLOCAL',
      upstreamCnpId: 'SINCH',
      sharingStatus: 'PENDING',
      explanation: null,
      cnpMigration: false,
    });
    expect((await share(id, 'SINCH')).body[0].code).toBe(513);
    expect((await share(id, 'BANDWIDTH')).body[0].code).toBe(513);
    expect((await share(id, 'NOBODY')).body[0].code).toBe(519);
  });

  test('a DCA accepts after the delay: ACCEPTED and DCA complete, MNOs registered', async () => {
    const id = await campaign();
    await share(id, 'SINCH');
    await api.control.advanceClock(61);
    expect(await sharing(id)).toMatchObject({ sharingStatus: 'ACCEPTED' });
    const got = (await api.call('GET', `/campaign/${id}`)).body;
    expect(allRegistered(got.mnoOperationStatus)).toBe(true);
    expect((await share(id, 'BANDWIDTH')).body[0].code).toBe(514);
  });

  test('a non-DCA partner accepts, then its DCA accepts later (or through the control API)', async () => {
    const id = await campaign();
    await share(id, 'CSPUPSTREAM');
    await api.control.acceptShare(id);
    expect((await sharing(id)).sharingStatus).toBe('ACCEPTED');
    expect(Object.values((await api.call('GET', `/campaign/${id}`)).body.mnoOperationStatus)).toContain(
      'PENDING',
    );
    await api.control.dcaComplete(id);
    expect(allRegistered((await api.call('GET', `/campaign/${id}`)).body.mnoOperationStatus)).toBe(true);
    const other = await campaign();
    await share(other, 'CSPRELAY');
    await api.control.advanceClock(61 + 301);
    expect(allRegistered((await api.call('GET', `/campaign/${other}`)).body.mnoOperationStatus)).toBe(true);
  });

  test('DECLINE scenario: declined with an explanation; resubmit needs a change or another partner', async () => {
    const id = await campaign({ description: 'Please DECLINE this campaign for the scenario.' });
    await share(id, 'SINCH');
    await api.control.advanceClock(61);
    const declined = await sharing(id);
    expect(declined).toMatchObject({
      sharingStatus: 'DECLINED',
      explanation: expect.stringMatching(/DECLINE/),
    });
    expect((await share(id, 'SINCH')).body[0].code).toBe(515);
    expect((await share(id, 'BANDWIDTH')).status).toBe(200);
    await api.control.declineShare(id, 'No thanks');
    expect((await sharing(id)).explanation).toBe('No thanks');
    await api.call('PUT', `/campaign/${id}`, { description: 'A corrected description for the campaign.' });
    expect((await share(id, 'BANDWIDTH')).body.sharingStatus).toBe('PENDING');
  });
});
