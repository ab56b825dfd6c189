/** The vet workflow's decisions as plain functions (no workflow API). */
import type { VetRecord, VettingProviderOffer } from '../../contracts/activity-types.js';
import type { VetState, VetStatus } from '../../contracts/brand.js';
import type { VetProgress } from '../../contracts/vet.js';

/** Registry vettingStatus → our vet state. */
export function vetStateOf(vettingStatus: string): VetState {
  switch (vettingStatus) {
    case 'ACTIVE':
      return 'active';
    case 'FAILED':
      return 'failed';
    case 'EXPIRED':
      return 'expired';
    case 'UNSCORE':
      return 'under-review';
    default:
      return 'pending';
  }
}

/** The registry record of this vet among the brand's vets: by vettingId, else the newest of the provider and class. */
export function matchVet(
  records: VetRecord[],
  evpId: string,
  vettingId?: string,
  vettingClass?: string,
): VetRecord | undefined {
  if (vettingId) return records.find((r) => r.vettingId === vettingId);
  const candidates = records.filter(
    (r) =>
      r.evpId === evpId && (vettingClass === undefined || !r.vettingClass || r.vettingClass === vettingClass),
  );
  return candidates.sort((a, b) => (b.createDate ?? '').localeCompare(a.createDate ?? ''))[0];
}

/** What a registry vet record says of a vet, in the fields progress and a brand's vet list share. */
export function vetRecordFields(
  record: VetRecord,
): Pick<VetProgress, 'vettingId' | 'vettingClass' | 'score' | 'reasons' | 'vettedDate'> {
  return {
    ...(record.vettingId ? { vettingId: record.vettingId } : {}),
    ...(record.vettingClass ? { vettingClass: record.vettingClass } : {}),
    ...(typeof record.vettingScore === 'number' ? { score: record.vettingScore } : {}),
    ...(record.reasons && record.reasons.length > 0 ? { reasons: record.reasons.map(String) } : {}),
    ...(record.vettedDate ? { vettedDate: record.vettedDate } : {}),
  };
}

/**
 * When a vet's result is due (workflow time): `resultWindowMs` plus `graceMs` after it was ordered,
 * which is now; for a vet adopted in progress, its record's createDate, and at least the grace from
 * now, so a late result still gets a read before the vet times out.
 */
export function vetResultDeadline(
  now: number,
  resultWindowMs: number,
  graceMs: number,
  adopted?: VetRecord,
): number {
  if (!adopted) return now + resultWindowMs + graceMs;
  const created = Date.parse(adopted.createDate ?? '');
  const since = Number.isFinite(created) && created <= now ? created : now;
  return Math.max(since + resultWindowMs + graceMs, now + graceMs);
}

/** The progress a registry record means, on top of what we knew. */
export function progressFromRecord(
  current: VetProgress,
  record: VetRecord,
  cause: VetProgress['cause'],
): VetProgress {
  return { ...current, cause, state: vetStateOf(record.vettingStatus), ...vetRecordFields(record) };
}

/**
 * What a provider's offer (`vettingProviderOffer`) means for an order or import about to be sent:
 * `refused` when the registry's list says no (provider not listed, class not offered, orders or
 * imports not supported): nothing is sent. `note` when the list cannot say (an unreadable
 * `vettingInstruction`, no classes listed): the request goes on and the registry decides.
 */
export function vetOfferVerdict(offer: VettingProviderOffer): { refused?: string; note?: string } {
  if (!offer.known || offer.classOffered === false || offer.supported === false)
    return { refused: offer.reason };
  // A class left open because none was asked (an import) is no doubt of the list's.
  if (offer.supported === 'unknown' || (offer.classOffered === 'unknown' && !offer.vettingClasses))
    return { note: offer.reason };
  return {};
}

/**
 * Whether an import is of a Political vet, before the registry answers: the class the operator
 * declared, else a provider whose only listed class is POLITICAL (Campaign Verify, say).
 */
export function importIsPolitical(declaredClass: string | undefined, offer: VettingProviderOffer): boolean {
  if (declaredClass) return declaredClass === 'POLITICAL';
  return offer.vettingClasses?.length === 1 && offer.vettingClasses[0] === 'POLITICAL';
}

/** The refusal of a Political vet for a non-profit that already has Political access (spec, "Vet types"). */
export function politicalAccessRefusal(taxExemptStatus: unknown, verb: 'request' | 'import'): string {
  return `a NON_PROFIT with tax-exempt status ${String(taxExemptStatus)} already has Political access and may not ${verb} a Political vet`;
}

const VET_STATES_IN_PROGRESS: readonly VetState[] = ['ordering', 'pending', 'under-review'];

/**
 * A vet of the brand that an identical billed request would start again, still in progress
 * (ordering, pending, under review): the same provider and class for an order, the same provider and
 * vetting id for an import. Such a request is answered "already in progress", never executed twice.
 */
export function identicalVetInProgress(
  vets: readonly VetStatus[],
  request: { evpId: string } & ({ vettingClass: string } | { vettingId: string }),
): VetStatus | undefined {
  return vets.find(
    (v) =>
      VET_STATES_IN_PROGRESS.includes(v.state) &&
      v.evpId === request.evpId &&
      ('vettingClass' in request
        ? v.vettingClass === request.vettingClass
        : v.vettingId === request.vettingId),
  );
}
