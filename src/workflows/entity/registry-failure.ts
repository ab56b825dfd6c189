/**
 * Every way a registry call can fail, as one closed set of classes with one defined behaviour each.
 * Pure: takes the error an activity stub threw, returns a plain record the workflow can keep in its
 * state and show to an operator. No registry answer fails a workflow; each class below ends either in
 * an operation refused with the registry's words, or in a fault the loop retries with backoff while
 * needs-action shows it.
 *
 * | class            | from                                         | behaviour                                     |
 * |------------------|----------------------------------------------|-----------------------------------------------|
 * | `rejected`       | 400 with the registry's errors (not 590)     | write: operation refused, operator fixes it   |
 * | `invalid-request`| the client's own checks (nothing was sent)   | write: operation refused, operator fixes it   |
 * | `unauthorized`   | 401                                          | fault (credentials): retried with backoff     |
 * | `forbidden`      | 403                                          | fault (role / permission)                     |
 * | `not-found`      | 404                                          | entity read: confirmed before `deleted`       |
 * | `rate-limited`   | 429 past the operation's window              | fault                                         |
 * | `unavailable`    | 5xx, 590, network, timeout past the window   | fault                                         |
 * | `unparsable`     | 2xx with a body that is not the spec's record| fault                                         |
 * | `configuration`  | unknown account, refused base URL            | fault, never retried by the activity          |
 *
 * Activities retry the retryable classes a bounded number of times (see ./stubs.ts); what reaches the
 * workflow has exhausted that window.
 */
import { ActivityFailure, ApplicationFailure, TimeoutFailure } from '@temporalio/common';
import type { RegistryFailureDetails } from '../../contracts/activity-types.js';
import type { RegistryErrorEntry } from '../../contracts/operations.js';

export type RegistryFailureClass =
  | 'rejected'
  | 'invalid-request'
  | 'unauthorized'
  | 'forbidden'
  | 'not-found'
  | 'rate-limited'
  | 'unavailable'
  | 'unparsable'
  | 'configuration';

/** One error entry of a refusal, as outcomes and needs-action show it (src/contracts/operations.ts). */
export type { RegistryErrorEntry };

/** A registry call that did not succeed, as the workflow keeps and shows it. */
export interface RegistryFailure {
  class: RegistryFailureClass;
  /** The registry's (or the client's) own words. */
  message: string;
  /** The registry's error entries (400), when it gave any. */
  errors: RegistryErrorEntry[];
  status?: number;
}

/** Classes an operator fixes by changing the request: the operation is refused, not retried. */
export const requestRefusalClasses: readonly RegistryFailureClass[] = ['rejected', 'invalid-request'];

const byType: Record<string, RegistryFailureClass> = {
  RegistryValidation: 'rejected',
  RegistryInvalidRequest: 'invalid-request',
  RegistryUnauthorized: 'unauthorized',
  RegistryNotFound: 'not-found',
  RegistryRateLimited: 'rate-limited',
  RegistryTransient: 'unavailable',
  RegistryUnparsable: 'unparsable',
  RegistryConfiguration: 'configuration',
  UnknownAccount: 'configuration',
};

/**
 * The class of a failed activity, or undefined when the error is not an activity failure (a bug or a
 * cancellation, which the caller rethrows).
 */
export function classifyRegistryFailure(error: unknown): RegistryFailure | undefined {
  if (!(error instanceof ActivityFailure)) return undefined;
  const cause = error.cause;
  if (cause instanceof TimeoutFailure)
    return {
      class: 'unavailable',
      message: `the registry call timed out (${cause.timeoutType === undefined ? 'timeout' : String(cause.timeoutType)})`,
      errors: [],
    };
  if (!(cause instanceof ApplicationFailure))
    return { class: 'unavailable', message: cause?.message ?? error.message, errors: [] };
  const details = cause.details?.[0] as RegistryFailureDetails | undefined;
  const errors = Array.isArray(details?.errors) ? details.errors : [];
  const status = typeof details?.status === 'number' ? details.status : undefined;
  let cls = byType[cause.type ?? ''] ?? 'unavailable';
  if (cls === 'rejected' && status === 403) cls = 'forbidden';
  if (cls === 'rejected' && status === 404) cls = 'not-found';
  return {
    class: cls,
    message: cause.message,
    errors,
    ...(status !== undefined ? { status } : {}),
  };
}

/** One line for an operator: what failed, in the registry's words. */
export function describeFailure(site: string, failure: RegistryFailure): string {
  const what: Record<RegistryFailureClass, string> = {
    rejected: 'the registry refused the request',
    'invalid-request': 'the request failed the client checks (nothing was sent)',
    unauthorized: 'the registry rejected the account credentials (401): fix the worker configuration',
    forbidden: 'the registry refused the account permission (403)',
    'not-found': 'the registry does not know the record (404)',
    'rate-limited': 'the registry kept answering 429 (rate limited)',
    unavailable: 'the registry was unavailable (5xx, timeout or network)',
    unparsable: 'the registry answered with a body that is not the expected record',
    configuration: 'the account configuration is refused: fix the worker configuration',
  };
  return `${site}: ${what[failure.class]}: ${failure.message}`;
}
