/**
 * `tcr payload-keys`: make and rotate the payload key file (src/codec). Prints key ids, never keys.
 *
 * Rotation across several processes is two steps, so no process meets a key it does not have:
 * `add` (every process can decrypt with the new key once restarted), then `promote` (new payloads
 * are encrypted with it). `rotate` does both at once, for a single process such as the local stack.
 */
import { existsSync } from 'node:fs';
import { readKeyFile, writeKeyFile } from '../codec/key-file.js';
import { Keyring, KeyringError, keyIdPattern } from '../codec/keyring.js';
import { required } from './args.js';
import { localStackKeysFile } from './cli-keys.js';
import { type CliCommand, commandGroup, defineCommand } from './command.js';
import type { CliContext } from './context.js';
import { CliError, ExitCode, UsageError } from './errors.js';
import { ingressKeyHelp, publicKeysCommand } from './payload-keys-public.js';

const fileHelp = `  --file PATH   the key file (default: TCR_PAYLOAD_KEYS_FILE)
  --id ID       the new key's id (default: k<yyyymmdd>-<random>)
  -h, --help    this text`;

function keyFilePath(flag: string | undefined, ctx: CliContext, usage: string): string {
  return required(
    flag || ctx.env.TCR_PAYLOAD_KEYS_FILE,
    `--file (or TCR_PAYLOAD_KEYS_FILE)`,
    `${usage}\n\nThe local stack's key file: ${localStackKeysFile(ctx.env)}`,
  );
}

function checkedId(id: string | undefined, usage: string): string | undefined {
  if (id !== undefined && !keyIdPattern.test(id))
    throw new UsageError(`--id: expected letters, digits, . _ - (up to 64), got '${id}'`, usage);
  return id;
}

function describe(ring: Keyring): string {
  const ingress = ring
    .sealingIds()
    .map((id) => `${id}  (ingress key${id === ring.sealingCurrentId ? ', current' : ''})`);
  return [...ring.ids().map((id) => `${id}${id === ring.currentId ? '  (current)' : ''}`), ...ingress].join(
    '\n',
  );
}

function keysCommand(
  summary: string,
  usage: string,
  apply: (file: string, id: string | undefined, ctx: CliContext) => Keyring,
): CliCommand {
  return defineCommand({
    summary,
    help: usage,
    options: { file: { type: 'string' }, id: { type: 'string' } },
    json: true,
    connection: false,
    async run(parsed, ctx) {
      const file = keyFilePath(parsed.values.file, ctx, usage);
      let ring: Keyring;
      try {
        ring = apply(file, checkedId(parsed.values.id, usage), ctx);
      } catch (error) {
        if (error instanceof KeyringError) throw new CliError(error.message, ExitCode.validation);
        throw error;
      }
      if (parsed.values.json) ctx.json(ring.toJSON());
      else ctx.io.out(describe(ring));
      return 0;
    },
  });
}

const initHelp = `tcr payload-keys init: create a key file with one new key and one ingress key (mode 0600); refuses to overwrite one

The ingress gets only the public half: tcr payload-keys public --out FILE.

Usage: tcr payload-keys init [--file PATH] [--id ID] [--json]
${fileHelp}`;

const addHelp = `tcr payload-keys add: add a new key for decryption only (step 1 of a rotation)

Restart every worker, ingress, CLI host and codec server with the new file; then promote the key.
Usage: tcr payload-keys add [--file PATH] [--id ID] [--json]
${fileHelp}`;

const promoteHelp = `tcr payload-keys promote: make a key the current one, that new payloads are encrypted with (step 2)

Usage: tcr payload-keys promote --id ID [--file PATH] [--json]
${fileHelp}`;

const rotateHelp = `tcr payload-keys rotate: add a new key and make it current at once (one process, e.g. the local stack)

Older keys stay in the file: payloads written under them keep decoding.
Usage: tcr payload-keys rotate [--file PATH] [--id ID] [--json]
${fileHelp}`;

const listHelp = `tcr payload-keys list: the key ids in the file and which one is current (never the keys)

Usage: tcr payload-keys list [--file PATH] [--json]
${fileHelp}`;

export const payloadKeysCommands = commandGroup(
  'payload-keys',
  'create, list and rotate the payload encryption keys',
  {
    init: keysCommand('create a key file with one new key', initHelp, (file, id) => {
      if (existsSync(file))
        throw new KeyringError(`${file} exists; use 'tcr payload-keys rotate' to add a key`);
      const ring = Keyring.generate(id).withNewSealingKey();
      writeKeyFile(file, ring);
      return ring;
    }),
    add: keysCommand('add a new key for decryption only (rotation step 1)', addHelp, (file, id) => {
      const ring = readKeyFile(file).withNewKey(id);
      writeKeyFile(file, ring);
      return ring;
    }),
    promote: keysCommand('make a key current (rotation step 2)', promoteHelp, (file, id) => {
      if (id === undefined) throw new UsageError('--id is required', promoteHelp);
      const ring = readKeyFile(file).withCurrent(id);
      writeKeyFile(file, ring);
      return ring;
    }),
    rotate: keysCommand('add a new key and make it current', rotateHelp, (file, id) => {
      const ring = readKeyFile(file).withNewKey(id, true);
      writeKeyFile(file, ring);
      return ring;
    }),
    list: keysCommand('list the key ids', listHelp, (file) => readKeyFile(file)),
    'ingress-key': keysCommand(
      'add a new ingress key pair (its public half seals)',
      ingressKeyHelp,
      (file, id) => {
        const ring = readKeyFile(file).withNewSealingKey(id);
        writeKeyFile(file, ring);
        return ring;
      },
    ),
    public: publicKeysCommand,
  },
);
