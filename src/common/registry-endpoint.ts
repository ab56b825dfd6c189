/**
 * A registry request's endpoint TEMPLATE: the API's literal path words kept, every other segment (brand,
 * campaign and vetting ids, event categories, use cases) `{id}`, no query. What metrics and spans name a
 * call by (src/observability/registry-answers.ts, src/registry/transport.ts): bounded, and never an id.
 */

/** The literal path words of the registry API (spec and src/registry/client.ts). */
const PATH_WORDS = new Set([
  'altBusinessIdType',
  'appeal',
  'assetAppealCategory',
  'brand',
  'brandAppealCategory',
  'brandIdentityStatus',
  'brandRelationship',
  'campaign',
  'campaignBuilder',
  'campaignStatus',
  'cnp',
  'dca',
  'entityType',
  'enum',
  'extVettingProvider',
  'externalVetting',
  'mno',
  'nonBlocking',
  'optionalAttributeNames',
  'revet',
  'sharing',
  'subscription',
  'usState',
  'usecase',
  'vertical',
  'vettingClass',
  'vettingStatus',
  'webhook',
]);

/**
 * `GET`, `/base/v2/brand/B1X2?x=1` → `/brand/{id}`; undefined for a path that is not a registry
 * API path (no `/v2/`).
 */
export function registryEndpointTemplate(path: string): string | undefined {
  const bare = path.split('?')[0] ?? '';
  const at = bare.indexOf('/v2/');
  if (at < 0) return undefined;
  const segments = bare
    .slice(at + 3)
    .split('/')
    .filter((s) => s.length > 0)
    .map((s) => (PATH_WORDS.has(s) ? s : '{id}'));
  return `/${segments.join('/')}`;
}
