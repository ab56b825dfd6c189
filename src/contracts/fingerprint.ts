/**
 * A compact fingerprint of what the registry says about an entity, kept by its workflow in the
 * `TcrFingerprint` search attribute and recomputed by the estate sweep from the registry's list pages:
 * where the two differ, the workflow has not seen the registry's latest state (a webhook was lost),
 * and the sweep wakes it. Only what a page of `GET /brand` or `GET /campaign` shows goes in, the same
 * fields the single-entity GET returns, so an unchanged entity always matches; and only statuses and
 * dates, never personal data (the fingerprint is a hash anyway, but its input stays non-personal).
 *
 * Pure and deterministic (workflow code computes it): 32-bit FNV-1a of a canonical string, prefixed
 * with the kind and a version, e.g. `b1-4f2a09c3`. A change of the fields below is a new version.
 */
import type { BrandSnapshot } from './activity-types.js';
import type { CampaignSnapshot } from './campaign-activity-types.js';

/** FNV-1a, 32 bits, over the string's UTF-16 code units; 8 hex digits. */
export function fnv1a32(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, '0');
}

/** Brand: status, identity status, whether the contact and the sole proprietor verified, optional attribute names. */
export function brandFingerprint(s: BrandSnapshot): string {
  const canonical = [
    s.status,
    s.identityStatus,
    s.businessContactEmailVerifiedDate ? 'contact' : '',
    s.mobilePhoneVerifiedDate ? 'mobile' : '',
    Object.keys(s.optionalAttributes ?? {})
      .sort()
      .join(','),
  ].join('|');
  return `b1-${fnv1a32(canonical)}`;
}

/** Campaign: status, auto-renewal and the renewal and expiration dates. */
export function campaignFingerprint(s: CampaignSnapshot): string {
  const canonical = [
    s.status,
    s.autoRenewal === true ? 'renews' : s.autoRenewal === false ? 'ends' : '',
    s.nextRenewalOrExpirationDate ?? '',
    s.expirationDate ?? '',
  ].join('|');
  return `c1-${fnv1a32(canonical)}`;
}
