/** Sends signed registry events straight to the ingress, as the registry would. */
import { signEvent } from '../../src/ingress/signature.js';

export async function postSignedEvent(
  ingressEndpoint: string,
  webhookUrl: string,
  secret: string,
  event: unknown,
): Promise<number> {
  const response = await fetch(ingressEndpoint, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-registry-signature-256': signEvent(secret, webhookUrl, event),
    },
    body: JSON.stringify(event),
  });
  await response.arrayBuffer();
  return response.status;
}
