/**
 * A corpus of malformed orders, built from the valid example orders: every field removed in turn
 * (kept in the corpus only when the schema requires it: a removal the product accepts is a valid
 * order, listed separately), every field given a wrong type, entity-type rule violations,
 * oversized strings (100 000 characters), unknown or misspelled fields, and lists and records over
 * their caps (10,000 entries).
 */
import { parseBrandOrder } from '../../src/orders/brand-order.js';
import { parseCampaignOrder } from '../../src/orders/campaign-orders.js';
import { brandOrder, campaignOrder } from './orders.js';

export interface BadOrder {
  kind: 'brand' | 'campaign';
  category: 'missing' | 'wrong-type' | 'entity-rule' | 'oversized' | 'unknown-field' | 'too-many';
  /** The field the error must name (dotted path). */
  field: string;
  description: string;
  order: Record<string, unknown>;
}

const clone = <T>(v: T): T => structuredClone(v);
const OVERSIZED = 'x'.repeat(100_000);

function accepts(kind: 'brand' | 'campaign', order: unknown): boolean {
  try {
    if (kind === 'brand') parseBrandOrder(order);
    else parseCampaignOrder(order);
    return true;
  } catch {
    return false;
  }
}

function variants(
  kind: 'brand' | 'campaign',
  base: Record<string, unknown>,
  nested: 'brand' | 'campaign',
  optionalAccepted: string[],
): BadOrder[] {
  const out: BadOrder[] = [];
  const inner = base[nested] as Record<string, unknown>;
  const topFields = Object.keys(base).filter((k) => k !== nested);
  for (const f of [...topFields, nested]) {
    const order = clone(base);
    delete order[f];
    if (accepts(kind, order)) optionalAccepted.push(`${kind}: ${f}`);
    else out.push({ kind, category: 'missing', field: f, description: `${f} missing`, order });
  }
  for (const f of Object.keys(inner)) {
    const order = clone(base);
    delete (order[nested] as Record<string, unknown>)[f];
    if (accepts(kind, order)) optionalAccepted.push(`${kind}: ${nested}.${f}`);
    else
      out.push({
        kind,
        category: 'missing',
        field: `${nested}.${f}`,
        description: `${nested}.${f} missing`,
        order,
      });
  }
  for (const f of topFields) {
    const order = clone(base);
    order[f] = 12345;
    out.push({ kind, category: 'wrong-type', field: f, description: `${f} a number`, order });
  }
  for (const [f, v] of Object.entries(inner)) {
    const order = clone(base);
    (order[nested] as Record<string, unknown>)[f] =
      typeof v === 'string' ? { nested: true } : 'not-a-boolean';
    out.push({
      kind,
      category: 'wrong-type',
      field: `${nested}.${f}`,
      description: `${nested}.${f} wrong type`,
      order,
    });
    if (typeof v === 'string') {
      const big = clone(base);
      (big[nested] as Record<string, unknown>)[f] = OVERSIZED;
      out.push({
        kind,
        category: 'oversized',
        field: `${nested}.${f}`,
        description: `${nested}.${f} 100k chars`,
        order: big,
      });
    }
  }
  for (const f of topFields) {
    const big = clone(base);
    big[f] = OVERSIZED;
    out.push({ kind, category: 'oversized', field: f, description: `${f} 100k chars`, order: big });
  }
  return out;
}

export function badOrderCorpus(): { corpus: BadOrder[]; optionalAccepted: string[] } {
  const optionalAccepted: string[] = [];
  const brand = brandOrder('bad-input-brand') as unknown as Record<string, unknown>;
  const campaign = campaignOrder('bad-input-campaign', 'bad-input-brand') as unknown as Record<
    string,
    unknown
  >;
  const corpus = [
    ...variants('brand', brand, 'brand', optionalAccepted),
    ...variants('campaign', campaign, 'campaign', optionalAccepted),
  ];
  const withBrand = (patch: Record<string, unknown>, drop: string[] = []) => {
    const order = clone(brand);
    const b = { ...(order.brand as Record<string, unknown>), ...patch };
    for (const d of drop) delete b[d];
    order.brand = b;
    return order;
  };
  const rule = (field: string, description: string, order: Record<string, unknown>): BadOrder => ({
    kind: 'brand',
    category: 'entity-rule',
    field,
    description,
    order,
  });
  corpus.push(
    rule('brand.entityType', 'unknown entityType', withBrand({ entityType: 'BANANA' })),
    rule(
      'brand.stockSymbol',
      'PUBLIC_PROFIT without stockSymbol',
      withBrand({
        entityType: 'PUBLIC_PROFIT',
        stockExchange: 'NASDAQ',
        businessContactEmail: 'a@b.example',
      }),
    ),
    rule(
      'brand.stockExchange',
      'PUBLIC_PROFIT without stockExchange',
      withBrand({ entityType: 'PUBLIC_PROFIT', stockSymbol: 'GLBX', businessContactEmail: 'a@b.example' }),
    ),
    rule(
      'brand.businessContactEmail',
      'PUBLIC_PROFIT without businessContactEmail',
      withBrand({ entityType: 'PUBLIC_PROFIT', stockSymbol: 'GLBX', stockExchange: 'NASDAQ' }),
    ),
    rule('brand.ein', 'NON_PROFIT without ein', withBrand({ entityType: 'NON_PROFIT' }, ['ein'])),
    rule('brand.ein', 'PRIVATE_PROFIT without ein', withBrand({}, ['ein'])),
    rule(
      'brand.mobilePhone',
      'SOLE_PROPRIETOR without mobilePhone',
      withBrand({ entityType: 'SOLE_PROPRIETOR', firstName: 'Jane', lastName: 'Doe' }, [
        'ein',
        'companyName',
      ]),
    ),
    rule('brand.country', 'country not ISO 3166 alpha-2', withBrand({ country: 'United States' })),
    rule('brand.email', 'email not an e-mail address', withBrand({ email: 'not an email' })),
    rule('brand.vertical', 'unknown vertical', withBrand({ vertical: 'NOT_A_VERTICAL' })),
  );
  const withCampaign = (patch: Record<string, unknown>) => {
    const order = clone(campaign);
    order.campaign = { ...(order.campaign as Record<string, unknown>), ...patch };
    return order;
  };
  corpus.push(
    {
      kind: 'campaign',
      category: 'entity-rule',
      field: 'campaign.usecase',
      description: 'unknown usecase',
      order: withCampaign({ usecase: 'NOT_A_USECASE' }),
    },
    {
      kind: 'campaign',
      category: 'entity-rule',
      field: 'reference',
      description: 'reference with a space',
      order: { ...clone(campaign), reference: 'has space' },
    },
  );
  const ten000 = Array.from({ length: 10_000 }, (_, i) => `x${i}`);
  const keys10000 = Object.fromEntries(ten000.map((k) => [k, true]));
  const extra = (
    kind: 'brand' | 'campaign',
    category: 'unknown-field' | 'too-many',
    field: string,
    description: string,
    order: Record<string, unknown>,
  ): BadOrder => ({ kind, category, field, description, order });
  corpus.push(
    extra('brand', 'unknown-field', 'priority', 'unknown top-level field', {
      ...clone(brand),
      priority: 'high',
    }),
    extra(
      'brand',
      'unknown-field',
      'brand.webSite',
      'brand.webSite for website',
      withBrand({ webSite: 'https://a.example' }),
    ),
    extra(
      'brand',
      'unknown-field',
      'brand.Email',
      'brand.Email for email',
      withBrand({ Email: 'a@b.example' }),
    ),
    extra(
      'brand',
      'unknown-field',
      'brand.referenceId',
      'brand.referenceId',
      withBrand({ referenceId: 'other' }),
    ),
    extra('brand', 'unknown-field', 'brand.x0', '10,000 unknown brand fields', withBrand(keys10000)),
    extra(
      'brand',
      'too-many',
      'brand.optionalAttributes',
      'optionalAttributes with 10,000 keys',
      withBrand({ optionalAttributes: keys10000 }),
    ),
    extra('campaign', 'unknown-field', 'requireFeeAproval', 'requireFeeAproval for requireFeeApproval', {
      ...clone(campaign),
      requireFeeAproval: true,
    }),
    extra(
      'campaign',
      'unknown-field',
      'campaign.helpKeyword',
      'campaign.helpKeyword for helpKeywords',
      withCampaign({ helpKeyword: 'HELP' }),
    ),
    extra(
      'campaign',
      'unknown-field',
      'campaign.brandId',
      'campaign.brandId',
      withCampaign({ brandId: 'B1' }),
    ),
    extra('campaign', 'too-many', 'campaign.tag', 'tag with 10,000 entries', withCampaign({ tag: ten000 })),
    extra(
      'campaign',
      'too-many',
      'campaign.subUsecases',
      'subUsecases with 10,000 entries',
      withCampaign({ subUsecases: ten000 }),
    ),
    extra(
      'campaign',
      'too-many',
      'campaign.mnoIDs',
      'mnoIDs with 10,000 entries',
      withCampaign({ mnoIDs: ten000.map((_, i) => i) }),
    ),
  );
  return { corpus, optionalAccepted };
}
