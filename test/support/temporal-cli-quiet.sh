#!/bin/sh
# The Temporal CLI for the tests' dev servers (test/support/temporal-env.ts): the same binary, with the
# banner it prints on stdout at every start (CLI version, server and metrics addresses) written to the
# tests' log folder instead of the test run's output. Its warnings and errors (stderr) stay visible.
mkdir -p "$TCR_TEST_LOG_DIR"
exec "$TCR_TEMPORAL_CLI" "$@" >>"$TCR_TEST_LOG_DIR/temporal-dev-server.log"
