/**
 * The `tcr` command table and dispatcher. `runCli(argv, deps)` runs one command line in-process and
 * returns its exit code (0 ok, 1 failure, 2 usage, 3 invalid input, 4 not found); main.ts is the
 * executable around it. Tests call runCli with their own output sink and Temporal client.
 */

import { messageOf } from '../common/error-message.js';
import { runSimulatorCli, SIMULATOR_USAGE } from '../simulator/cli.js';
import { accountsCommands } from './accounts.js';
import { approversCommands } from './approvers.js';
import { brandCommands } from './brand.js';
import { campaignCommands } from './campaign.js';
import { codecServerCommand } from './codec-server.js';
import { type CliCommand, commandList } from './command.js';
import { CliContext, type CliDeps } from './context.js';
import { devHelp, runDev } from './dev.js';
import { CliError, ExitCode, InputValidationError, UsageError } from './errors.js';
import { importCommand, sweepCommand } from './estate.js';
import { eventsCommands } from './events.js';
import { ingressHelp, runIngress } from './ingress.js';
import { listCommand } from './list.js';
import { payloadKeysCommands } from './payload-keys.js';
import { statusCommand } from './status.js';
import { vetCommands } from './vet.js';
import { webhooksCommands } from './webhooks.js';
import { workerCommand } from './worker.js';

/** Commands that print with console themselves (process-level: they run until Ctrl-C). */
function processCommand(summary: string, help: string, run: (argv: string[]) => Promise<number>): CliCommand {
  return { summary, help, run: (argv) => run(argv) };
}

export const commands: Record<string, CliCommand> = {
  brand: brandCommands,
  campaign: campaignCommands,
  vet: vetCommands,
  status: statusCommand,
  list: listCommand,
  import: importCommand,
  sweep: sweepCommand,
  events: eventsCommands,
  accounts: accountsCommands,
  webhooks: webhooksCommands,
  worker: workerCommand,
  'codec-server': codecServerCommand,
  'payload-keys': payloadKeysCommands,
  approvers: approversCommands,
  dev: processCommand('run the whole local stack (what npm start runs)', devHelp, runDev),
  ingress: processCommand(
    "receive the registry's signed webhooks and signal workflows",
    ingressHelp,
    runIngress,
  ),
  simulator: processCommand(
    'run the local registry simulator (the spec API under /v2, control API)',
    SIMULATOR_USAGE,
    runSimulatorCli,
  ),
};

export function usage(): string {
  return `tcr: durable 10DLC registration orchestrator

Usage: tcr <command> [options]

Commands:
${commandList(commands)}

Exit codes: 0 ok, 1 failure, 2 usage error, 3 invalid input file or request (nothing started), 4 not found.
Run 'tcr <command> --help' for a command's options.`;
}

function isParseArgsError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS');
}

/** Runs one `tcr` command line; never throws: errors are printed to `io.err` and become exit codes. */
export async function runCli(argv: string[], deps: CliDeps = {}): Promise<number> {
  const ctx = new CliContext(deps);
  const [name, ...rest] = argv;
  try {
    if (name === undefined) {
      ctx.io.err(usage());
      return ExitCode.usage;
    }
    if (name === '--help' || name === '-h' || name === 'help') {
      ctx.io.out(usage());
      return ExitCode.ok;
    }
    const command = Object.hasOwn(commands, name) ? commands[name] : undefined;
    if (!command) throw new UsageError(`unknown command '${name}'`, usage());
    return await command.run(rest, ctx);
  } catch (error) {
    if (error instanceof UsageError) {
      ctx.io.err(`tcr: ${error.message}${error.help ? `\n\n${error.help}` : ''}`);
      return ExitCode.usage;
    }
    if (error instanceof InputValidationError) {
      ctx.io.err(error.message);
      return ExitCode.validation;
    }
    if (error instanceof CliError) {
      ctx.io.err(`tcr: ${error.message}`);
      return error.exitCode;
    }
    ctx.io.err(`tcr: ${messageOf(error)}`);
    return isParseArgsError(error) ? ExitCode.usage : ExitCode.failure;
  } finally {
    await ctx.close().catch(() => undefined);
  }
}
