/** The webhook ingress: verify signed registry events and hand each one to its workflow. */

export {
  buildIngressApp,
  type HandOff,
  type IngressAck,
  type IngressApp,
  type IngressAppOptions,
} from './app.js';
export { type IngressConfig, IngressConfigError, parseIngressConfig } from './config.js';
export { IngressMetrics, type IngressMetricsSnapshot } from './metrics.js';
export { EventRouter, type EventTarget, eventTarget, type RouteOutcome } from './router.js';
export { type RunningIngress, type StartIngressOptions, startIngress } from './server.js';
export {
  canonicalJson,
  decodeDigest,
  deliveryIdOf,
  SIGNATURE_HEADER,
  signatureMatches,
  signEvent,
} from './signature.js';
export { createIngressClient, ingressDataConverter } from './temporal.js';
