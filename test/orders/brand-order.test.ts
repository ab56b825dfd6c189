import { describe, expect, it } from 'vitest';
import { OrderValidationError, parseBrandOrder } from '../../src/orders/brand-order.js';
import { publicProfitBrandFields } from '../support/brand-fixtures.js';

function errorsOf(order: unknown): string[] {
  try {
    parseBrandOrder(order);
  } catch (error) {
    expect(error).toBeInstanceOf(OrderValidationError);
    return (error as OrderValidationError).errors.map((e) => e.path).sort();
  }
  throw new Error('the order was accepted');
}

const publicBrand = publicProfitBrandFields({
  displayName: 'Globex',
  companyName: 'Globex Corporation',
  email: 'ops@globex.example',
  website: 'https://globex.example',
  vertical: 'TECHNOLOGY',
  businessContactEmail: 'cfo@globex.example',
  stockSymbol: 'GLBX',
});

describe('brand orders are refused with every field error at once', () => {
  it('accepts a complete PUBLIC_PROFIT order', () => {
    const order = parseBrandOrder({ reference: 'globex-1', account: 'local', brand: publicBrand });
    expect(order.registration.referenceId).toBe('globex-1');
  });

  it('reports a bad reference, a bad account, a badly typed field and the entity-type rules together', () => {
    const { businessContactEmail: _omitted, stockSymbol: _alsoOmitted, ...brand } = publicBrand;
    const paths = errorsOf({
      reference: 'not a valid reference!',
      account: '',
      brand: { ...brand, phone: 42 },
    });
    expect(paths).toEqual([
      'account',
      'brand.businessContactEmail',
      'brand.phone',
      'brand.stockSymbol',
      'reference',
    ]);
  });

  it('reports entity-type rules beside other field errors of the brand', () => {
    const paths = errorsOf({
      reference: 'np-1',
      account: 'local',
      brand: { ...publicBrand, entityType: 'NON_PROFIT', country: 'GB', einIssuingCountry: 'GB', website: 7 },
    });
    expect(paths).toEqual(['brand.country', 'brand.website']);
  });

  it('refuses absurdly long text with the field named (the spec shows no lengths; the product caps them)', () => {
    const paths = errorsOf({
      reference: 'long-1',
      account: 'local',
      brand: { ...publicBrand, street: 'x'.repeat(100_000), stockExchange: 'y'.repeat(256) },
    });
    expect(paths).toEqual(['brand.stockExchange', 'brand.street']);
  });
});
