/**
 * The identity `tcr` gives its Temporal client (issue 35, item 3). Temporal records a client's
 * identity in the history event of every signal and update it sends (the signal event's `identity`,
 * the update's `acceptedRequest.meta.identity`), so a fee approval's history shows, beside the
 * `approvedBy` the operator typed, who sent it: the OS user and host of the `tcr` process and, when
 * the connection uses an mTLS client certificate, that certificate's subject, the identity the
 * frontend authenticated when it requires client certificates. Limits: docs/going-live.md,
 * "Who approved a fee".
 */
import { X509Certificate } from 'node:crypto';
import { hostname, userInfo } from 'node:os';
import type { TemporalConnectionConfig } from '../config/temporal-connection.js';

/** The certificate's subject on one line ("CN=alice, O=acme"), or undefined when it cannot be read. */
function certificateSubject(pem: Uint8Array | undefined): string | undefined {
  if (pem === undefined) return undefined;
  try {
    return new X509Certificate(Buffer.from(pem)).subject.split('\n').join(', ');
  } catch {
    return undefined;
  }
}

function osUser(): string {
  try {
    return userInfo().username;
  } catch {
    return 'unknown';
  }
}

/**
 * `tcr os-user=alice host=ops-1 cert="CN=alice, O=acme"` (cert only with an mTLS client certificate;
 * `api-key` instead when an API key authenticates the connection). At most 512 characters.
 */
export function callerIdentity(
  target: Pick<TemporalConnectionConfig, 'tls' | 'apiKey'>,
  who: { user?: string; host?: string } = {},
): string {
  const tls = typeof target.tls === 'object' ? target.tls : undefined;
  const subject = certificateSubject(tls?.clientCertPair?.crt);
  const parts = [`tcr os-user=${who.user ?? osUser()}`, `host=${who.host ?? hostname()}`];
  if (subject !== undefined) parts.push(`cert="${subject.replaceAll('"', "'")}"`);
  else if (target.apiKey) parts.push('auth=api-key');
  return parts.join(' ').slice(0, 512);
}
