/**
 * `tcr payload-keys public` and the ingress key's help (issue 35, item 3): the webhook ingress holds
 * only the public halves of the key file's ingress keys, in a file of its own (src/codec/public-keys.ts);
 * it seals what it writes and can decrypt no history.
 */
import { readKeyFile } from '../codec/key-file.js';
import { KeyringError } from '../codec/keyring.js';
import { PUBLIC_KEYS_FILE_VARIABLE, PublicKeys, writePublicKeyFile } from '../codec/public-keys.js';
import { required } from './args.js';
import { defineCommand } from './command.js';
import { CliError, ExitCode } from './errors.js';

export const ingressKeyHelp = `tcr payload-keys ingress-key: add a new ingress key pair to the key file (an ingress key rotation)

The new key becomes the ingress's current one in the public key file written next. Restart the workers,
CLI hosts and codec server with the key file first (they open what the ingress seals), then write the
public file (tcr payload-keys public --out FILE) and restart the ingress. Older ingress keys stay.
Usage: tcr payload-keys ingress-key [--file PATH] [--id ID] [--json]
  --file PATH   the key file (default: TCR_PAYLOAD_KEYS_FILE)
  --id ID       the new key's id (default: s<yyyymmdd>-<random>)
  -h, --help    this text`;

const publicHelp = `tcr payload-keys public: write the ingress's public key file (mode 0600) from the key file

The ingress is given only this file (${PUBLIC_KEYS_FILE_VARIABLE}): it encrypts with the current
ingress key's public half and cannot decrypt any history. The file lists every ingress key's public
half; the newest (the key file's current ingress key) encrypts.
Usage: tcr payload-keys public --out PATH [--file PATH] [--json]
  --out PATH    the public key file to write (replaced in one rename)
  --file PATH   the key file (default: TCR_PAYLOAD_KEYS_FILE)
  -h, --help    this text`;

export const publicKeysCommand = defineCommand({
  summary: "write the ingress's public key file",
  help: publicHelp,
  options: { file: { type: 'string' }, out: { type: 'string' } },
  json: true,
  connection: false,
  async run(parsed, ctx) {
    const file = required(
      parsed.values.file || ctx.env.TCR_PAYLOAD_KEYS_FILE,
      '--file (or TCR_PAYLOAD_KEYS_FILE)',
      publicHelp,
    );
    const out = required(parsed.values.out, '--out', publicHelp);
    let keys: PublicKeys;
    try {
      keys = PublicKeys.of(readKeyFile(file));
      writePublicKeyFile(out, keys);
    } catch (error) {
      if (error instanceof KeyringError) throw new CliError(error.message, ExitCode.validation);
      throw error;
    }
    if (parsed.values.json) ctx.json(keys.toJSON());
    else
      ctx.io.out(
        keys
          .ids()
          .map((id) => `${id}${id === keys.currentId ? '  (current)' : ''}`)
          .join('\n'),
      );
    return 0;
  },
});
