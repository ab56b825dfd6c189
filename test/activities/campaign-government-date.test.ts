/**
 * The GOVERNMENT cutover on the campaign side (spec, fact 6 and "Versioning": from 21 January 2027
 * a GOVERNMENT brand's business contact must verify before it can create campaigns). The campaign
 * workflow's brand check (`checkBrandReadiness`) decides by the instant it is given (`at`: the
 * workflow's time), never by the activity's wall clock, so both sides of the date are tested whatever
 * today's date is: the same unverified GOVERNMENT brand is ready the instant before and not ready from
 * the date, and ready again once its contact verified.
 */
import type { Client } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCampaignReadActivities } from '../../src/activities/campaign-activities.js';
import { RegistryClient } from '../../src/registry/client.js';
import { GOVERNMENT_CONTACT_VERIFICATION_FROM } from '../../src/registry/rules.js';
import { SimulatorControl } from '../../src/simulator/control-client.js';
import { DEFAULT_ACCOUNT, type RunningSimulator, startSimulator } from '../../src/simulator/index.js';
import { privateBrandFields } from '../support/brand-fixtures.js';

const cutover = GOVERNMENT_CONTACT_VERIFICATION_FROM.getTime();
const account = 'local';
let sim: RunningSimulator;
let registry: RegistryClient;
let brandId: string;

/** A Temporal client whose brand workflow answers `ready` with the registry's brand (the registry decides). */
const temporalClient = () =>
  ({
    workflow: {
      getHandle: () => ({ query: async () => ({ phase: 'ready', brandId, entityType: 'GOVERNMENT' }) }),
    },
  }) as unknown as Client;

const readiness = (at: number) =>
  createCampaignReadActivities((name) => (name === account ? registry : undefined), {
    temporalClient: temporalClient(),
  }).checkBrandReadiness({ account, brandReference: 'gov-city', at: new Date(at).toISOString() });

beforeAll(async () => {
  // The registry's clock is a year past the date whatever today is; the activity must not use it.
  sim = await startSimulator({ now: () => new Date(cutover + 365 * 86_400_000), rateLimits: false });
  registry = new RegistryClient({
    environment: 'local',
    baseUrl: sim.url,
    apiKey: DEFAULT_ACCOUNT.apiKey,
    apiSecret: DEFAULT_ACCOUNT.apiSecret,
    rateLimits: false,
    timeoutMs: 3_000,
  });
  const brand = await registry.registerBrand({
    ...privateBrandFields({ entityType: 'GOVERNMENT', companyName: 'City of Springfield' }),
    businessContactEmail: 'clerk@springfield.example',
    referenceId: 'gov-city',
  } as Parameters<RegistryClient['registerBrand']>[0]);
  brandId = brand.brandId;
});

afterAll(async () => {
  await registry?.close();
  await sim?.close();
});

describe('a GOVERNMENT brand and its campaigns: contact verification from 2027-01-21 by workflow time', () => {
  it('the instant before the date: an unverified GOVERNMENT brand is ready for campaigns', async () => {
    const answer = await readiness(cutover - 1);
    expect(answer.reasons).toEqual([]);
    expect(answer).toMatchObject({ ready: true, contactVerified: true, entityType: 'GOVERNMENT' });
  });

  it('from the date (and in 2028): not ready until its business contact verifies', async () => {
    for (const at of [cutover, Date.parse('2028-06-01T00:00:00Z')]) {
      const answer = await readiness(at);
      expect(answer).toMatchObject({ ready: false, contactVerified: false });
      expect(answer.reasons.join('; ')).toMatch(/business contact of this GOVERNMENT brand/);
    }
  });

  it('from the date, once the contact verified: ready', async () => {
    await new SimulatorControl(sim.url).verifyContact(brandId);
    const answer = await readiness(cutover);
    expect(answer).toMatchObject({ ready: true, contactVerified: true });
  });
});
