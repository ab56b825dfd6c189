import { readFileSync } from 'node:fs';
import type { ConnectionOptions } from '@temporalio/client';
import type { NativeConnectionOptions } from '@temporalio/worker';

/** Files of a TLS connection to Temporal, as paths: mTLS certificate and key (both or neither), CA. */
export interface TemporalTlsFiles {
  certPath?: string;
  keyPath?: string;
  caPath?: string;
}

/** How the worker, the ingress and the CLI authenticate to Temporal. */
export interface TemporalSecurity {
  /** TEMPORAL_API_KEY; switches TLS on. A secret. */
  apiKey?: string;
  tls?: TemporalTlsFiles;
}

/** A configuration problem, by variable. */
export interface SecurityProblem {
  variable: string;
  message: string;
}

const TLS_PAIR_PROBLEM: SecurityProblem = {
  variable: 'TEMPORAL_TLS_CERT / TEMPORAL_TLS_KEY',
  message: 'set both (mTLS client certificate and key) or neither',
};

export const describeProblem = (problem: SecurityProblem) => `${problem.variable}: ${problem.message}`;

/**
 * Reads TEMPORAL_API_KEY and TEMPORAL_TLS_CERT / _KEY / _CA, the same for every part. `problem` is
 * set (naming both variables) when only one of the certificate and key is given.
 */
export function temporalSecurityFromEnv(
  env: Record<string, string | undefined>,
): TemporalSecurity & { problem?: SecurityProblem } {
  const cert = env.TEMPORAL_TLS_CERT || undefined;
  const key = env.TEMPORAL_TLS_KEY || undefined;
  const ca = env.TEMPORAL_TLS_CA || undefined;
  const tls: TemporalTlsFiles = {
    ...(cert ? { certPath: cert } : {}),
    ...(key ? { keyPath: key } : {}),
    ...(ca ? { caPath: ca } : {}),
  };
  return {
    ...(env.TEMPORAL_API_KEY ? { apiKey: env.TEMPORAL_API_KEY } : {}),
    ...(Object.keys(tls).length > 0 ? { tls } : {}),
    ...(Boolean(cert) !== Boolean(key) ? { problem: TLS_PAIR_PROBLEM } : {}),
  };
}

/**
 * The `tls` and `apiKey` options of a connection to Temporal, native or grpc-js alike: the files are
 * read now; an API key alone means TLS with the system's CAs.
 */
export function temporalSecurityOptions(
  security: TemporalSecurity,
): Pick<ConnectionOptions & NativeConnectionOptions, 'tls' | 'apiKey'> {
  const tls = security.tls
    ? {
        ...(security.tls.caPath ? { serverRootCACertificate: readFileSync(security.tls.caPath) } : {}),
        ...(security.tls.certPath && security.tls.keyPath
          ? {
              clientCertPair: {
                crt: readFileSync(security.tls.certPath),
                key: readFileSync(security.tls.keyPath),
              },
            }
          : {}),
      }
    : security.apiKey
      ? true
      : undefined;
  return {
    ...(security.apiKey ? { apiKey: security.apiKey } : {}),
    ...(tls !== undefined ? { tls } : {}),
  };
}

/** Native connection options for the worker's and the ingress's connections to Temporal. */
export function temporalConnectionOptions(
  temporal: TemporalSecurity & { address: string },
): NativeConnectionOptions {
  return { address: temporal.address, ...temporalSecurityOptions(temporal) };
}
