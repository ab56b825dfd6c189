/**
 * Rules of the spec that workflow code applies as well as the edge: plain functions with no zod, so
 * that a workflow bundle which needs them does not load zod and build every schema for each workflow
 * instance (docs/benchmarks.md, section 3). ./schemas.ts re-exports them; what both need is in
 * ./rule-types.ts.
 */
import type { EntityType, SubUsecaseLimits } from './rule-types.js';

/**
 * From 21 January 2027 GOVERNMENT brands also go through business-contact verification (spec,
 * fact 6 and "Versioning"). The registry decides; callers pass the clock of the component applying it.
 */
export const GOVERNMENT_CONTACT_VERIFICATION_FROM = new Date('2027-01-21T00:00:00.000Z');
export function contactVerificationRequired(entityType: EntityType, at: Date): boolean {
  if (entityType === 'PUBLIC_PROFIT') return true;
  return entityType === 'GOVERNMENT' && at.getTime() >= GOVERNMENT_CONTACT_VERIFICATION_FROM.getTime();
}

/** Spec, campaign creation rule 2: the sub-use-case count lies between the use case's min and max. */
export function subUsecaseIssues(
  campaign: { usecase: string; subUsecases?: string[] | undefined },
  useCases: Readonly<Record<string, SubUsecaseLimits | undefined>>,
): { path: string[]; message: string }[] {
  const useCase = useCases[campaign.usecase];
  if (!useCase) return [{ path: ['usecase'], message: `unknown use case ${campaign.usecase}` }];
  const count = campaign.subUsecases?.length ?? 0;
  const min = useCase.minSubUsecases ?? 0;
  const max = useCase.maxSubUsecases ?? Number.POSITIVE_INFINITY;
  if (count < min || count > max)
    return [
      {
        path: ['subUsecases'],
        message: `use case ${campaign.usecase} needs between ${min} and ${max} sub-use-cases; got ${count}`,
      },
    ];
  return [];
}

/**
 * Spec, fact 6 and "Versioning": the contact who verifies needs an address, so from 21 January 2027 a
 * GOVERNMENT registration needs `businessContactEmail` as PUBLIC_PROFIT always does. `at` is the
 * clock of whoever applies the rule (the order API's, the workflow's, the simulator's). Only the
 * dated part: PUBLIC_PROFIT's requirement is an entity-type rule of ./schemas.ts.
 */
export function datedContactEmailIssues(
  brand: { entityType?: string | undefined; businessContactEmail?: unknown },
  at: Date,
): { path: string[]; message: string }[] {
  if (brand.entityType !== 'GOVERNMENT' || !contactVerificationRequired('GOVERNMENT', at)) return [];
  if (typeof brand.businessContactEmail === 'string' && brand.businessContactEmail.trim() !== '') return [];
  return [
    {
      path: ['businessContactEmail'],
      message: `businessContactEmail is required for GOVERNMENT from ${GOVERNMENT_CONTACT_VERIFICATION_FROM.toISOString().slice(0, 10)} (business contact verification)`,
    },
  ];
}
