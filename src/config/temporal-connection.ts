/**
 * How the worker, the ingress, the CLI and the order-system client connect to Temporal: read by the
 * SDK's own reader, `@temporalio/envconfig`, the same as the `temporal` CLI:
 *
 * - a profile of a `temporal.toml` file (TEMPORAL_CONFIG_FILE, default
 *   `~/.config/temporalio/temporal.toml`; TEMPORAL_PROFILE, default `default`), then
 * - the environment over it: TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TEMPORAL_TLS,
 *   TEMPORAL_TLS_CLIENT_CERT_PATH / _DATA, TEMPORAL_TLS_CLIENT_KEY_PATH / _DATA,
 *   TEMPORAL_TLS_SERVER_CA_CERT_PATH / _DATA, TEMPORAL_TLS_SERVER_NAME, TEMPORAL_GRPC_META_*.
 *
 * This project's earlier names keep working: TEMPORAL_TLS_CERT, TEMPORAL_TLS_KEY and TEMPORAL_TLS_CA
 * stand for the three *_PATH variables when those are unset. An empty variable counts as unset (compose
 * passes `VAR=` for every unset one). Defaults: address 127.0.0.1:7233, namespace `default`. Files are
 * read at load time, so a missing certificate stops the process at start.
 */
import type { ConnectionOptions, TLSConfig } from '@temporalio/client';
import { type ClientConfigProfile, loadClientConfigProfile, toClientOptions } from '@temporalio/envconfig';
import type { NativeConnectionOptions } from '@temporalio/worker';
import { messageOf } from '../common/error-message.js';

export const DEFAULT_TEMPORAL_ADDRESS = '127.0.0.1:7233';
export const DEFAULT_TEMPORAL_NAMESPACE = 'default';

/** Where and how to connect to Temporal. `apiKey` and the TLS key are secrets: never log this as is. */
export interface TemporalConnectionConfig {
  address: string;
  namespace: string;
  /** TEMPORAL_API_KEY (or the profile's api_key); switches TLS on. */
  apiKey?: string;
  /** TLS: `true` = the system's CAs; an object with the files' contents; `false` = off. */
  tls?: TLSConfig | boolean;
  /** gRPC metadata sent with every call (TEMPORAL_GRPC_META_*). */
  metadata?: Record<string, string>;
}

/** Flags that win over the environment and the profile. */
export interface TemporalOverrides {
  address?: string | undefined;
  namespace?: string | undefined;
}

type Env = Record<string, string | undefined>;

/** This project's variable names and the envconfig names they stand for. */
const LEGACY_TLS_NAMES: Record<string, string> = {
  TEMPORAL_TLS_CERT: 'TEMPORAL_TLS_CLIENT_CERT_PATH',
  TEMPORAL_TLS_KEY: 'TEMPORAL_TLS_CLIENT_KEY_PATH',
  TEMPORAL_TLS_CA: 'TEMPORAL_TLS_SERVER_CA_CERT_PATH',
};

/** The environment as envconfig reads it: empty values dropped, the legacy TLS names mapped. */
export function envconfigEnvironment(env: Env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) if (value !== undefined && value !== '') out[name] = value;
  for (const [legacy, name] of Object.entries(LEGACY_TLS_NAMES)) {
    const value = out[legacy];
    if (value !== undefined && out[name] === undefined) out[name] = value;
  }
  return out;
}

const ADDRESS = /^[^\s:]+:\d{1,5}$/;

/**
 * Reads the connection settings. Every problem (a half mTLS pair, an unreadable file, a bad profile
 * or address) is pushed to `problems` naming the variable; never a value.
 */
export function loadTemporalConnection(
  env: Env,
  problems: string[],
  overrides: TemporalOverrides = {},
): TemporalConnectionConfig {
  const effective = envconfigEnvironment(env);
  let profile: ClientConfigProfile = {};
  try {
    profile = loadClientConfigProfile({ overrideEnvVars: effective });
  } catch (error) {
    problems.push(`TEMPORAL_CONFIG_FILE / TEMPORAL_PROFILE: ${messageOf(error)}`);
  }
  const address = overrides.address || profile.address || DEFAULT_TEMPORAL_ADDRESS;
  if (!ADDRESS.test(address))
    problems.push(`${overrides.address ? '--address' : 'TEMPORAL_ADDRESS'}: expected host:port`);
  const namespace = overrides.namespace || profile.namespace || DEFAULT_TEMPORAL_NAMESPACE;
  const tls = profile.tls;
  const halfPair = tls && !tls.disabled && Boolean(tls.clientCert) !== Boolean(tls.clientKey);
  if (halfPair)
    problems.push(
      'TEMPORAL_TLS_CERT / TEMPORAL_TLS_KEY: set both (mTLS client certificate and key) or neither (also TEMPORAL_TLS_CLIENT_CERT_PATH / TEMPORAL_TLS_CLIENT_KEY_PATH)',
    );
  let connection: ReturnType<typeof toClientOptions>['connectionOptions'] = {};
  try {
    if (!halfPair) connection = toClientOptions(profile).connectionOptions;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const path = (error as NodeJS.ErrnoException).path;
    problems.push(
      `TEMPORAL_TLS_* (TLS files): cannot read ${path ?? 'a certificate or key file'}${code ? ` (${code})` : ''}`,
    );
  }
  const metadata =
    profile.grpcMeta && Object.keys(profile.grpcMeta).length > 0 ? profile.grpcMeta : undefined;
  return {
    address,
    namespace,
    ...(connection.apiKey ? { apiKey: connection.apiKey as string } : {}),
    ...(connection.tls !== undefined ? { tls: withoutUndefined(connection.tls) } : {}),
    ...(metadata ? { metadata } : {}),
  };
}

function withoutUndefined(tls: TLSConfig | boolean | null): TLSConfig | boolean {
  if (tls === null) return false;
  if (typeof tls === 'boolean') return tls;
  const out: TLSConfig = {};
  if (tls.serverNameOverride) out.serverNameOverride = tls.serverNameOverride;
  if (tls.serverRootCACertificate) out.serverRootCACertificate = Buffer.from(tls.serverRootCACertificate);
  if (tls.clientCertPair)
    out.clientCertPair = {
      crt: Buffer.from(tls.clientCertPair.crt),
      key: Buffer.from(tls.clientCertPair.key),
    };
  return out;
}

/** Native connection options (worker, ingress). */
export function temporalConnectionOptions(config: TemporalConnectionConfig): NativeConnectionOptions {
  return {
    address: config.address,
    ...(config.apiKey ? { apiKey: config.apiKey } : {}),
    ...(config.tls !== undefined ? { tls: config.tls } : config.apiKey ? { tls: true } : {}),
    ...(config.metadata ? { metadata: config.metadata } : {}),
  };
}

/** grpc-js connection options (CLI, order-system client). */
export function temporalClientConnectionOptions(config: TemporalConnectionConfig): ConnectionOptions {
  return {
    address: config.address,
    ...(config.apiKey ? { apiKey: config.apiKey } : {}),
    ...(config.tls !== undefined ? { tls: config.tls } : config.apiKey ? { tls: true } : {}),
    ...(config.metadata ? { metadata: config.metadata } : {}),
  };
}

/** The settings with every secret replaced, safe to log. */
export function describeTemporalConnection(config: TemporalConnectionConfig): Record<string, unknown> {
  const tls =
    config.tls === undefined
      ? undefined
      : typeof config.tls === 'boolean'
        ? config.tls
        : {
            ...(config.tls.serverRootCACertificate ? { serverCA: 'set' } : {}),
            ...(config.tls.clientCertPair ? { clientCertificate: 'set' } : {}),
            ...(config.tls.serverNameOverride ? { serverName: config.tls.serverNameOverride } : {}),
          };
  return {
    address: config.address,
    namespace: config.namespace,
    ...(config.apiKey ? { apiKey: '[redacted]' } : {}),
    ...(tls !== undefined ? { tls } : {}),
    ...(config.metadata ? { metadata: Object.keys(config.metadata) } : {}),
  };
}
