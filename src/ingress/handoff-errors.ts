/**
 * Which hand-off failures are permanent: Temporal refused the delivery for what it is, and the same
 * delivery would be refused on every retry (docs/ingress.md, "Permanent hand-off errors"). Those are
 * acknowledged and recorded as dead letters; every other failure keeps the failure answer so the
 * registry retries.
 */

/** gRPC status codes that say the request itself is wrong, whatever the state of the cluster. */
const PERMANENT_CODES: Record<number, string> = {
  3: 'INVALID_ARGUMENT', // an over-long workflow id, a payload over the blob size limit, a malformed field
  11: 'OUT_OF_RANGE',
};

/**
 * INVALID_ARGUMENT answers that come from the deployment, not the event: a search attribute the
 * setup job did not register fails every parked event alike until it is registered. Retried.
 */
const CONFIGURATION_DETAILS = /search attribute|namespace/i;

/**
 * The name of the permanent gRPC status behind a hand-off failure (read through the SDK's
 * ServiceError and the native connection's wrapper, by `cause`), or undefined when the failure is
 * transient or not a gRPC status at all (Temporal unreachable, a deadline, a namespace or permission
 * problem, the codec): those are retried by the registry.
 */
export function permanentHandoffCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 8 && typeof current === 'object' && current !== null; depth++) {
    const { code, metadata, details, message, cause } = current as {
      code?: unknown;
      metadata?: unknown;
      details?: unknown;
      message?: unknown;
      cause?: unknown;
    };
    // A gRPC status: a numeric code with metadata (the SDK's isGrpcServiceError test).
    if (typeof code === 'number' && typeof metadata === 'object' && metadata !== null) {
      const name = PERMANENT_CODES[code];
      const text = `${typeof details === 'string' ? details : ''} ${typeof message === 'string' ? message : ''}`;
      return name !== undefined && !CONFIGURATION_DETAILS.test(text) ? name : undefined;
    }
    if (cause === current) return undefined;
    current = cause;
  }
  return undefined;
}
