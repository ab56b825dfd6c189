/**
 * Registry account configuration from environment variables, parsed at the edge with field-named
 * errors. Per environment ENV (LOCAL, QA, STAGING, PREVIEW, PRODUCTION):
 *
 *   TCR_REGISTRY_<ENV>_BASE_URL    base URL without /v2 (local default: http://127.0.0.1:8480)
 *   TCR_REGISTRY_<ENV>_API_KEY     API key (local default: the simulator's DEFAULT_ACCOUNT key)
 *   TCR_REGISTRY_<ENV>_API_SECRET  API secret (local default: the simulator's DEFAULT_ACCOUNT secret)
 *   TCR_REGISTRY_<ENV>_HOSTS       comma-separated hosts known for the environment (remote environments)
 *   TCR_REGISTRY_TIMEOUT_MS        per-request timeout (default 30000)
 *
 * The known hosts are registered with `configureEnvironmentHosts`, so the base-URL guard applies.
 */
import { z } from 'zod';
import type { RegistryClientOptions } from './client.js';
import { configureEnvironmentHosts, type RegistryEnvironment, RegistryEnvironments } from './environments.js';
import { RegistryConfigurationError } from './errors.js';

/** The simulator's default account (src/simulator DEFAULT_ACCOUNT); only ever used for `local`. */
const LOCAL_DEFAULTS = {
  baseUrl: 'http://127.0.0.1:8480',
  apiKey: 'local-api-key',
  apiSecret: 'local-api-secret',
};

const hostList = z.string().transform((v) =>
  v
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean),
);

export function registryAccountFromEnv(
  environment: RegistryEnvironment,
  env: Record<string, string | undefined> = process.env,
): RegistryClientOptions {
  if (!(RegistryEnvironments as readonly string[]).includes(environment))
    throw new RegistryConfigurationError(`unknown registry environment ${String(environment)}`);
  const prefix = `TCR_REGISTRY_${environment.toUpperCase()}_`;
  const local = environment === 'local';
  const schema = z.object({
    baseUrl: local ? z.string().default(LOCAL_DEFAULTS.baseUrl) : z.string().min(1),
    apiKey: local ? z.string().default(LOCAL_DEFAULTS.apiKey) : z.string().min(1),
    apiSecret: local ? z.string().default(LOCAL_DEFAULTS.apiSecret) : z.string().min(1),
    hosts: hostList.optional(),
    timeoutMs: z.coerce.number().int().positive().optional(),
  });
  const parsed = schema.safeParse({
    baseUrl: env[`${prefix}BASE_URL`],
    apiKey: env[`${prefix}API_KEY`],
    apiSecret: env[`${prefix}API_SECRET`],
    hosts: env[`${prefix}HOSTS`],
    timeoutMs: env.TCR_REGISTRY_TIMEOUT_MS,
  });
  if (!parsed.success) {
    const names: Record<string, string> = {
      baseUrl: `${prefix}BASE_URL`,
      apiKey: `${prefix}API_KEY`,
      apiSecret: `${prefix}API_SECRET`,
      hosts: `${prefix}HOSTS`,
      timeoutMs: 'TCR_REGISTRY_TIMEOUT_MS',
    };
    // Name the variables only; never echo their values (they may be secrets).
    const bad = parsed.error.issues.map((i) => names[String(i.path[0])] ?? String(i.path[0]));
    throw new RegistryConfigurationError(
      `registry configuration for ${environment}: missing or invalid ${bad.join(', ')}`,
    );
  }
  const { hosts, ...account } = parsed.data;
  if (hosts && !local) configureEnvironmentHosts({ [environment]: hosts });
  return { environment, ...account };
}
