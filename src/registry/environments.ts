/**
 * Registry environments and the base-URL guard: credentials issued for one environment are only ever
 * sent to a base URL known to belong to that environment (spec, "Environments": keys of one
 * environment are rejected in another, so sending them elsewhere only leaks them).
 *
 * - `local` (the simulator) accepts loopback hosts only, over http or https.
 * - `qa`, `staging`, `preview`, `production` accept only hosts configured for that environment
 *   (`configureEnvironmentHosts`, the `environmentHosts` argument, or the client's `allowedHosts`
 *   option), and only over https, loopback or not. The spec writes the addresses as placeholders, so
 *   there are no built-in defaults. A host configured for two environments is refused.
 *
 * Deployments configure the hosts per account (`allowedHosts`) or per environment
 * (`TCR_REGISTRY_<ENV>_HOSTS`); src/config/accounts.ts checks every account at start.
 */
import { isIP } from 'node:net';
import { RegistryConfigurationError } from './errors.js';

export const RegistryEnvironments = ['local', 'qa', 'staging', 'preview', 'production'] as const;
export type RegistryEnvironment = (typeof RegistryEnvironments)[number];
export type RemoteEnvironment = Exclude<RegistryEnvironment, 'local'>;

export const RemoteEnvironmentNames = ['qa', 'staging', 'preview', 'production'] as const;

export type EnvironmentHosts = Partial<Record<RemoteEnvironment, Iterable<string>>>;

const knownHosts: Record<RemoteEnvironment, Set<string>> = {
  qa: new Set(),
  staging: new Set(),
  preview: new Set(),
  production: new Set(),
};

/** Sets the known hosts of the environments named in `hosts` (replacing their previous lists). */
export function configureEnvironmentHosts(hosts: Partial<Record<RemoteEnvironment, string[]>>): void {
  for (const [env, list] of Object.entries(hosts) as [RemoteEnvironment, string[] | undefined][]) {
    if (!(env in knownHosts)) throw new RegistryConfigurationError(`unknown registry environment ${env}`);
    knownHosts[env] = new Set((list ?? []).map((h) => h.toLowerCase()));
  }
}

/** The known hosts per remote environment (copy). */
export function environmentHosts(): Record<RemoteEnvironment, string[]> {
  return {
    qa: [...knownHosts.qa],
    staging: [...knownHosts.staging],
    preview: [...knownHosts.preview],
    production: [...knownHosts.production],
  };
}

export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  if (isIP(host) === 6) return host === '::1' || host === '0:0:0:0:0:0:0:1';
  return false;
}

export interface CheckedBaseUrl {
  /** Origin, e.g. `https://api.example:443`. */
  origin: string;
  /** Path prefix before `/v2`, without a trailing slash (usually ''). */
  basePath: string;
  /** `origin + basePath`, what the client reports as its base URL. */
  baseUrl: string;
}

/**
 * Validates a base URL for an environment. Throws RegistryConfigurationError when the URL is not
 * allowed. A trailing `/v2` is tolerated and removed (the client adds it).
 */
export function checkBaseUrl(
  environment: RegistryEnvironment,
  baseUrl: string,
  allowedHosts: readonly string[] = [],
  /** The known hosts of every environment; default the process-wide lists (configureEnvironmentHosts). */
  environmentHosts: EnvironmentHosts = knownHosts,
): CheckedBaseUrl {
  if (!(RegistryEnvironments as readonly string[]).includes(environment))
    throw new RegistryConfigurationError(`unknown registry environment ${String(environment)}`);
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new RegistryConfigurationError(`registry base URL for ${environment} is not a URL`);
  }
  if (url.username || url.password)
    throw new RegistryConfigurationError(
      'registry base URL must not carry credentials; use apiKey/apiSecret',
    );
  if (url.search || url.hash)
    throw new RegistryConfigurationError('registry base URL must not have a query or fragment');
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new RegistryConfigurationError(`registry base URL must be http(s), got ${url.protocol}`);
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const loopback = isLoopbackHost(host);
  if (url.protocol === 'http:' && (!loopback || environment !== 'local'))
    throw new RegistryConfigurationError(
      environment === 'local'
        ? `registry base URL must use https unless it is loopback (host ${host})`
        : `registry base URL of environment ${environment} must use https (host ${host})`,
    );

  if (environment === 'local') {
    if (!loopback)
      throw new RegistryConfigurationError(`environment local only talks to loopback hosts, not ${host}`);
  } else {
    const hostsOf = (env: RemoteEnvironment) =>
      [...(environmentHosts[env] ?? [])].map((h) => h.toLowerCase());
    const own = new Set([...hostsOf(environment), ...allowedHosts.map((h) => h.toLowerCase())]);
    const others = RemoteEnvironmentNames.filter((o) => o !== environment && hostsOf(o).includes(host));
    if (!own.has(host))
      throw new RegistryConfigurationError(
        others.length > 0
          ? `host ${host} is a ${others.join(' and ')} registry host, not a ${environment} one; refusing to send ${environment} credentials there`
          : `host ${host} is not a known ${environment} registry host; refusing to send ${environment} credentials there`,
      );
    if (others.length > 0)
      throw new RegistryConfigurationError(
        `host ${host} is configured for ${others[0]} as well as ${environment}; refusing to send credentials`,
      );
  }
  const basePath = url.pathname.replace(/\/+$/, '').replace(/\/v2$/, '');
  return { origin: url.origin, basePath, baseUrl: url.origin + basePath };
}
