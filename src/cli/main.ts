#!/usr/bin/env node
import { runSimulatorCli } from '../simulator/cli.js';
import { runDev } from './dev.js';
import { runIngress } from './ingress.js';

interface Command {
  summary: string;
  run: (argv: string[]) => Promise<number>;
}

const commands: Record<string, Command> = {
  dev: { summary: 'run the local stack (Temporal dev server with its Web UI, ...)', run: runDev },
  ingress: { summary: "receive the registry's signed webhooks and signal workflows", run: runIngress },
  simulator: {
    summary: 'run the local registry simulator (the spec API under /v2, control API)',
    run: runSimulatorCli,
  },
};

function usage(): string {
  const width = Math.max(...Object.keys(commands).map((name) => name.length));
  const lines = Object.entries(commands).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`);
  return `tcr: durable 10DLC registration orchestrator

Usage: tcr <command> [options]

Commands:
${lines.join('\n')}

Run 'tcr <command> --help' for a command's options.`;
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined) {
    console.error(usage());
    return 2;
  }
  if (name === '--help' || name === '-h' || name === 'help') {
    console.log(usage());
    return 0;
  }
  const command = commands[name];
  if (!command) {
    console.error(`tcr: unknown command '${name}'\n\n${usage()}`);
    return 2;
  }
  return command.run(rest);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    console.error(`tcr: ${err instanceof Error ? err.message : String(err)}`);
    // Usage errors (unknown flag, missing value) exit 2 by convention; everything else 1.
    const code = (err as { code?: unknown } | null)?.code;
    process.exitCode = typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS') ? 2 : 1;
  },
);
