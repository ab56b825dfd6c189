/** The shape of a `tcr` command, and command groups (`tcr brand register`, `tcr campaign share`, ...). */
import { type CommandSpec, type Options, type Parsed, parseCommand } from './args.js';
import type { CliContext } from './context.js';
import { UsageError } from './errors.js';
import { help } from './output.js';

export interface CliCommand {
  /** One line for the command list. */
  summary: string;
  /** Full help text (`--help`). */
  help: string;
  /** Returns the exit code; throws CliError subclasses for failures. */
  run(argv: string[], ctx: CliContext): Promise<number>;
}

export interface CommandDefinition<O extends Options> extends CommandSpec<O> {
  summary: string;
  /** Runs the parsed command line (`-h/--help` was not given); returns the exit code. */
  run(parsed: Parsed<O>, ctx: CliContext): Promise<number>;
}

/** A command whose line is parsed by `spec` (a parse failure is a UsageError, exit 2); `--help` prints its help. */
export function defineCommand<O extends Options>(definition: CommandDefinition<O>): CliCommand {
  return {
    summary: definition.summary,
    help: definition.help,
    async run(argv, ctx) {
      const parsed = parseCommand(argv, definition);
      if (parsed === 'help') return help(ctx, definition.help);
      return definition.run(parsed, ctx);
    },
  };
}

export function commandList(commands: Record<string, { summary: string }>, indent = '  '): string {
  const width = Math.max(...Object.keys(commands).map((n) => n.length));
  return Object.entries(commands)
    .map(([name, c]) => `${indent}${name.padEnd(width)}  ${c.summary}`)
    .join('\n');
}

export function commandGroup(
  name: string,
  summary: string,
  subcommands: Record<string, CliCommand>,
): CliCommand {
  const help = `tcr ${name}: ${summary}

Usage: tcr ${name} <command> [options]

Commands:
${commandList(subcommands)}

Run 'tcr ${name} <command> --help' for a command's options.`;
  return {
    summary,
    help,
    async run(argv, ctx) {
      const [sub, ...rest] = argv;
      if (sub === '--help' || sub === '-h' || sub === 'help') {
        ctx.io.out(help);
        return 0;
      }
      if (sub === undefined) throw new UsageError(`tcr ${name}: a command is required`, help);
      const command = Object.hasOwn(subcommands, sub) ? subcommands[sub] : undefined;
      if (!command) throw new UsageError(`tcr ${name}: unknown command '${sub}'`, help);
      return command.run(rest, ctx);
    },
  };
}
