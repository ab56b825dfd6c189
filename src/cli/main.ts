#!/usr/bin/env node
import { runDev } from './dev.js';

const usage = `tcr: 10DLC registration orchestrator

Usage: tcr <command> [options]

Commands:
  dev        run the local stack: Temporal dev server with its Web UI (data kept in .data/)

Run 'tcr <command> --help' for a command's options.`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'dev':
      return runDev(rest);
    case undefined:
    case '--help':
    case '-h':
    case 'help':
      console.log(usage);
      return command === undefined ? 2 : 0;
    default:
      console.error(`tcr: unknown command '${command}'\n\n${usage}`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    console.error(`tcr: ${err instanceof Error ? err.message : String(err)}`);
    process.exitCode = 1;
  },
);
