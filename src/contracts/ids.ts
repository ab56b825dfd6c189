/**
 * Workflow ids. One workflow per registry entity, keyed by the CSP's own reference, which is also
 * the entity's `referenceId` at the registry (events echo it as brandReferenceId /
 * campaignReferenceId). Every id in the product is built here.
 */

export { referencePattern } from '../registry/reference.js';

export function brandWorkflowId(brandReference: string): string {
  return `brand/${brandReference}`;
}

export function campaignWorkflowId(campaignReference: string): string {
  return `campaign/${campaignReference}`;
}

/**
 * One child workflow per external vet of a brand; the sequence number tells vets of one provider apart.
 * `tag`: something unique to the brand that started it (8 hex digits of its first run id), so a
 * brand ordered again after a termination (a new chain of runs) starts vets that cannot collide with an earlier
 * run's (`brand/{ref}/vet/{evp}/{seq}-{tag}`). Vets started before it have no tag.
 */
export function vetWorkflowId(brandReference: string, evpId: string, sequence: number, tag?: string): string {
  return `brand/${brandReference}/vet/${evpId}/${sequence}${tag ? `-${tag}` : ''}`;
}

export type ParkedEntityKind = 'brand' | 'campaign';

/**
 * Where the ingress parks events for a registry id no workflow owns yet (for example an event that
 * arrives between the registry's answer to a create call and the workflow recording the new id).
 * The owner claims them once it knows its registry id.
 */
export function parkedEventsWorkflowId(kind: ParkedEntityKind, registryId: string): string {
  return `parked/${kind}/${registryId}`;
}

/** The reference back from a workflow id, or undefined when the id is not one of ours. */
export function referenceFromWorkflowId(
  workflowId: string,
): { kind: 'brand' | 'campaign'; reference: string } | undefined {
  const match = /^(brand|campaign)\/([^/]+)$/.exec(workflowId);
  if (!match?.[1] || !match[2]) return undefined;
  return { kind: match[1] as 'brand' | 'campaign', reference: match[2] };
}

/**
 * Where the ingress parks events that carry a CSP reference whose workflow does not exist (yet, or
 * any more): `parked/brand-ref/{reference}`. The owner claims them when it starts, beside the
 * registry-id-keyed ones of `parkedEventsWorkflowId` once it knows its registry id.
 */
export function parkedEventsByReferenceWorkflowId(kind: ParkedEntityKind, reference: string): string {
  return `parked/${kind}-ref/${reference}`;
}

/**
 * The write budget of a CSP account (src/contracts/write-budget.ts): one workflow per account name,
 * shared by every worker process that serves the account.
 */
export function writeBudgetWorkflowId(account: string): string {
  return `budget/${account}/writes`;
}
