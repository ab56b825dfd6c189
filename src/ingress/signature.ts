import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { canonicalize } from 'json-canonicalize';

/**
 * Webhook signatures (spec, "Events" > "Signature"): HMAC-SHA256, key = the subscriber's secret,
 * message = the registered webhook URL followed by the RFC 8785 canonical form of the JSON body,
 * sent in `X-Registry-Signature-256`. The digest's encoding is not specified, so both base64
 * (standard or URL-safe, padded or not) and hex are accepted, told apart by shape. The SHA-1 header
 * `X-Registry-Signature` is ignored.
 */
export const SIGNATURE_HEADER = 'x-registry-signature-256';

/** RFC 8785 (JCS) canonical form of a parsed JSON value. */
export function canonicalJson(value: unknown): string {
  return canonicalize(value);
}

/** The delivery id of an event: SHA-256 (hex) of its canonical form, equal for byte-different resends. */
export function deliveryIdOf(canonical: string): string {
  return createHash('sha256').update(canonical, 'utf8').digest('hex');
}

/** The 32-byte digest a signature header carries, or undefined when it is neither hex nor base64 of 32 bytes. */
export function decodeDigest(header: string): Buffer | undefined {
  const value = header.trim();
  if (/^[0-9a-fA-F]{64}$/.test(value)) return Buffer.from(value, 'hex');
  if (/^[A-Za-z0-9+/_-]{43}={0,1}$/.test(value)) {
    const digest = Buffer.from(value.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    if (digest.length === 32) return digest;
  }
  return undefined;
}

export function hmacSha256(secret: string, webhookUrl: string, canonical: string): Buffer {
  return createHmac('sha256', secret).update(webhookUrl, 'utf8').update(canonical, 'utf8').digest();
}

/** What a sender puts in X-Registry-Signature-256 (tests, the benchmark and the simulator use it). */
export function signEvent(
  secret: string,
  webhookUrl: string,
  body: unknown,
  encoding: 'base64' | 'hex' = 'base64',
): string {
  return hmacSha256(secret, webhookUrl, canonicalJson(body)).toString(encoding);
}

/**
 * True when the header carries HMAC-SHA256(secret, webhookUrl + canonical) for one of the secrets.
 * Every secret is tried (no early exit on the first match), each comparison in constant time.
 */
export function signatureMatches(
  header: string,
  secrets: readonly string[],
  webhookUrl: string,
  canonical: string,
): boolean {
  const presented = decodeDigest(header);
  if (!presented) return false;
  let matched = false;
  for (const secret of secrets) {
    const expected = hmacSha256(secret, webhookUrl, canonical);
    if (expected.length === presented.length && timingSafeEqual(expected, presented)) matched = true;
  }
  return matched;
}

/**
 * The account whose secret signed the event (HMAC-SHA256 of webhookUrl + canonical), or undefined
 * when none did. Every secret is tried (no early exit), each comparison in constant time; a secret
 * belongs to one account only (the configuration refuses one given for two).
 */
export function verifyingAccount(
  header: string,
  secrets: readonly { account: string; secret: string }[],
  webhookUrl: string,
  canonical: string,
): string | undefined {
  const presented = decodeDigest(header);
  if (!presented) return undefined;
  let account: string | undefined;
  for (const entry of secrets) {
    const expected = hmacSha256(entry.secret, webhookUrl, canonical);
    if (expected.length === presented.length && timingSafeEqual(expected, presented))
      account ??= entry.account;
  }
  return account;
}
