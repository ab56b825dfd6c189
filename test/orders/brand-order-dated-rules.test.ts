/**
 * Dated rules at the edge: from 21 January 2027 (spec, fact 6 and "Versioning") a GOVERNMENT brand
 * goes through business-contact verification, so its order needs `businessContactEmail`. The order
 * API decides by the clock it is given (`now`, default the real clock), so both sides of the date are
 * tested whatever today's date is; the rule is the one function the workflow and the simulator apply
 * (src/registry/rules.ts).
 */
import { describe, expect, it } from 'vitest';
import { OrderValidationError, parseBrandOrder } from '../../src/orders/brand-order.js';
import { datedContactEmailIssues, GOVERNMENT_CONTACT_VERIFICATION_FROM } from '../../src/registry/rules.js';
import { DEFAULT_ACCOUNT, startSimulator } from '../../src/simulator/index.js';
import { privateBrandFields } from '../support/brand-fixtures.js';

const cutover = GOVERNMENT_CONTACT_VERIFICATION_FROM.getTime();
const government = (overrides: Record<string, unknown> = {}) => ({
  reference: 'gov-1',
  account: 'local',
  brand: privateBrandFields({ entityType: 'GOVERNMENT', companyName: 'City of Springfield', ...overrides }),
});

function refusal(order: unknown, now: Date): OrderValidationError {
  try {
    parseBrandOrder(order, { now });
  } catch (error) {
    expect(error).toBeInstanceOf(OrderValidationError);
    return error as OrderValidationError;
  }
  throw new Error('the order was accepted');
}

describe('a GOVERNMENT order needs businessContactEmail from 2027-01-21, by the clock the order API is given', () => {
  it('the instant before the date: accepted without businessContactEmail', () => {
    const order = parseBrandOrder(government(), { now: new Date(cutover - 1) });
    expect(order.registration.entityType).toBe('GOVERNMENT');
  });

  it('from the date: refused with a field error naming brand.businessContactEmail', () => {
    for (const now of [new Date(cutover), new Date(cutover + 400 * 86_400_000)]) {
      const error = refusal(government(), now);
      expect(error.errors.map((e) => e.path)).toEqual(['brand.businessContactEmail']);
      expect(error.errors[0]?.message).toMatch(/GOVERNMENT/);
    }
  });

  it('from the date: an empty businessContactEmail is refused too; a valid one is accepted', () => {
    expect(
      refusal(government({ businessContactEmail: '' }), new Date(cutover)).errors.map((e) => e.path),
    ).toContain('brand.businessContactEmail');
    const order = parseBrandOrder(government({ businessContactEmail: 'clerk@springfield.example' }), {
      now: new Date(cutover),
    });
    expect(order.registration.businessContactEmail).toBe('clerk@springfield.example');
  });

  it('reported beside the other field errors of the order, every one at once', () => {
    const error = refusal(government({ email: 'nope' }), new Date(cutover));
    expect(error.errors.map((e) => e.path).sort()).toEqual(['brand.businessContactEmail', 'brand.email']);
  });

  it('other entity types are unaffected by the date (PRIVATE_PROFIT never needs it)', () => {
    const order = { reference: 'pp-1', account: 'local', brand: privateBrandFields() };
    expect(() => parseBrandOrder(order, { now: new Date(cutover + 1) })).not.toThrow();
  });

  it('without a clock the order API uses the real one (the same answer as the rule at this instant)', () => {
    const required = datedContactEmailIssues({ entityType: 'GOVERNMENT' }, new Date()).length > 0;
    const accepted = (() => {
      try {
        parseBrandOrder(government());
        return true;
      } catch {
        return false;
      }
    })();
    expect(accepted).toBe(!required);
  });
});

describe('the simulator applies the same rule by its own clock', () => {
  /** What a registry whose clock reads `at` answers to registering `registration`. */
  async function registerAt(at: number, registration: Record<string, unknown>) {
    const sim = await startSimulator({ now: () => new Date(at), rateLimits: false });
    try {
      const response = await fetch(`${sim.apiBaseUrl}/brand/nonBlocking`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Basic ${Buffer.from(`${DEFAULT_ACCOUNT.apiKey}:${DEFAULT_ACCOUNT.apiSecret}`).toString('base64')}`,
        },
        body: JSON.stringify(registration),
      });
      return { status: response.status, body: JSON.stringify(await response.json()) };
    } finally {
      await sim.close();
    }
  }

  it('on both sides of the date, the order API and the registry simulator agree', async () => {
    const registration = parseBrandOrder(government(), { now: new Date(cutover - 60_000) }).registration;
    const before = await registerAt(cutover - 60_000, registration);
    expect(before.status).toBe(200);
    const after = await registerAt(cutover + 60_000, registration);
    expect(after.status).toBe(400);
    expect(after.body).toContain('businessContactEmail');
    expect(() => parseBrandOrder(government(), { now: new Date(cutover + 60_000) })).toThrow(
      OrderValidationError,
    );
  });
});
