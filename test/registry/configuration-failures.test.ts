/**
 * A configuration error is never retried: every refusal of the base-URL guard, met when a registry
 * client is built, becomes a non-retryable activity failure of its own type (the worker refuses such
 * accounts at start; this is the last line for one that slipped through), and names no credential.
 */
import { ApplicationFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { toActivityFailure } from '../../src/activities/failures.js';
import {
  nonRetryableRegistryFailureTypes,
  RegistryFailureTypes,
} from '../../src/contracts/activity-types.js';
import { RegistryClient, type RegistryClientOptions } from '../../src/registry/client.js';
import { RegistryConfigurationError } from '../../src/registry/errors.js';

const KEY = 'config-key-AKIA-never-print';
const SECRET = 'config-secret-never-print';

const refused: [string, Partial<RegistryClientOptions>][] = [
  ['a production host not in its list', { environment: 'production', baseUrl: 'https://evil.example/v2' }],
  [
    'plain http for a remote environment',
    { environment: 'qa', baseUrl: 'http://qa.registry.example/v2', allowedHosts: ['qa.registry.example'] },
  ],
  ['local off loopback', { environment: 'local', baseUrl: 'http://registry.example:8480' }],
  [
    'credentials in the URL',
    {
      environment: 'staging',
      baseUrl: `https://${KEY}:${SECRET}@staging.registry.example/v2`,
      allowedHosts: ['staging.registry.example'],
    },
  ],
];

describe('configuration errors', () => {
  it.each(refused)('%s: refused when the client is built, as a non-retryable failure', (_, options) => {
    let thrown: unknown;
    try {
      new RegistryClient({ apiKey: KEY, apiSecret: SECRET, ...options } as RegistryClientOptions);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(RegistryConfigurationError);
    const failure = toActivityFailure(thrown);
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure).toMatchObject({ nonRetryable: true, type: RegistryFailureTypes.configuration });
    expect(nonRetryableRegistryFailureTypes).toContain(RegistryFailureTypes.configuration);
    const text = `${(failure as Error).message} ${JSON.stringify(failure)}`;
    expect(text).not.toContain(KEY);
    expect(text).not.toContain(SECRET);
  });
});
