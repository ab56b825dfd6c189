/**
 * What the spec's rules (./rules.ts) take, without zod: the entity types and the sub-use-case
 * limits of a use case. ./schemas.ts builds its schemas on these, and ./rules.ts needs nothing else
 * from it, so the two do not import each other.
 */

/** The spec's entity types (GET /enum/entityType). */
export const EntityTypes = [
  'GOVERNMENT',
  'NON_PROFIT',
  'PRIVATE_PROFIT',
  'PUBLIC_PROFIT',
  'SOLE_PROPRIETOR',
] as const;
export type EntityType = (typeof EntityTypes)[number];

/** What campaign creation rule 2 reads of a use case (GET /enum/usecase; ./schemas.ts UseCase has more). */
export interface SubUsecaseLimits {
  minSubUsecases?: number | undefined;
  maxSubUsecases?: number | undefined;
}
