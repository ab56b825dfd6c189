/**
 * `tcr approvers keygen`: an approver's Ed25519 key pair for signed fee approvals (issue 35, item 3;
 * src/config/fee-approvers.ts). The private key goes to a new file (mode 0600, never replacing one);
 * the public entry is printed for the workers' approvers file (TCR_FEE_APPROVERS_FILE).
 */
import { APPROVER_NAME_PATTERN, generateApproverKey, writeApproverKeyFile } from '../config/fee-approvers.js';
import { FEE_APPROVERS_FILE_VARIABLE } from '../contracts/fee-approval.js';
import { required } from './args.js';
import { commandGroup, defineCommand } from './command.js';
import { CliError, ExitCode, UsageError } from './errors.js';

const keygenHelp = `tcr approvers keygen --name NAME --out FILE: a new fee approver key pair

Writes the private key (PKCS#8 PEM) to FILE, created with mode 0600 (an existing FILE is never
replaced), and prints the approver's public entry for the workers' approvers file
(${FEE_APPROVERS_FILE_VARIABLE}: {"version": 1, "approvers": {"NAME": "<base64 public key>"}}).
The approver then signs with it: tcr campaign approve-fee REF --by NAME --signing-key FILE.
Usage: tcr approvers keygen --name NAME --out FILE [--json]
  --name NAME   the approver's name (approvedBy): letters, digits, . _ @ -
  --out FILE    where the private key is written (mode 0600, a new file)
  -h, --help    this text`;

export const approversKeygenCommand = defineCommand({
  summary: 'create a fee approver key pair',
  help: keygenHelp,
  options: { name: { type: 'string' }, out: { type: 'string' } },
  json: true,
  connection: false,
  async run(parsed, ctx) {
    const name = required(parsed.values.name, '--name', keygenHelp);
    if (!APPROVER_NAME_PATTERN.test(name))
      throw new UsageError(
        `--name: '${name}' is not an approver name (letters, digits, . _ @ -)`,
        keygenHelp,
      );
    const out = required(parsed.values.out, '--out', keygenHelp);
    const { privateKeyPem, publicKey } = generateApproverKey();
    try {
      writeApproverKeyFile(out, privateKeyPem);
    } catch (error) {
      const code = (error as { code?: string }).code ?? 'error';
      throw new CliError(
        `--out ${out}: cannot create the key file (${code}${code === 'EEXIST' ? ': it exists, never replaced' : ''})`,
        ExitCode.validation,
      );
    }
    if (parsed.values.json) ctx.json({ name, publicKey, privateKeyFile: out });
    else
      ctx.io.out(
        `private key written to ${out} (mode 0600)\nadd to ${FEE_APPROVERS_FILE_VARIABLE}'s "approvers":\n  ${JSON.stringify(name)}: ${JSON.stringify(publicKey)}`,
      );
    return 0;
  },
});

export const approversCommands = commandGroup('approvers', 'fee approver keys (signed fee approvals)', {
  keygen: approversKeygenCommand,
});
