/**
 * Registry settings that hold for every account of a deployment, from environment variables:
 *
 *   TCR_REGISTRY_<ENV>_HOSTS   comma-separated hosts known for a remote environment ENV (QA, STAGING,
 *                              PREVIEW, PRODUCTION); the base-URL guard lets that environment's
 *                              credentials go to these hosts only (an account may add its own,
 *                              `allowedHosts`)
 *   TCR_REGISTRY_TIMEOUT_MS    per-request timeout of registry calls (default 30000; an account's
 *                              `timeoutMs` wins)
 *
 * The accounts themselves (credentials, base URL) come from TCR_ACCOUNTS / TCR_ACCOUNTS_FILE
 * (src/config/accounts.ts), which applies these settings; the worker and `tcr` read both the same way.
 * Errors name the variable, never a value.
 */
import type { RemoteEnvironment } from './environments.js';
import { RemoteEnvironmentNames } from './environments.js';

export const DEFAULT_REGISTRY_TIMEOUT_MS = 30_000;

export interface RegistryEnvironmentSettings {
  /** Known hosts per remote environment (lower case; empty when the variable is unset). */
  hosts: Record<RemoteEnvironment, string[]>;
  /** Per-request timeout for accounts that do not set their own. */
  timeoutMs: number;
}

/** The variable holding each remote environment's known hosts (spelt out: greppable, and found by the deployment tests' scan). */
const HOSTS_VARIABLES: Record<RemoteEnvironment, string> = {
  qa: 'TCR_REGISTRY_QA_HOSTS',
  staging: 'TCR_REGISTRY_STAGING_HOSTS',
  preview: 'TCR_REGISTRY_PREVIEW_HOSTS',
  production: 'TCR_REGISTRY_PRODUCTION_HOSTS',
};

/** The variable holding a remote environment's known hosts, e.g. TCR_REGISTRY_PRODUCTION_HOSTS. */
export const hostsVariable = (environment: RemoteEnvironment) => HOSTS_VARIABLES[environment];

const HOST = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$|^\[?[0-9a-f:.]+\]?$/;

/** Reads the registry settings; every problem is pushed to `problems` as `VARIABLE: what is wrong`. */
export function registryEnvironmentSettings(
  env: Record<string, string | undefined>,
  problems: string[],
): RegistryEnvironmentSettings {
  const hosts = { qa: [], staging: [], preview: [], production: [] } as Record<RemoteEnvironment, string[]>;
  for (const environment of RemoteEnvironmentNames) {
    const variable = hostsVariable(environment);
    const list = (env[variable] ?? '')
      .split(',')
      .map((h) => h.trim().toLowerCase())
      .filter(Boolean);
    const bad = list.filter((h) => !HOST.test(h));
    if (bad.length > 0)
      problems.push(
        `${variable}: expected comma-separated host names (no scheme, port or path), got ${bad.length} that ${bad.length === 1 ? 'is' : 'are'} not`,
      );
    hosts[environment] = list;
  }
  let timeoutMs = DEFAULT_REGISTRY_TIMEOUT_MS;
  const rawTimeout = env.TCR_REGISTRY_TIMEOUT_MS;
  if (rawTimeout !== undefined && rawTimeout.trim() !== '') {
    const n = Number(rawTimeout);
    if (!Number.isSafeInteger(n) || n < 1 || n > 600_000)
      problems.push('TCR_REGISTRY_TIMEOUT_MS: expected a whole number of milliseconds, 1 to 600000');
    else timeoutMs = n;
  }
  return { hosts, timeoutMs };
}
