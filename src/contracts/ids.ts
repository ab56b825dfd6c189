/**
 * Workflow ids. One workflow per registry entity and CSP account, keyed by the account's name and the
 * CSP's own reference, which is also the entity's `referenceId` at the registry (events echo it as
 * brandReferenceId / campaignReferenceId). References are unique only within one account, so the
 * account is part of the id: `brand/{account}/{reference}`, `campaign/{account}/{reference}`.
 * Earlier releases used `brand/{reference}` / `campaign/{reference}` (the legacy ids, still found for
 * workflows they opened: docs/operations.md, "Upgrading: account-scoped ids"). Every id in the product
 * is built here.
 */

export { referencePattern } from '../registry/reference.js';

export type EntityKind = 'brand' | 'campaign';

export function brandWorkflowId(account: string, brandReference: string): string {
  return `brand/${account}/${brandReference}`;
}

export function campaignWorkflowId(account: string, campaignReference: string): string {
  return `campaign/${account}/${campaignReference}`;
}

export function entityWorkflowId(kind: EntityKind, account: string, reference: string): string {
  return `${kind}/${account}/${reference}`;
}

/** The id an earlier release gave an entity: `{kind}/{reference}`, without the account. */
export function legacyEntityWorkflowId(kind: EntityKind, reference: string): string {
  return `${kind}/${reference}`;
}

/**
 * One child workflow per external vet of a brand; the sequence number tells vets of one provider apart.
 * `tag`: something unique to the brand that started it (8 hex digits of its first run id), so a
 * brand ordered again after a termination (a new chain of runs) starts vets that cannot collide with an earlier
 * run's (`brand/{account}/{ref}/vet/{evp}/{seq}-{tag}`). Vets started before it have no tag.
 * `brandWorkflowId`: the id of the brand that starts it (a legacy `brand/{ref}` keeps its vets there).
 */
export function vetWorkflowId(
  brandWorkflowId: string,
  evpId: string,
  sequence: number,
  tag?: string,
): string {
  return `${brandWorkflowId}/vet/${evpId}/${sequence}${tag ? `-${tag}` : ''}`;
}

export type ParkedEntityKind = 'brand' | 'campaign';

/**
 * Where the ingress parks events for a registry id no workflow owns yet (for example an event that
 * arrives between the registry's answer to a create call and the workflow recording the new id).
 * The owner claims them once it knows its registry id. Per account (`parked/{account}/{kind}/{id}`):
 * the ingress knows the account whose secret verified the event; without `account`, the legacy id
 * (`parked/{kind}/{id}`) that earlier releases used and workflows replaying them still claim.
 */
export function parkedEventsWorkflowId(kind: ParkedEntityKind, registryId: string, account?: string): string {
  return account === undefined ? `parked/${kind}/${registryId}` : `parked/${account}/${kind}/${registryId}`;
}

/** An entity workflow id matches one of these: `{kind}/{account}/{reference}` or, legacy, `{kind}/{reference}`. */
export const entityWorkflowIdPattern = {
  brand: /^brand\/(?:[^/]+\/)?[^/]+$/,
  campaign: /^campaign\/(?:[^/]+\/)?[^/]+$/,
} as const;

/**
 * The kind, reference and (for an account-scoped id) account back from a workflow id, or undefined
 * when the id is not an entity's (a vet's, a parked one, another's).
 */
export function referenceFromWorkflowId(
  workflowId: string,
): { kind: EntityKind; reference: string; account?: string } | undefined {
  const match = /^(brand|campaign)\/(?:([^/]+)\/)?([^/]+)$/.exec(workflowId);
  if (!match?.[1] || !match[3]) return undefined;
  return {
    kind: match[1] as EntityKind,
    reference: match[3],
    ...(match[2] !== undefined ? { account: match[2] } : {}),
  };
}

/**
 * Where the ingress parks events that carry a CSP reference whose workflow does not exist (yet, or
 * any more): `parked/{account}/brand-ref/{reference}` (legacy, without `account`:
 * `parked/brand-ref/{reference}`). The owner claims them when it starts, beside the registry-id-keyed
 * ones of `parkedEventsWorkflowId` once it knows its registry id.
 */
export function parkedEventsByReferenceWorkflowId(
  kind: ParkedEntityKind,
  reference: string,
  account?: string,
): string {
  return account === undefined
    ? `parked/${kind}-ref/${reference}`
    : `parked/${account}/${kind}-ref/${reference}`;
}

/**
 * The write budget of a CSP account (src/contracts/write-budget.ts): one workflow per account name,
 * shared by every worker process that serves the account.
 */
export function writeBudgetWorkflowId(account: string): string {
  return `budget/${account}/writes`;
}
