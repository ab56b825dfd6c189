import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import {
  type Api,
  campaignBody,
  type Json,
  privateBrand,
  publicBrand,
  soleBrand,
  startApi,
} from './helpers.js';

let api: Api;
// Fixed source clock (2026-06-01) so dated rules are decided by the control API's clock moves only.
const START = new Date('2026-06-01T12:00:00.000Z');
beforeAll(async () => {
  api = await startApi({ now: () => new Date(START.getTime()) });
});
beforeEach(() => api.control.reset());
afterAll(() => api.close());

const register = (body: unknown) => api.call('POST', '/brand/nonBlocking', body);

describe('registration', () => {
  test('returns the brand record with derived fields', async () => {
    const res = await register(privateBrand({ referenceId: 'brand-ref-1', mock: true }));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      brandId: expect.stringMatching(/^B/),
      cspId: 'CSPLOCAL',
      status: 'ACTIVE',
      identityStatus: 'VERIFIED',
      universalEin: 'US_123456789',
      optionalAttributes: {},
      mock: true,
      referenceId: 'brand-ref-1',
      createDate: START.toISOString(),
    });
    const got = await api.call('GET', `/brand/${res.body.brandId}`);
    expect(got.body).toEqual(res.body);
  });

  test('validation errors name the fields', async () => {
    const res = await register({
      entityType: 'PRIVATE_PROFIT',
      displayName: 'X',
      email: 'not-an-email',
      country: 'US',
    });
    expect(res.status).toBe(400);
    expect(res.body.length).toBeGreaterThan(0);
    expect(res.body.filter((e: Json) => !(e.code === 502 && e.fields.length === 1))).toEqual([]);
    expect(res.body.map((e: Json) => e.fields[0])).toContain('email');
    const missing = await register({ ...privateBrand(), ein: undefined, vertical: undefined });
    expect(missing.status).toBe(400);
    expect(missing.body.map((e: Json) => e.fields[0]).sort()).toEqual(['ein', 'vertical']);
    expect((await register({ ...privateBrand(), entityType: 'BANANA' })).body[0].fields).toEqual([
      'entityType',
    ]);
  });

  test('PUBLIC_PROFIT needs businessContactEmail and stock fields', async () => {
    const res = await register(publicBrand({ businessContactEmail: undefined, stockSymbol: undefined }));
    expect(res.status).toBe(400);
    expect(res.body.map((e: Json) => e.fields[0]).sort()).toEqual(['businessContactEmail', 'stockSymbol']);
    expect((await register(publicBrand({ country: 'DE', state: 'BE' }))).status).toBe(200);
  });

  test('NON_PROFIT only for US or US-EIN organizations', async () => {
    const bad = await register(
      privateBrand({ entityType: 'NON_PROFIT', country: 'GB', einIssuingCountry: 'GB' }),
    );
    expect(bad.status).toBe(400);
    expect(bad.body[0].code).toBe(504);
    expect(
      (await register(privateBrand({ entityType: 'NON_PROFIT', country: 'GB', einIssuingCountry: 'US' })))
        .status,
    ).toBe(200);
    const us = await register(privateBrand({ entityType: 'NON_PROFIT', companyName: 'Helping Hands' }));
    expect(us.body.optionalAttributes).toEqual({ taxExemptStatus: '501(c)(3)' });
  });

  test('GOVERNMENT only for US; governmentEntity set when verified', async () => {
    expect((await register(privateBrand({ entityType: 'GOVERNMENT', country: 'CA' }))).body[0].code).toBe(
      504,
    );
    const gov = await register(
      privateBrand({ entityType: 'GOVERNMENT', companyName: 'City of Springfield' }),
    );
    expect(gov.body.optionalAttributes).toEqual({ governmentEntity: true });
  });

  test('SOLE_PROPRIETOR only US/CA, SELF_DECLARED, needs OTP before campaigns', async () => {
    expect((await register(soleBrand({ country: 'MX' }))).body[0].code).toBe(504);
    const sole = await register(soleBrand({ country: 'CA', state: 'ON' }));
    expect(sole.body.identityStatus).toBe('SELF_DECLARED');
    const brandId = sole.body.brandId;
    const blocked = await api.call(
      'POST',
      '/campaignBuilder',
      campaignBody(brandId, { usecase: 'SOLE_PROPRIETOR' }),
    );
    expect(blocked.body[0].code).toBe(506);
    await api.control.verifyContact(brandId);
    expect((await api.call('GET', `/brand/${brandId}`)).body.mobilePhoneVerifiedDate).toBe(
      START.toISOString(),
    );
    const wrongUseCase = await api.call('POST', '/campaignBuilder', campaignBody(brandId));
    expect(wrongUseCase.body[0].code).toBe(517);
    expect(
      (await api.call('POST', '/campaignBuilder', campaignBody(brandId, { usecase: 'SOLE_PROPRIETOR' })))
        .status,
    ).toBe(200);
  });

  test('identity rule: UNVERIFIED in a name gives UNVERIFIED and no optional attributes', async () => {
    const res = await register(privateBrand({ entityType: 'NON_PROFIT', companyName: 'UNVERIFIED Charity' }));
    expect(res.body.identityStatus).toBe('UNVERIFIED');
    expect(res.body.optionalAttributes).toEqual({});
    const campaign = await api.call('POST', '/campaignBuilder', campaignBody(res.body.brandId));
    expect(campaign.body[0].code).toBe(505);
  });

  test('taxExemptStatus follows a 501(c)(N) in the name; NOTAXEXEMPT gives none', async () => {
    expect(
      (await register(privateBrand({ entityType: 'NON_PROFIT', companyName: 'Anglers 501(c)(7)' }))).body
        .optionalAttributes,
    ).toEqual({ taxExemptStatus: '501(c)(7)' });
    expect(
      (await register(privateBrand({ entityType: 'NON_PROFIT', companyName: 'Club NOTAXEXEMPT' }))).body
        .optionalAttributes,
    ).toEqual({});
  });

  test('referenceId is not unique: a second POST registers a second brand, as the registry does', async () => {
    const first = await register(privateBrand({ referenceId: 'dup' }));
    const again = await register(privateBrand({ referenceId: 'dup' }));
    expect([first.status, again.status]).toEqual([200, 200]);
    expect(again.body.brandId).not.toBe(first.body.brandId);
    const listed = await api.call('GET', '/brand?referenceId=dup');
    expect(listed.body.records.map((b: { brandId: string }) => b.brandId).sort()).toEqual(
      [first.body.brandId, again.body.brandId].sort(),
    );
  });

  test('unknown brand is 404', async () => {
    const res = await api.call('GET', '/brand/BNOPE');
    expect(res.status).toBe(404);
    expect(res.body[0]).toMatchObject({ code: 503, fields: ['brandId'] });
  });
});

describe('business contact verification', () => {
  test('PUBLIC_PROFIT cannot create campaigns until the contact is verified (automatically after the delay)', async () => {
    const brand = (await register(publicBrand())).body;
    expect(brand.businessContactEmailVerifiedDate).toBeNull();
    expect((await api.call('POST', '/campaignBuilder', campaignBody(brand.brandId))).body[0].code).toBe(506);
    await api.control.advanceClock(301);
    const after = (await api.call('GET', `/brand/${brand.brandId}`)).body;
    expect(after.businessContactEmailVerifiedDate).not.toBeNull();
    expect((await api.call('POST', '/campaignBuilder', campaignBody(brand.brandId))).status).toBe(200);
  });

  test('a NOVERIFY contact is verified only through the control API', async () => {
    const brand = (await register(publicBrand({ businessContactEmail: 'NOVERIFY@acme.example' }))).body;
    await api.control.advanceClock(86_400);
    expect(
      (await api.call('GET', `/brand/${brand.brandId}`)).body.businessContactEmailVerifiedDate,
    ).toBeNull();
    const verified = await api.control.verifyContact(brand.brandId);
    expect(verified.businessContactEmailVerifiedDate).not.toBeNull();
  });

  test('GOVERNMENT needs businessContactEmail and verification from 2027-01-21 by the simulator clock', async () => {
    const before = (await register(privateBrand({ entityType: 'GOVERNMENT' }))).body;
    expect((await api.call('POST', '/campaignBuilder', campaignBody(before.brandId))).status).toBe(200);
    await api.control.setClock('2027-01-21T00:00:00.000Z');
    const missing = await register(privateBrand({ entityType: 'GOVERNMENT' }));
    expect(missing.body[0]).toMatchObject({ code: 502, fields: ['businessContactEmail'] });
    const gov = (
      await register(privateBrand({ entityType: 'GOVERNMENT', businessContactEmail: 'NOVERIFY@city.gov' }))
    ).body;
    expect((await api.call('POST', '/campaignBuilder', campaignBody(gov.brandId))).body[0].code).toBe(506);
    await api.control.verifyContact(gov.brandId);
    expect((await api.call('POST', '/campaignBuilder', campaignBody(gov.brandId))).status).toBe(200);
  });
});

describe('updates, revet and appeal', () => {
  test('group 2 fields change without side effects', async () => {
    const brand = (await register(privateBrand())).body;
    const res = await api.call('PUT', `/brand/${brand.brandId}`, {
      website: 'https://new.example',
      phone: '+12025550000',
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      website: 'https://new.example',
      phone: '+12025550000',
      identityStatus: 'VERIFIED',
    });
  });

  test('group 1 sets UNVERIFIED, and revet re-applies the rules to the corrected data', async () => {
    const brand = (await register(privateBrand())).body;
    const changed = await api.call('PUT', `/brand/${brand.brandId}`, {
      companyName: 'Acme UNVERIFIED Holdings',
    });
    expect(changed.body.identityStatus).toBe('UNVERIFIED');
    expect((await api.call('PUT', `/brand/${brand.brandId}/revet`)).body.identityStatus).toBe('UNVERIFIED');
    await api.call('PUT', `/brand/${brand.brandId}`, { companyName: 'Acme Holdings', ein: '987654321' });
    const revet = await api.call('PUT', `/brand/${brand.brandId}/revet`);
    expect(revet.body).toMatchObject({ identityStatus: 'VERIFIED', universalEin: 'US_987654321' });
  });

  test('group 1 is refused while the brand has an active campaign or any external vet', async () => {
    const brand = (await register(privateBrand())).body;
    await api.call('POST', '/campaignBuilder', campaignBody(brand.brandId));
    const refused = await api.call('PUT', `/brand/${brand.brandId}`, { ein: '111111111' });
    expect(refused.status).toBe(400);
    expect(refused.body[0]).toMatchObject({ code: 510, fields: ['ein'] });
    const other = (await register(privateBrand())).body;
    await api.call('PUT', `/brand/${other.brandId}/externalVetting`, { evpId: 'AEGIS', vettingId: 'imp-1' });
    expect(
      (await api.call('PUT', `/brand/${other.brandId}`, { entityType: 'NON_PROFIT' })).body[0].code,
    ).toBe(510);
  });

  test('group 3 at most once every 3 months', async () => {
    const brand = (await register(privateBrand())).body;
    expect((await api.call('PUT', `/brand/${brand.brandId}`, { displayName: 'Acme One' })).status).toBe(200);
    const second = await api.call('PUT', `/brand/${brand.brandId}`, { displayName: 'Acme Two' });
    expect(second.body[0]).toMatchObject({ code: 511, fields: ['displayName'] });
    await api.control.advanceClock(92 * 86_400);
    expect((await api.call('PUT', `/brand/${brand.brandId}`, { displayName: 'Acme Two' })).status).toBe(200);
  });

  test('group 4 (businessContactEmail) resets the verification', async () => {
    const brand = (await register(publicBrand())).body;
    await api.control.verifyContact(brand.brandId);
    const res = await api.call('PUT', `/brand/${brand.brandId}`, {
      businessContactEmail: 'NOVERIFY-new@acme.example',
    });
    expect(res.body.businessContactEmailVerifiedDate).toBeNull();
    expect(res.body.identityStatus).toBe('VERIFIED');
  });

  test('group 5 (address) sets UNVERIFIED; entity rules are re-checked', async () => {
    const brand = (await register(privateBrand())).body;
    const res = await api.call('PUT', `/brand/${brand.brandId}`, { street: '9 New Rd' });
    expect(res.body.identityStatus).toBe('UNVERIFIED');
    const np = (await register(privateBrand({ entityType: 'NON_PROFIT', einIssuingCountry: 'GB' }))).body;
    expect((await api.call('PUT', `/brand/${np.brandId}`, { country: 'GB' })).body[0].code).toBe(504);
  });

  test('appeal: 204; correct data (NEEDSAPPEAL) is approved after the review delay', async () => {
    const brand = (await register(privateBrand({ companyName: 'NEEDSAPPEAL Foods' }))).body;
    expect(brand.identityStatus).toBe('UNVERIFIED');
    expect((await api.call('PUT', `/brand/${brand.brandId}/revet`)).body.identityStatus).toBe('UNVERIFIED');
    const appeal = await api.call('POST', `/brand/${brand.brandId}/appeal`, {
      appealCategories: ['VERIFY_IDENTITY'],
      attachmentUuids: ['att-1'],
      explanation: 'Our data is correct',
    });
    expect(appeal.status).toBe(204);
    expect(appeal.body).toBeUndefined();
    await api.control.advanceClock(86_401);
    expect((await api.call('GET', `/brand/${brand.brandId}`)).body.identityStatus).toBe('VERIFIED');
  });

  test('appeal on incorrect data (UNVERIFIED) is rejected; control API can approve', async () => {
    const brand = (await register(privateBrand({ companyName: 'UNVERIFIED Foods' }))).body;
    const body = { appealCategories: ['VERIFY_IDENTITY'], explanation: 'Please' };
    await api.call('POST', `/brand/${brand.brandId}/appeal`, body);
    await api.control.advanceClock(86_401);
    expect((await api.call('GET', `/brand/${brand.brandId}`)).body.identityStatus).toBe('UNVERIFIED');
    await api.call('POST', `/brand/${brand.brandId}/appeal`, body);
    expect((await api.control.decideAppeal(brand.brandId, true)).identityStatus).toBe('VERIFIED');
    expect(
      (
        await api.call('POST', `/brand/${brand.brandId}/appeal`, {
          appealCategories: ['BOGUS'],
          explanation: 'x',
        })
      ).status,
    ).toBe(400);
  });

  test('appeal requesting an optional attribute', async () => {
    const np = (await register(privateBrand({ entityType: 'NON_PROFIT', companyName: 'NOTAXEXEMPT club' })))
      .body;
    await api.call('POST', `/brand/${np.brandId}/appeal`, {
      appealCategories: ['VERIFY_TAX_EXEMPT'],
      explanation: 'We are 501(c)(3)',
    });
    const decided = await api.control.decideAppeal(np.brandId);
    expect(decided.optionalAttributes).toEqual({ taxExemptStatus: '501(c)(3)' });
  });
});

describe('listing', () => {
  test('filters and paging', async () => {
    await register(privateBrand({ referenceId: 'a', state: 'NV' }));
    await register(privateBrand({ referenceId: 'b', mock: true }));
    await register(privateBrand({ referenceId: 'c', companyName: 'UNVERIFIED Co' }));
    await register(soleBrand({ referenceId: 'd' }));
    const all = (await api.call('GET', '/brand?recordsPerPage=3')).body;
    expect(all).toMatchObject({ page: 1, totalRecords: 4 });
    expect(all.records).toHaveLength(3);
    const page2 = (await api.call('GET', '/brand?recordsPerPage=3&page=2')).body;
    expect(page2.records).toHaveLength(1);
    const q = async (s: string) =>
      (await api.call('GET', `/brand?${s}`)).body.records.map((b: Json) => b.referenceId);
    expect(await q('referenceId=b')).toEqual(['b']);
    expect(await q('identityStatus=UNVERIFIED')).toEqual(['c']);
    expect(await q('entityType=SOLE_PROPRIETOR')).toEqual(['d']);
    expect(await q('mock=true')).toEqual(['b']);
    expect(await q('state=NV')).toEqual(['a']);
    expect(await q('status=ACTIVE&country=US')).toHaveLength(4);
    expect((await api.call('GET', '/brand?page=0')).status).toBe(400);
  });

  test('accounts do not see each other', async () => {
    const brand = (await register(privateBrand())).body;
    const other = await startApi({ accounts: [{ cspId: 'X', apiKey: 'x', apiSecret: 'y' }] });
    try {
      expect(
        (await other.call('GET', `/brand/${brand.brandId}`, undefined, { apiKey: 'x', apiSecret: 'y' }))
          .status,
      ).toBe(404);
    } finally {
      await other.close();
    }
  });
});

describe('identity events', () => {
  test('every registration result is announced, UNVERIFIED included', async () => {
    const { startReceiver, until } = await import('./helpers.js');
    const r = await startReceiver();
    try {
      await api.call('PUT', '/webhook/subscription', { eventCategory: 'BRAND', webhookEndpoint: r.url });
      await register(privateBrand({ companyName: 'UNVERIFIED Ltd', referenceId: 'u' }));
      await register(soleBrand({ referenceId: 's', email: 'NOVERIFY@x.example' }));
      await until(() => r.received.length >= 4 || undefined);
      const updates = r.received.filter((h) => h.body.eventType === 'BRAND_IDENTITY_STATUS_UPDATE');
      expect(updates.map((h) => [h.body.brandReferenceId, h.body.brandIdentityStatus])).toEqual([
        ['u', 'UNVERIFIED'],
        ['s', 'SELF_DECLARED'],
      ]);
    } finally {
      await r.close();
    }
  });
});
