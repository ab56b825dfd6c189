/**
 * An account name → its registry client, for every activity module (./registry-activities.ts
 * re-exports both; ./reference-lists.ts imports them from here, so neither imports the other's).
 */
import { ApplicationFailure } from '@temporalio/common';
import { RegistryFailureTypes } from '../contracts/activity-types.js';
import type { RegistryClient } from '../registry/client.js';

/** Resolves an account name to its client; undefined for an account the worker does not serve. */
export type RegistryClientResolver = (account: string) => RegistryClient | undefined;

/** The account's registry client; a non-retryable failure when this worker has no such account. */
export function clientOf(resolve: RegistryClientResolver, account: string): RegistryClient {
  const client = resolve(account);
  if (!client)
    throw ApplicationFailure.create({
      message: `this worker has no configuration for CSP account "${account}"`,
      type: RegistryFailureTypes.unknownAccount,
      nonRetryable: true,
    });
  return client;
}
