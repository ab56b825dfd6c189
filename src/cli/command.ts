/** The shape of a `tcr` command, and command groups (`tcr brand register`, `tcr campaign share`, ...). */
import type { CliContext } from './context.js';
import { UsageError } from './errors.js';

export interface CliCommand {
  /** One line for the command list. */
  summary: string;
  /** Full help text (`--help`). */
  help: string;
  /** Returns the exit code; throws CliError subclasses for failures. */
  run(argv: string[], ctx: CliContext): Promise<number>;
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
