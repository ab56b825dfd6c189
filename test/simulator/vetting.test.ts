import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { type Api, campaignBody, privateBrand, soleBrand, startApi } from './helpers.js';

let api: Api;
beforeAll(async () => {
  api = await startApi({ now: () => new Date('2026-06-01T12:00:00.000Z') });
});
beforeEach(() => api.control.reset());
afterAll(() => api.close());

async function brand(overrides: Record<string, unknown> = {}) {
  return (await api.call('POST', '/brand/nonBlocking', privateBrand(overrides))).body;
}
const vets = async (brandId: string) => (await api.call('GET', `/brand/${brandId}/externalVetting`)).body;

describe('ordered vets', () => {
  test('PENDING → UNSCORE → ACTIVE after the configured delays; brand becomes VETTED_VERIFIED', async () => {
    const b = await brand();
    const order = await api.call('POST', `/brand/${b.brandId}/externalVetting`, {
      evpId: 'AEGIS',
      vettingClass: 'STANDARD',
    });
    expect(order.status).toBe(200);
    expect(order.body).toMatchObject({
      evpId: 'AEGIS',
      vettingClass: 'STANDARD',
      vettingStatus: 'PENDING',
      vettingScore: null,
      vettedDate: null,
      createDate: expect.any(String),
      vettingId: expect.any(String),
    });
    await api.control.advanceClock(61);
    expect((await vets(b.brandId))[0].vettingStatus).toBe('UNSCORE');
    await api.control.advanceClock(3600);
    const [vet] = await vets(b.brandId);
    expect(vet).toMatchObject({ vettingStatus: 'ACTIVE', vettingScore: 75, vettedDate: expect.any(String) });
    expect((await api.call('GET', `/brand/${b.brandId}`)).body.identityStatus).toBe('VETTED_VERIFIED');
  });

  test('FAILED with reasons for a VETFAIL brand or an UNVERIFIED one; brand unchanged', async () => {
    const b = await brand({ companyName: 'VETFAIL Corp' });
    await api.call('POST', `/brand/${b.brandId}/externalVetting`, { evpId: 'WMC', vettingClass: 'ENHANCED' });
    await api.control.advanceClock(3601);
    const [vet] = await vets(b.brandId);
    expect(vet.vettingStatus).toBe('FAILED');
    expect(vet.reasons.length).toBeGreaterThan(0);
    expect((await api.call('GET', `/brand/${b.brandId}`)).body.identityStatus).toBe('VERIFIED');
    const u = await brand({ companyName: 'UNVERIFIED Corp' });
    await api.call('POST', `/brand/${u.brandId}/externalVetting`, { evpId: 'WMC', vettingClass: 'STANDARD' });
    await api.control.advanceClock(3601);
    expect((await vets(u.brandId))[0].vettingStatus).toBe('FAILED');
  });

  test('control API decides: UNSCORE, ACTIVE with a score, FAILED with reasons', async () => {
    const b = await brand();
    const { vettingId } = (
      await api.call('POST', `/brand/${b.brandId}/externalVetting`, {
        evpId: 'AEGIS',
        vettingClass: 'ENHANCED',
      })
    ).body;
    expect((await api.control.decideVet(vettingId, { outcome: 'UNSCORE' })).vettingStatus).toBe('UNSCORE');
    expect(await api.control.decideVet(vettingId, { outcome: 'ACTIVE', score: 42 })).toMatchObject({
      vettingStatus: 'ACTIVE',
      vettingScore: 42,
    });
    await expect(api.control.decideVet(vettingId, { outcome: 'FAILED' })).rejects.toThrow(/400/);
    const direct = (
      await api.call('POST', `/brand/${b.brandId}/externalVetting`, {
        evpId: 'WMC',
        vettingClass: 'STANDARD',
      })
    ).body;
    // PENDING → ACTIVE directly, by the rule
    expect(await api.control.decideVet(direct.vettingId)).toMatchObject({
      vettingStatus: 'ACTIVE',
      vettingScore: 75,
    });
    const second = (
      await api.call('POST', `/brand/${b.brandId}/externalVetting`, {
        evpId: 'AEGIS',
        vettingClass: 'STANDARD',
      })
    ).body;
    expect(
      await api.control.decideVet(second.vettingId, { outcome: 'FAILED', reasons: ['bad address'] }),
    ).toMatchObject({ vettingStatus: 'FAILED', reasons: ['bad address'] });
  });

  test('unsupported orders are refused', async () => {
    const b = await brand();
    const wmcPolitical = await api.call('POST', `/brand/${b.brandId}/externalVetting`, {
      evpId: 'WMC',
      vettingClass: 'POLITICAL',
    });
    expect(wmcPolitical.body[0].code).toBe(518);
    const cvOrder = await api.call('POST', `/brand/${b.brandId}/externalVetting`, {
      evpId: 'CV',
      vettingClass: 'POLITICAL',
    });
    expect(cvOrder.body[0].code).toBe(518);
    expect(
      (
        await api.call('POST', `/brand/${b.brandId}/externalVetting`, {
          evpId: 'NOPE',
          vettingClass: 'STANDARD',
        })
      ).body[0].fields,
    ).toEqual(['evpId']);
    const sole = (await api.call('POST', '/brand/nonBlocking', soleBrand())).body;
    expect(
      (
        await api.call('POST', `/brand/${sole.brandId}/externalVetting`, {
          evpId: 'AEGIS',
          vettingClass: 'STANDARD',
        })
      ).body[0].code,
    ).toBe(518);
  });
});

describe('imports', () => {
  test('an import is ACTIVE at once and makes the brand VETTED_VERIFIED', async () => {
    const b = await brand();
    const res = await api.call('PUT', `/brand/${b.brandId}/externalVetting`, {
      evpId: 'WMC',
      vettingId: 'wmc-123',
      vettingToken: 'tok',
    });
    expect(res.body).toMatchObject({
      evpId: 'WMC',
      vettingId: 'wmc-123',
      vettingToken: 'tok',
      vettingStatus: 'ACTIVE',
      vettingClass: 'STANDARD',
    });
    expect((await api.call('GET', `/brand/${b.brandId}`)).body.identityStatus).toBe('VETTED_VERIFIED');
  });

  test('political vets are refused for 501(c)(3/4/5/6) non-profits, allowed for 501(c)(7)', async () => {
    const np = await brand({ entityType: 'NON_PROFIT', companyName: 'Helpers 501(c)(4)' });
    const order = await api.call('POST', `/brand/${np.brandId}/externalVetting`, {
      evpId: 'AEGIS',
      vettingClass: 'POLITICAL',
    });
    expect(order.body[0]).toMatchObject({ code: 512 });
    const imp = await api.call('PUT', `/brand/${np.brandId}/externalVetting`, {
      evpId: 'CV',
      vettingId: 'cv-1',
    });
    expect(imp.body[0].code).toBe(512);
    const club = await brand({ entityType: 'NON_PROFIT', companyName: 'Anglers 501(c)(7)' });
    const ok = await api.call('PUT', `/brand/${club.brandId}/externalVetting`, {
      evpId: 'CV',
      vettingId: 'cv-2',
    });
    expect(ok.body).toMatchObject({ vettingClass: 'POLITICAL', vettingStatus: 'ACTIVE' });
  });
});

describe('expiry', () => {
  test('ACTIVE → EXPIRED when the vet date passes; the brand drops back to VERIFIED', async () => {
    const b = await brand();
    await api.call('PUT', `/brand/${b.brandId}/externalVetting`, { evpId: 'AEGIS', vettingId: 'a-1' });
    await api.control.advanceClock(366 * 86_400);
    expect((await vets(b.brandId))[0].vettingStatus).toBe('EXPIRED');
    expect((await api.call('GET', `/brand/${b.brandId}`)).body.identityStatus).toBe('VERIFIED');
  });

  test('ACTIVE → EXPIRED when brand data changes after the vet', async () => {
    const b = await brand();
    await api.call('PUT', `/brand/${b.brandId}/externalVetting`, { evpId: 'AEGIS', vettingId: 'a-2' });
    await api.call('PUT', `/brand/${b.brandId}`, { displayName: 'Acme Renamed' });
    const [vet] = await vets(b.brandId);
    expect(vet.vettingStatus).toBe('EXPIRED');
    expect(vet.reasons[0]).toMatch(/changed/);
  });

  test('political campaigns are deactivated when their political vet expires; others are unaffected', async () => {
    const b = await brand({ entityType: 'NON_PROFIT', companyName: 'Voters 501(c)(7)' });
    const notYet = await api.call(
      'POST',
      '/campaignBuilder',
      campaignBody(b.brandId, { usecase: 'POLITICAL' }),
    );
    expect(notYet.body[0].code).toBe(517);
    const { vettingId } = (
      await api.call('PUT', `/brand/${b.brandId}/externalVetting`, { evpId: 'CV', vettingId: 'cv-9' })
    ).body;
    const political = (
      await api.call('POST', '/campaignBuilder', campaignBody(b.brandId, { usecase: 'POLITICAL' }))
    ).body;
    const other = (await api.call('POST', '/campaignBuilder', campaignBody(b.brandId))).body;
    await api.control.expireVet(vettingId);
    expect((await api.call('GET', `/campaign/${political.campaignId}`)).body.status).toBe('EXPIRED');
    expect((await api.call('GET', `/campaign/${other.campaignId}`)).body.status).toBe('ACTIVE');
  });

  test('501(c)(3) non-profits create POLITICAL campaigns without a vet', async () => {
    const b = await brand({ entityType: 'NON_PROFIT', companyName: 'Civic League' });
    expect(
      (await api.call('POST', '/campaignBuilder', campaignBody(b.brandId, { usecase: 'POLITICAL' }))).status,
    ).toBe(200);
  });
});
