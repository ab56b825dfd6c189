/**
 * Command-line parsing for `tcr` commands: node:util parseArgs in strict mode, with every parse
 * failure (unknown flag, missing value, wrong positional count) turned into a UsageError (exit 2),
 * and `-h/--help` on every command.
 */
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { messageOf } from '../common/error-message.js';
import { accountNamePattern } from '../contracts/task-queues.js';
import { connectionOptions } from './context.js';
import { UsageError } from './errors.js';

export type Options = NonNullable<ParseArgsConfig['options']>;

const helpOption = { help: { type: 'boolean', short: 'h' } } as const;
const jsonOption = { json: { type: 'boolean' } } as const;

export interface CommandSpec<O extends Options> {
  /** Full help text (usage line first). */
  help: string;
  options: O;
  /** Names of the positional arguments, in order; a trailing `?` marks one optional. */
  positionals?: string[];
  /** Accept --json (read commands and commands that print a status). Default true. */
  json?: boolean;
  /** Accept --address / --namespace. Default true. */
  connection?: boolean;
}

type AllOptions<O extends Options> = O & typeof helpOption & typeof jsonOption & typeof connectionOptions;
type ValueOf<D> = D extends { type: 'string'; multiple: true }
  ? string[]
  : D extends { type: 'string' }
    ? string
    : D extends { type: 'boolean'; multiple: true }
      ? boolean[]
      : boolean;

export interface Parsed<O extends Options> {
  values: { [K in keyof AllOptions<O>]?: ValueOf<AllOptions<O>[K]> };
  positionals: string[];
}

/** Parses `argv` for one command; returns 'help' when -h/--help was given. */
export function parseCommand<O extends Options>(argv: string[], spec: CommandSpec<O>): Parsed<O> | 'help' {
  const options = {
    ...spec.options,
    ...helpOption,
    ...(spec.json === false ? {} : jsonOption),
    ...(spec.connection === false ? {} : connectionOptions),
  } as AllOptions<O>;
  let parsed: { values: Record<string, unknown>; positionals: string[] };
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(messageOf(error), spec.help);
  }
  if (parsed.values.help) return 'help';
  const names = spec.positionals ?? [];
  const required = names.filter((n) => !n.endsWith('?')).length;
  if (parsed.positionals.length < required)
    throw new UsageError(
      `missing ${names
        .slice(parsed.positionals.length)
        .filter((n) => !n.endsWith('?'))
        .join(', ')}`,
      spec.help,
    );
  if (parsed.positionals.length > names.length)
    throw new UsageError(`unexpected argument '${parsed.positionals[names.length]}'`, spec.help);
  return parsed as unknown as Parsed<O>;
}

/** A flag that must be given. */
export function required<T>(value: T | undefined, flag: string, help: string): T {
  if (value === undefined || value === '') throw new UsageError(`${flag} is required`, help);
  return value;
}

/** `--account`: required, and an account name (src/contracts/task-queues.ts). */
export function accountOf(value: string | undefined, help?: string): string {
  if (value === undefined) throw new UsageError('--account is required', help);
  if (!accountNamePattern.test(value))
    throw new UsageError(`--account: not an account name: '${value}'`, help);
  return value;
}

export function positiveInt(value: string | undefined, flag: string, fallback: number, help: string): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1)
    throw new UsageError(`${flag} must be a positive integer, got '${value}'`, help);
  return n;
}

/** Connection options text shared by every command's help. */
export const connectionHelp = `Connection (flags over environment):
  --address HOST:PORT  Temporal frontend   (env TEMPORAL_ADDRESS, default 127.0.0.1:7233)
  --namespace NAME     Temporal namespace  (env TEMPORAL_NAMESPACE, default default)
  --account NAME       the CSP account a REF is of (env TCR_ACCOUNT; default the local stack's)
  Environment only: TEMPORAL_API_KEY (switches TLS on), TEMPORAL_TLS (true/false), mTLS with
    TEMPORAL_TLS_CLIENT_CERT_PATH + TEMPORAL_TLS_CLIENT_KEY_PATH, TEMPORAL_TLS_SERVER_CA_CERT_PATH
    (each *_PATH also as *_DATA: the PEM itself), TEMPORAL_TLS_SERVER_NAME, TEMPORAL_GRPC_META_<NAME>;
    the earlier names TEMPORAL_TLS_CERT / TEMPORAL_TLS_KEY / TEMPORAL_TLS_CA still work.
    A temporal.toml profile (TEMPORAL_CONFIG_FILE, TEMPORAL_PROFILE) is read first; the variables
    win over it.
    Payload keys: TCR_PAYLOAD_KEYS_FILE (or TCR_PAYLOAD_KEYS), the same as the worker's; unset, the
    local stack's {TCR_DATA_DIR or .data}/payload-keys.json when connecting to that stack; without
    keys nothing is sent unencrypted.
  -h, --help           this text`;
