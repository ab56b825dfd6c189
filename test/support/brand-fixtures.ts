import type { BrandRegistrationInput } from '../../src/registry/schemas.js';

/**
 * Registration fields of a PRIVATE_PROFIT brand that the simulator verifies at once (no contact
 * verification, no name marker): the one valid brand every suite starts from and varies.
 */
export function privateBrandFields<T extends Record<string, unknown>>(overrides: T = {} as T) {
  return {
    entityType: 'PRIVATE_PROFIT',
    displayName: 'Acme Widgets',
    companyName: 'Acme Widgets LLC',
    ein: '123456789',
    einIssuingCountry: 'US',
    phone: '+12025550123',
    street: '1 Main St',
    city: 'Springfield',
    state: 'IL',
    postalCode: '62701',
    country: 'US',
    email: 'ops@acme.example',
    website: 'https://acme.example',
    vertical: 'RETAIL',
    brandRelationship: 'BASIC_ACCOUNT',
    ...overrides,
  };
}

/** A PUBLIC_PROFIT brand (its business contact must be verified first), varied by `overrides`. */
export function publicProfitBrandFields(overrides: Record<string, unknown> = {}) {
  return privateBrandFields({
    entityType: 'PUBLIC_PROFIT',
    companyName: 'Acme Public Corp',
    stockSymbol: 'ACME',
    stockExchange: 'NASDAQ',
    businessContactEmail: 'cfo@acme.example',
    ...overrides,
  });
}

/** The brand above under `referenceId`, typed as the registry client and the orders take it. */
export function brandRegistrationFor(
  referenceId: string,
  overrides: Partial<BrandRegistrationInput> = {},
): BrandRegistrationInput {
  return privateBrandFields({ referenceId, ...overrides }) as BrandRegistrationInput;
}
