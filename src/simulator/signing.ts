import { createHmac } from 'node:crypto';
import { canonicalize } from 'json-canonicalize';

/** The day from which only the SHA-256 signature header is sent (spec, Events > Signature). */
export const SHA1_HEADER_END = Date.parse('2027-03-07T00:00:00.000Z');

export type DigestEncoding = 'base64' | 'hex';

/** String to sign: webhook URL followed by the RFC 8785 canonical form of the body. */
export function stringToSign(webhookUrl: string, body: unknown): string {
  return webhookUrl + canonicalize(body);
}

export function signatureHeaders(
  webhookUrl: string,
  body: unknown,
  secret: string,
  encoding: DigestEncoding,
  simNowMs: number,
): Record<string, string> {
  const message = stringToSign(webhookUrl, body);
  const headers: Record<string, string> = {
    'X-Registry-Signature-256': createHmac('sha256', secret).update(message).digest(encoding),
  };
  if (simNowMs < SHA1_HEADER_END) {
    headers['X-Registry-Signature'] = createHmac('sha1', secret).update(message).digest(encoding);
  }
  return headers;
}
