import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type Api, type Json, startApi } from './helpers.js';

let api: Api;
beforeAll(async () => {
  api = await startApi({
    accounts: [
      { cspId: 'CSPA', apiKey: 'key-a', apiSecret: 'secret-a' },
      { cspId: 'CSPB', apiKey: 'key-b', apiSecret: 'secret-b' },
    ],
  });
});
afterAll(() => api.close());
const A = { apiKey: 'key-a', apiSecret: 'secret-a' };

describe('authentication and errors', () => {
  test('401 without credentials, with a wrong secret, or another account key/secret mix', async () => {
    const none = await fetch(`${api.sim.apiBaseUrl}/enum/mno`);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/Basic/);
    const body = (await none.json()) as unknown;
    expect(body).toEqual([{ code: 521, description: expect.any(String), fields: [] }]);
    expect(
      (await api.call('GET', '/enum/mno', undefined, { apiKey: 'key-a', apiSecret: 'secret-b' })).status,
    ).toBe(401);
    expect((await api.call('GET', '/enum/mno', undefined, A)).status).toBe(200);
  });

  test('unknown routes answer 404 with the error array shape', async () => {
    const res = await api.call('GET', '/nope', undefined, A);
    expect(res.status).toBe(404);
    expect(res.body[0]).toMatchObject({ code: 523, fields: [] });
  });

  test('malformed JSON is a 400 with code 501', async () => {
    const res = await fetch(`${api.sim.apiBaseUrl}/brand/nonBlocking`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from('key-a:secret-a').toString('base64')}`,
        'content-type': 'application/json',
      },
      body: '{nope',
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { code: number }[])[0]?.code).toBe(501);
  });
});

describe('reference endpoints', () => {
  test('all 17 enum endpoints answer 200 with JSON', async () => {
    const paths = [
      'dca',
      'mno',
      'optionalAttributeNames',
      'usecase',
      'vertical',
      'altBusinessIdType',
      'brandIdentityStatus',
      'brandRelationship',
      'campaignStatus',
      'entityType',
      'extVettingProvider',
      'vettingStatus',
      'usState',
      'assetAppealCategory',
      'brandAppealCategory',
      'cnp',
      'vettingClass',
    ];
    expect(paths).toHaveLength(17);
    for (const p of paths) {
      const res = await api.call('GET', `/enum/${p}`, undefined, A);
      expect(res.status, p).toBe(200);
      // Every list holds entries (an empty list or object would pass a truthiness check).
      const entries = Array.isArray(res.body) ? res.body : Object.keys(res.body ?? {});
      expect(entries.length, p).toBeGreaterThan(0);
    }
  });

  test('string lists hold the spec values', async () => {
    expect((await api.call('GET', '/enum/altBusinessIdType', undefined, A)).body).toEqual([
      'NONE',
      'DUNS',
      'GIIN',
      'LEI',
    ]);
    expect((await api.call('GET', '/enum/brandIdentityStatus', undefined, A)).body).toEqual([
      'SELF_DECLARED',
      'UNVERIFIED',
      'VERIFIED',
      'VETTED_VERIFIED',
    ]);
    expect((await api.call('GET', '/enum/entityType', undefined, A)).body).toHaveLength(5);
    expect((await api.call('GET', '/enum/vettingStatus', undefined, A)).body).toEqual([
      'PENDING',
      'UNSCORE',
      'ACTIVE',
      'FAILED',
      'EXPIRED',
    ]);
    expect((await api.call('GET', '/enum/campaignStatus', undefined, A)).body).toEqual(['ACTIVE', 'EXPIRED']);
    expect((await api.call('GET', '/enum/brandRelationship', undefined, A)).body).toContain('KEY_ACCOUNT');
  });

  test('use cases carry classification and sub-use-case counts; validSubUsecase filters', async () => {
    const all = (await api.call('GET', '/enum/usecase', undefined, A)).body;
    expect(all.MIXED).toMatchObject({
      classification: 'STANDARD',
      minSubUsecases: 2,
      maxSubUsecases: 5,
      validSubUsecase: false,
    });
    expect(all.POLITICAL.classification).toBe('SPECIAL');
    expect(all.LOW_VOLUME).toMatchObject({
      classification: 'STANDARD',
      minSubUsecases: 1,
      maxSubUsecases: 5,
    });
    for (const id of ['MARKETING', 'ACCOUNT_NOTIFICATION', '2FA', 'CUSTOMER_CARE'])
      expect(all[id]).toMatchObject({ classification: 'STANDARD', validSubUsecase: true });
    const withSubs = (await api.call('GET', '/enum/usecase?validSubUsecase=true', undefined, A)).body;
    const without = (await api.call('GET', '/enum/usecase?validSubUsecase=false', undefined, A)).body;
    expect(Object.keys(withSubs)).toEqual(expect.arrayContaining(['MARKETING', '2FA']));
    expect(Object.keys(without)).toEqual(expect.arrayContaining(['MIXED', 'LOW_VOLUME', 'POLITICAL']));
    expect(Object.values(withSubs).filter((u: Json) => !u.validSubUsecase)).toEqual([]);
    expect(Object.values(without).filter((u: Json) => u.validSubUsecase)).toEqual([]);
    expect(Object.keys(withSubs).length + Object.keys(without).length).toBe(Object.keys(all).length);
    expect((await api.call('GET', '/enum/usecase?validSubUsecase=maybe', undefined, A)).status).toBe(400);
  });

  test('MNOs have network ids, names and bitmask indexes', async () => {
    const mnos = (await api.call('GET', '/enum/mno', undefined, A)).body;
    const byId = Object.fromEntries(mnos.map((m: Json) => [m.networkId, m.displayName]));
    expect(byId).toMatchObject({ 10017: 'AT&T', 10035: 'T-Mobile', 10038: 'Verizon Wireless' });
    expect(mnos.map((m: Json) => m.osrBitmaskIndex)).toEqual(mnos.map((_: Json, i: number) => i));
    expect(mnos.length).toBeGreaterThanOrEqual(3);
  });

  test('DCA filters work and records carry the spec flags', async () => {
    const all = (await api.call('GET', '/enum/dca', undefined, A)).body;
    for (const d of all) {
      expect(d).toMatchObject({
        id: expect.any(String),
        displayName: expect.any(String),
        dpaSigned: expect.any(Boolean),
        soleProprietorEnabled: expect.any(Boolean),
        dca2AutoAccept: expect.any(Boolean),
      });
      expect(d).toHaveProperty('escalateEmail');
    }
    const sole = (await api.call('GET', '/enum/dca?soleProprietorEnabled=true', undefined, A)).body;
    expect(sole.length).toBeGreaterThan(0);
    expect(sole.length).toBeLessThan(all.length);
    expect(sole.filter((d: Json) => !d.soleProprietorEnabled)).toEqual([]);
    const noMigration = (await api.call('GET', '/enum/dca?cnpMigrationSupported=false', undefined, A)).body;
    expect(noMigration.length).toBeGreaterThan(0);
    expect(noMigration.length).toBeLessThan(all.length);
    expect(noMigration.filter((d: Json) => d.cnpMigrationSupported !== false)).toEqual([]);
  });

  test('vetting providers carry vettingInstruction as a JSON string of the spec shape', async () => {
    const providers = (await api.call('GET', '/enum/extVettingProvider', undefined, A)).body;
    expect(providers.map((p: Json) => p.evpId)).toEqual(['AEGIS', 'WMC', 'CV']);
    for (const p of providers) {
      expect(typeof p.vettingInstruction).toBe('string');
      const instruction = JSON.parse(p.vettingInstruction);
      expect(instruction.importVet).toMatchObject({
        supported: expect.any(Boolean),
        info: expect.any(String),
      });
      expect(instruction.importVet.parameters.vettingId).toMatchObject({
        label: expect.any(String),
        show: expect.any(Boolean),
      });
      expect(instruction.importVet.parameters.vettingToken).toMatchObject({
        label: expect.any(String),
        show: expect.any(Boolean),
      });
      expect(instruction.newVet).toMatchObject({
        supported: expect.any(Boolean),
        price: expect.any(Object),
        waitTime: expect.any(String),
        info: expect.any(String),
      });
    }
  });

  test('states include territories; other lists have their record shapes', async () => {
    const states = (await api.call('GET', '/enum/usState', undefined, A)).body;
    expect(states).toMatchObject({ CA: 'California', PR: 'Puerto Rico', GU: 'Guam' });
    const attrs = (await api.call('GET', '/enum/optionalAttributeNames', undefined, A)).body;
    expect(attrs.map((a: Json) => a.id)).toEqual(
      expect.arrayContaining(['taxExemptStatus', 'governmentEntity']),
    );
    expect(
      attrs.filter((a: Json) => !['INTEGER', 'DECIMAL', 'STRING', 'BOOLEAN'].includes(a.dataType)),
    ).toEqual([]);
    const verticals = (await api.call('GET', '/enum/vertical', undefined, A)).body;
    expect(verticals.RETAIL).toMatchObject({
      industryId: expect.any(String),
      displayName: expect.any(String),
      description: expect.any(String),
    });
    const cnps = (await api.call('GET', '/enum/cnp', undefined, A)).body;
    expect(cnps.some((c: Json) => c.dca)).toBe(true);
    expect(cnps.some((c: Json) => !c.dca)).toBe(true);
    const appeal = (await api.call('GET', '/enum/assetAppealCategory', undefined, A)).body;
    expect(appeal[0]).toMatchObject({
      id: expect.any(String),
      displayName: expect.any(String),
      description: expect.any(String),
    });
    expect(
      (await api.call('GET', '/enum/vettingClass', undefined, A)).body.map((c: Json) => c.vettingClass),
    ).toEqual(['STANDARD', 'ENHANCED', 'POLITICAL']);
  });
});
