/**
 * What every `tcr` command runs with: where output goes, the environment, and a lazily opened
 * Temporal client. Tests pass their own `io` (to capture output) and `client` or `env`.
 */

import { Client, type Connection, type ConnectionOptions } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { dataConverter } from '../codec/data-converter.js';
import { messageOf } from '../common/error-message.js';
import { setOrderAccounts } from '../config/entity-lookup.js';
import { SafelyClosingConnection } from '../config/safely-closing-connection.js';
import {
  loadTemporalConnection,
  type TemporalConnectionConfig,
  temporalClientConnectionOptions,
} from '../config/temporal-connection.js';
import { cliAccounts } from './account-option.js';
import { callerIdentity } from './caller-identity.js';
import { cliPayloadKeys, noKeysCodec } from './cli-keys.js';
import { CliError, ExitCode } from './errors.js';

export interface CliIo {
  /** Standard output: results (and `--json` documents). */
  out(text: string): void;
  /** Standard error: progress, warnings and errors. */
  err(text: string): void;
}

export const processIo: CliIo = {
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
};

export type CliEnv = Record<string, string | undefined>;

export interface CliDeps {
  io?: CliIo;
  env?: CliEnv;
  /** A ready client (tests, embedding); otherwise one is opened from the flags and environment. */
  client?: Client;
  /** Aborted to stop long-running commands (`events tail --follow`, `worker`); default SIGINT / SIGTERM. */
  signal?: AbortSignal;
}

/** Connection flags every command that talks to Temporal accepts. */
export const connectionOptions = {
  address: { type: 'string' },
  namespace: { type: 'string' },
  account: { type: 'string' },
} as const;

export interface ConnectionFlags {
  address?: string | undefined;
  namespace?: string | undefined;
  /** The CSP account a bare REF is of (./account-option.ts). */
  account?: string | undefined;
}

export type TemporalTarget = TemporalConnectionConfig;

/**
 * Flags over environment and `temporal.toml` profile, as the worker reads them (src/config,
 * @temporalio/envconfig): TEMPORAL_ADDRESS (default 127.0.0.1:7233), TEMPORAL_NAMESPACE (default
 * `default`), TEMPORAL_API_KEY (implies TLS), TEMPORAL_TLS_* (mTLS, CA), TEMPORAL_PROFILE.
 */
export function temporalTarget(flags: ConnectionFlags, env: CliEnv): TemporalTarget {
  const problems: string[] = [];
  const target = loadTemporalConnection(env, problems, flags);
  if (problems.length > 0) throw new CliError(problems.join('; '), ExitCode.usage);
  return target;
}

function clientConnectionOptions(target: TemporalTarget): ConnectionOptions {
  return { ...temporalClientConnectionOptions(target), connectTimeout: '5s' };
}

export class CliContext {
  readonly io: CliIo;
  readonly env: CliEnv;
  readonly signal: AbortSignal | undefined;
  private readonly given: Client | undefined;
  private opened: { client: Client; connection: Connection } | undefined;

  constructor(deps: CliDeps = {}) {
    this.io = deps.io ?? processIo;
    this.env = deps.env ?? process.env;
    this.given = deps.client;
    this.signal = deps.signal;
  }

  /** The Temporal client: the given one, or a connection opened from flags and environment. */
  async client(flags: ConnectionFlags): Promise<Client> {
    const client = await this.connect(flags);
    const address = this.given ? '' : temporalTarget(flags, this.env).address;
    // The account a bare REF is of; none known leaves the client's own (an order it started names one).
    const accounts = cliAccounts(flags.account, this.env, address);
    if (accounts.length > 0) setOrderAccounts(client, accounts);
    return client;
  }

  private async connect(flags: ConnectionFlags): Promise<Client> {
    if (this.given) return this.given;
    if (this.opened) return this.opened.client;
    const target = temporalTarget(flags, this.env);
    // Payloads encrypted with the keys TCR_PAYLOAD_KEYS_FILE / TCR_PAYLOAD_KEYS name, or the local
    // stack's when the CLI talks to it; without keys nothing is sent in clear (./cli-keys.ts).
    const keys = cliPayloadKeys(this.env, target.address);
    const converter: DataConverter = keys.keyring
      ? dataConverter({ keyring: keys.keyring })
      : { ...dataConverter({ env: {} }), payloadCodecs: [noKeysCodec(this.env)] };
    let connection: Connection;
    try {
      connection = await SafelyClosingConnection.connect(clientConnectionOptions(target));
    } catch (error) {
      throw new CliError(`cannot connect to Temporal at ${target.address}: ${messageOf(error)}`);
    }
    // The identity Temporal records with each signal and update (a fee approval's sender): ./caller-identity.ts.
    const client = new Client({
      connection,
      namespace: target.namespace,
      dataConverter: converter,
      identity: callerIdentity(target),
    });
    this.opened = { client, connection };
    return client;
  }

  /** Prints a value as one JSON document on stdout. */
  json(value: unknown): void {
    this.io.out(JSON.stringify(value, null, 2));
  }

  async close(): Promise<void> {
    if (this.opened) await this.opened.connection.close();
    this.opened = undefined;
  }
}
