#!/usr/bin/env bash
# The Temporal CLI for the tests' dev servers (test/support/temporal-env.ts): the same binary, with its
# output written to the tests' log folder instead of the test run's: the banner it prints on stdout at
# every start (CLI version, server and metrics addresses) and its log lines (stderr). Its warnings
# ("Slow gRPC call" while a test's load peaks, "context canceled" as a test's server stops) stay in the
# file only; every other line (errors, and anything that is not a log line) also reaches stderr.
# `exec` keeps the CLI the process the SDK started and stops; the filter ends when the CLI does.
mkdir -p "$TCR_TEST_LOG_DIR"
log="$TCR_TEST_LOG_DIR/temporal-dev-server.log"
exec "$TCR_TEMPORAL_CLI" "$@" >>"$log" 2> >(tee -a "$log" | grep --line-buffered -v '^time=[^ ]* level=WARN ' >&2)
