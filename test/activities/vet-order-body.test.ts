/**
 * A POLITICAL vet order's payload, from the activity to the registry's body: the members of
 * `politicalPayload` are sent beside `evpId` and `vettingClass` in `POST /brand/{id}/externalVetting`
 * (the spec: "Political vets need an additional payload: not shown"); an import's declared class is
 * never sent (the spec's import body has none). The registry is an undici MockAgent.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createRegistryWriteActivities } from '../../src/activities/registry-activities.js';
import type { RegistryClient } from '../../src/registry/client.js';
import { VetOrderSchema } from '../../src/registry/schemas.js';
import { MOCK_ORIGIN, MockRegistry, mockRegistryClient } from '../registry/support/mock-registry.js';

const vetRecord = (extra: Record<string, unknown>) =>
  JSON.stringify({
    evpId: 'AEGIS',
    vettingId: 'V1',
    vettingStatus: 'PENDING',
    createDate: '2026-11-28T00:00:00.000Z',
    ...extra,
  });

let client: RegistryClient | undefined;
afterEach(async () => {
  await client?.close();
  client = undefined;
});

describe('vet order body', () => {
  it("sends a POLITICAL order's payload members in the body, and nothing more for other orders", async () => {
    const registry = new MockRegistry();
    const bodies: unknown[] = [];
    registry.agent
      .get(MOCK_ORIGIN)
      .intercept({ path: '/v2/brand/B1/externalVetting', method: 'POST' })
      .reply((opts) => {
        const body = JSON.parse(String(opts.body)) as { vettingClass: string };
        bodies.push(body);
        return {
          statusCode: 200,
          data: vetRecord({ vettingClass: body.vettingClass }),
          responseOptions: { headers: { 'content-type': 'application/json' } },
        };
      })
      .persist();
    registry.listen();
    client = mockRegistryClient(registry);
    const writes = createRegistryWriteActivities(() => client);
    const politicalPayload = { additionalVettingPayload: { committeeId: 'C001', cvToken: 'a|b' } };
    const vet = await writes.orderExternalVet({
      account: 'acme',
      brandId: 'B1',
      evpId: 'AEGIS',
      vettingClass: 'POLITICAL',
      politicalPayload,
    });
    expect(vet).toMatchObject({ vettingId: 'V1', vettingClass: 'POLITICAL', vettingStatus: 'PENDING' });
    await writes.orderExternalVet({
      account: 'acme',
      brandId: 'B1',
      evpId: 'AEGIS',
      vettingClass: 'STANDARD',
    });
    expect(bodies).toEqual([
      {
        additionalVettingPayload: { committeeId: 'C001', cvToken: 'a|b' },
        evpId: 'AEGIS',
        vettingClass: 'POLITICAL',
      },
      { evpId: 'AEGIS', vettingClass: 'STANDARD' },
    ]);
  });

  it('refuses a payload that is not a JSON object, belongs to another class or redefines the order fields, naming it', () => {
    const issues = (order: unknown) =>
      VetOrderSchema.safeParse(order).error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`) ?? [];
    expect(
      issues({ evpId: 'AEGIS', vettingClass: 'POLITICAL', politicalPayload: { a: [1, { b: null }] } }),
    ).toEqual([]);
    expect(issues({ evpId: 'AEGIS', vettingClass: 'STANDARD', politicalPayload: { a: 1 } })).toEqual([
      'politicalPayload: only a POLITICAL vet order takes a payload',
    ]);
    expect(issues({ evpId: 'AEGIS', vettingClass: 'POLITICAL', politicalPayload: ['a'] })[0]).toMatch(
      /^politicalPayload/,
    );
    expect(issues({ evpId: 'AEGIS', vettingClass: 'POLITICAL', politicalPayload: 'text' })[0]).toMatch(
      /^politicalPayload/,
    );
    expect(issues({ evpId: 'AEGIS', vettingClass: 'POLITICAL', politicalPayload: { evpId: 'X' } })).toEqual([
      'politicalPayload: may not redefine evpId',
    ]);
    expect(
      issues({ evpId: 'AEGIS', vettingClass: 'POLITICAL', politicalPayload: { big: 'x'.repeat(20_000) } }),
    ).toEqual(['politicalPayload: at most 16384 characters as JSON']);
  });

  it('an import sends the spec body only', async () => {
    const registry = new MockRegistry().listen();
    client = mockRegistryClient(registry);
    const writes = createRegistryWriteActivities(() => client);
    await writes.importExternalVet({ account: 'acme', brandId: 'B1', evpId: 'CV', vettingId: 'cv-1' });
    expect(registry.requests.find((r) => r.method === 'PUT')?.body).toEqual({
      evpId: 'CV',
      vettingId: 'cv-1',
    });
  });
});
