import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { secretFileProblem } from '../config/accounts.js';
import { DEFAULT_ACCOUNT, type SimulatorOptions, startSimulator } from './index.js';

export const SIMULATOR_USAGE = `tcr simulator: run the local registry (the spec's /v2 API, control API under /control)

Options:
  --host <host>               bind address (default 127.0.0.1)
  --port <port>               port (default 8480; 0 = ephemeral)
  --state-file <path>         keep state in this JSON file across restarts
  --time-scale <n>            simulated seconds per real second (default 1)
  --account <csp:key:secret>  an account (repeatable; default CSPLOCAL:local-api-key:local-api-secret)
  --accounts-file <path>      JSON array of {cspId, apiKey, apiSecret}
  --no-rate-limits            turn rate limiting off
  --gets-per-second <n>       GET limit per account (default 20)
  --writes-per-10s <n>        PUT/POST/DELETE limit per account per 10 s (default 20)
  --max-records-per-page <n>  the most records a list page holds, whatever recordsPerPage asks
                              (default: no cap; the page size is then min(asked, n), at most 500 without it)
  --strict                    answer only what the registry's spec documents: no extra fields,
                              undocumented filters ignored (docs/simulator.md)
  --control-token-file <path> the control API then requires Authorization: Bearer <the file's token>
                              (file mode 0600, at least 32 bytes; env TCR_SIMULATOR_CONTROL_TOKEN_FILE).
                              Without a token the control API answers loopback Host names only.
  -h, --help                  this text`;

const AccountsSchema = z
  .array(z.object({ cspId: z.string().min(1), apiKey: z.string().min(1), apiSecret: z.string().min(1) }))
  .min(1);

/** The shortest control token accepted. */
export const MIN_CONTROL_TOKEN_BYTES = 32;

/** Reads the control token file: owner-only, one line, at least 32 bytes. Messages never hold the token. */
export function readControlTokenFile(path: string, variable: string): string {
  const problem = secretFileProblem(variable, path);
  if (problem) throw new Error(problem);
  const token = readFileSync(path, 'utf8').trim();
  if (/\s/.test(token)) throw new Error(`${variable} (${path}): the token must be one line without spaces`);
  if (Buffer.byteLength(token, 'utf8') < MIN_CONTROL_TOKEN_BYTES)
    throw new Error(`${variable} (${path}): the token is shorter than ${MIN_CONTROL_TOKEN_BYTES} bytes`);
  return token;
}

const isLoopbackHost = (host: string) => /^(127\.\d+\.\d+\.\d+|::1|\[::1\]|localhost)$/i.test(host);

export function parseSimulatorArgs(
  argv: string[],
  env: Record<string, string | undefined> = process.env,
): SimulatorOptions | 'help' {
  const { values } = parseArgs({
    args: argv,
    options: {
      host: { type: 'string' },
      port: { type: 'string' },
      'state-file': { type: 'string' },
      'time-scale': { type: 'string' },
      account: { type: 'string', multiple: true },
      'accounts-file': { type: 'string' },
      'no-rate-limits': { type: 'boolean' },
      'gets-per-second': { type: 'string' },
      'writes-per-10s': { type: 'string' },
      'control-token-file': { type: 'string' },
      'max-records-per-page': { type: 'string' },
      strict: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help) return 'help';
  const number = (name: string, value: string | undefined, fallback: number) => {
    if (value === undefined) return fallback;
    const n = Number(value);
    if (!Number.isFinite(n) || n < 0) throw new Error(`--${name} must be a non-negative number`);
    return n;
  };
  let accounts = [DEFAULT_ACCOUNT];
  if (values['accounts-file']) {
    accounts = AccountsSchema.parse(JSON.parse(readFileSync(values['accounts-file'], 'utf8')));
  }
  if (values.account?.length) {
    accounts = values.account.map((spec) => {
      const [cspId, apiKey, ...secret] = spec.split(':');
      if (!cspId || !apiKey || secret.length === 0)
        throw new Error(`--account must be cspId:apiKey:apiSecret`);
      return { cspId, apiKey, apiSecret: secret.join(':') };
    });
  }
  const tokenFile = values['control-token-file'] ?? env.TCR_SIMULATOR_CONTROL_TOKEN_FILE;
  const tokenVariable = values['control-token-file']
    ? '--control-token-file'
    : 'TCR_SIMULATOR_CONTROL_TOKEN_FILE';
  const cap = values['max-records-per-page'];
  if (cap !== undefined && !/^[1-9]\d*$/.test(cap))
    throw new Error(`--max-records-per-page must be a positive integer, got '${cap}'`);
  return {
    ...(cap !== undefined ? { maxRecordsPerPage: Number(cap) } : {}),
    ...(values.strict ? { strict: true } : {}),
    ...(tokenFile ? { controlToken: readControlTokenFile(tokenFile, tokenVariable) } : {}),
    host: values.host ?? '127.0.0.1',
    port: number('port', values.port, 8480),
    stateFile: values['state-file'],
    timeScale: number('time-scale', values['time-scale'], 1),
    accounts,
    rateLimits: values['no-rate-limits']
      ? false
      : {
          getsPerSecond: number('gets-per-second', values['gets-per-second'], 20),
          writesPer10Seconds: number('writes-per-10s', values['writes-per-10s'], 20),
        },
  };
}

/** The warning printed when the control API is reachable beyond loopback without a token. */
export function controlApiWarning(options: SimulatorOptions): string | undefined {
  if (isLoopbackHost(options.host ?? '127.0.0.1') || options.controlToken !== undefined) return undefined;
  return `simulator: WARNING listening on ${options.host} without a control token: any client that reaches this address can drive the control API (its Host check stops browsers, not other clients); pass --control-token-file`;
}

/** Runs until SIGINT/SIGTERM. Returns the process exit code. */
export async function runSimulatorCli(argv: string[]): Promise<number> {
  const options = parseSimulatorArgs(argv);
  if (options === 'help') {
    console.log(SIMULATOR_USAGE);
    return 0;
  }
  const warning = controlApiWarning(options);
  if (warning) console.error(warning);
  const started = performance.now();
  const sim = await startSimulator(options);
  const mode = [
    ...(options.strict ? ['strict'] : []),
    ...(options.maxRecordsPerPage ? [`pages of at most ${options.maxRecordsPerPage}`] : []),
  ];
  console.log(
    `registry simulator listening on ${sim.apiBaseUrl}${mode.length > 0 ? ` (${mode.join(', ')})` : ''} (control API ${sim.url}/control, accounts ${options.accounts!.map((a) => a.cspId).join(', ')}, started in ${(performance.now() - started).toFixed(0)} ms)`,
  );
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await sim.close();
  return 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runSimulatorCli(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      console.error(`simulator: ${err instanceof Error ? err.message : String(err)}`);
      process.exitCode = 1;
    },
  );
}
