/** Sends signed registry events straight to the ingress, as the registry would. */
import { signEvent } from '../../src/ingress/signature.js';

/** POSTs `event` to an ingress endpoint, signed with `secret` for the registered `webhookUrl`. */
export function sendSignedEvent(
  endpoint: string,
  delivery: { secret: string; webhookUrl: string },
  event: unknown,
): Promise<Response> {
  return fetch(endpoint, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-registry-signature-256': signEvent(delivery.secret, delivery.webhookUrl, event),
    },
    body: JSON.stringify(event),
  });
}

/** `sendSignedEvent`, answering the status only (the body is read and dropped). */
export async function postSignedEvent(
  ingressEndpoint: string,
  webhookUrl: string,
  secret: string,
  event: unknown,
): Promise<number> {
  const response = await sendSignedEvent(ingressEndpoint, { secret, webhookUrl }, event);
  await response.arrayBuffer();
  return response.status;
}
