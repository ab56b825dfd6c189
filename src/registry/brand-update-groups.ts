/**
 * Brand update groups (spec, "Brands" > "Brand update rules"). The spec gives each group's rule but
 * not its property names; this module is the one place they are assigned. The brand workflow's
 * correctBrand validator checks a patch against it, and the simulator enforces the same groups, so
 * the product is never tested against rules it does not itself apply. docs/workflows.md prints the
 * table. Pure data and functions: safe in workflow code.
 *
 * | Group | Fields | Rule | Forces re-verification |
 * |---|---|---|---|
 * | 1 | entityType, companyName, ein, einIssuingCountry | only with no external vets and no active campaigns; sets UNVERIFIED | yes |
 * | 2 | email, phone, mobilePhone, website, businessContact{Title,FirstName,LastName}, firstName, lastName | none | no |
 * | 3 | displayName, brandRelationship, vertical | at most once every 3 months | no |
 * | 4 | businessContactEmail | resets businessContactEmailVerifiedDate (contact verified again) | yes |
 * | 5 | street, city, state, postalCode, country, stockSymbol, stockExchange, altBusinessIdType, altBusinessId | sets UNVERIFIED | yes |
 */

export type BrandUpdateGroup = 1 | 2 | 3 | 4 | 5;

export const brandUpdateGroups: Record<BrandUpdateGroup, readonly string[]> = {
  1: ['entityType', 'companyName', 'ein', 'einIssuingCountry'],
  2: [
    'email',
    'phone',
    'mobilePhone',
    'website',
    'businessContactTitle',
    'businessContactFirstName',
    'businessContactLastName',
    'firstName',
    'lastName',
  ],
  3: ['displayName', 'brandRelationship', 'vertical'],
  4: ['businessContactEmail'],
  5: [
    'street',
    'city',
    'state',
    'postalCode',
    'country',
    'stockSymbol',
    'stockExchange',
    'altBusinessIdType',
    'altBusinessId',
  ],
};

/** Groups whose change sends the brand back through verification (revet needed). */
export const reverificationGroups: readonly BrandUpdateGroup[] = [1, 4, 5];

/** Months between two updates of group 3. */
export const GROUP_3_INTERVAL_MONTHS = 3;

export function groupOfField(field: string): BrandUpdateGroup | undefined {
  for (const [group, fields] of Object.entries(brandUpdateGroups)) {
    if (fields.includes(field)) return Number(group) as BrandUpdateGroup;
  }
  return undefined;
}

/** The groups a patch touches, ascending. Unknown fields are reported separately by the validator. */
export function groupsOfPatch(patch: Record<string, unknown>): BrandUpdateGroup[] {
  const groups = new Set<BrandUpdateGroup>();
  for (const field of Object.keys(patch)) {
    const group = groupOfField(field);
    if (group !== undefined) groups.add(group);
  }
  return [...groups].sort();
}

export function forcesReverification(patch: Record<string, unknown>): boolean {
  return groupsOfPatch(patch).some((g) => reverificationGroups.includes(g));
}

/** When group 3 may next be updated after an update at `lastUpdate` (calendar months, UTC). */
export function nextGroup3UpdateAllowedAt(lastUpdate: Date): Date {
  const next = new Date(lastUpdate.getTime());
  next.setUTCMonth(next.getUTCMonth() + GROUP_3_INTERVAL_MONTHS);
  return next;
}
