/**
 * Registry client errors → Temporal ApplicationFailures with the retry behaviour the workflows
 * expect. Messages come from the client's errors, which never contain credentials.
 */
import { ApplicationFailure } from '@temporalio/common';
import { type RegistryFailureDetails, RegistryFailureTypes } from '../contracts/activity-types.js';
import {
  NotFoundError,
  RateLimitedError,
  RegistryConfigurationError,
  RegistryError,
  RegistryRequestInvalidError,
  RegistryResponseInvalidError,
  RegistryValidationError,
  UnauthorizedError,
} from '../registry/errors.js';

export function toActivityFailure(error: unknown): unknown {
  if (error instanceof ApplicationFailure) return error;
  if (error instanceof RateLimitedError) {
    return ApplicationFailure.create({
      message: error.message,
      type: RegistryFailureTypes.rateLimited,
      nonRetryable: false,
      nextRetryDelay: Math.max(1, error.retryAfterMs),
    });
  }
  if (error instanceof UnauthorizedError) {
    const details: RegistryFailureDetails = {
      status: 401,
      errors: [{ description: 'the registry rejected the credentials of this account (401)', fields: [] }],
    };
    return ApplicationFailure.create({
      message: error.message,
      type: RegistryFailureTypes.unauthorized,
      nonRetryable: true,
      details: [details],
    });
  }
  if (error instanceof RegistryValidationError && !error.retryable) {
    const details: RegistryFailureDetails = {
      ...(error.status !== undefined ? { status: error.status } : {}),
      errors: error.errors.map((e) => ({
        ...(e.code !== undefined ? { code: e.code } : {}),
        description: e.description,
        fields: e.fields,
      })),
    };
    return ApplicationFailure.create({
      message: error.message,
      type: RegistryFailureTypes.validation,
      nonRetryable: true,
      details: [details],
    });
  }
  if (error instanceof NotFoundError) {
    return ApplicationFailure.create({
      message: error.message,
      type: RegistryFailureTypes.notFound,
      nonRetryable: true,
      details: [{ status: 404, errors: error.errors } satisfies RegistryFailureDetails],
    });
  }
  if (error instanceof RegistryRequestInvalidError) {
    return ApplicationFailure.create({
      message: error.message,
      type: RegistryFailureTypes.invalidRequest,
      nonRetryable: true,
      details: [
        {
          errors: error.issues.map((i) => ({ description: i.message, fields: [i.path] })),
        } satisfies RegistryFailureDetails,
      ],
    });
  }
  if (error instanceof RegistryConfigurationError) {
    // Never retried: the same configuration gives the same refusal. Workers refuse such an account
    // at start; this is the last line for one that slipped through.
    return ApplicationFailure.create({
      message: error.message,
      type: RegistryFailureTypes.configuration,
      nonRetryable: true,
    });
  }
  if (error instanceof RegistryResponseInvalidError) {
    // An answer that is not the spec's record (a proxy's HTML page, a truncated body): retried within
    // the operation's window, then shown to the operator with the parser's words.
    return ApplicationFailure.create({
      message: error.message,
      type: RegistryFailureTypes.unparsable,
      nonRetryable: false,
    });
  }
  if (error instanceof RegistryError) {
    return ApplicationFailure.create({
      message: error.message,
      type: RegistryFailureTypes.transient,
      nonRetryable:
        !error.retryable && !error.mayHaveCommitted && error.status !== undefined && error.status < 500,
    });
  }
  return error;
}

/** Runs a registry call, mapping its errors. */
export async function mapRegistryErrors<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw toActivityFailure(error);
  }
}
