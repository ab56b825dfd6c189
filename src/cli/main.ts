#!/usr/bin/env node
/** The `tcr` executable (package.json "bin"): runs one command line and exits with its code. */
import { runCli } from './run.js';

runCli(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    console.error(`tcr: ${err instanceof Error ? err.message : String(err)}`);
    process.exitCode = 1;
  },
);
