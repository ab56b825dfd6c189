#!/bin/sh
# The Java time-skipping test server for the tests (test/support/temporal-env.ts): the launcher built by
# setup, with its output written to the tests' log folder instead of the test run's output. The server
# logs gRPC handler exceptions at SEVERE on stderr (a stack trace of ~15 lines each) for calls it
# answers with an error the SDK retries; a failing test names this folder.
mkdir -p "$TCR_TEST_LOG_DIR"
exec "$TCR_TEST_SERVER_LAUNCH" "$@" >>"$TCR_TEST_LOG_DIR/temporal-test-server.log" 2>&1
