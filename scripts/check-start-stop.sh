#!/usr/bin/env bash
# check-start-stop.sh: `npm start` as a person runs it, then Ctrl-C. Waits until the local stack says
# it is up, sends SIGINT to npm's process group (what a terminal does on Ctrl-C), and fails, printing
# npm's output, when the stack is not up within TCR_START_TIMEOUT seconds (default 300: setup and the
# build run first), npm has not exited TCR_STOP_TIMEOUT seconds after SIGINT (default 240), or exits
# with an error, or any process of the stack is left running. Every port is 0 (any free port); the
# state goes to the default data folder.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
start_timeout="${TCR_START_TIMEOUT:-300}"
stop_timeout="${TCR_STOP_TIMEOUT:-240}"
data="${TCR_DATA_DIR:-$PWD/.data}"
log="$(mktemp)"
say() { printf '[start-stop] %s\n' "$*" >&2; }
die() {
  say "error: $*"
  say "output of npm start:"
  sed 's/^/  /' "$log" >&2
  exit 1
}
# The stack's processes: npm's process group, and the Temporal dev server, which the stack starts in a
# group of its own (src/stack/temporal-dev-server.ts) and which is known by its database file.
stack_processes() {
  pgrep -a -g "$pid" || true
  pgrep -a -f -- "--db-filename $data/" || true
}
# On failure, kill what is left of it, by process id.
kill_stack() {
  stack_processes | while read -r p _; do kill -KILL "$p" 2>/dev/null || true; done
}

# Job control: a background job gets a process group of its own, whose id is its pid.
set -m
TCR_QUIET=1 TCR_TEMPORAL_PORT=0 TCR_UI_PORT=0 TCR_SIMULATOR_PORT=0 TCR_INGRESS_PORT=0 \
  TCR_WORKER_METRICS_PORT=0 TCR_CODEC_PORT=0 npm start </dev/null >"$log" 2>&1 &
pid=$!
set +m
trap kill_stack EXIT

t0=$SECONDS
until grep -q '^Ctrl-C stops everything' "$log"; do
  kill -0 "$pid" 2>/dev/null || die "npm start exited before the stack was up"
  [ $((SECONDS - t0)) -lt "$start_timeout" ] || die "the stack was not up within ${start_timeout}s"
  sleep 1
done
say "the stack was up after $((SECONDS - t0))s; Ctrl-C (SIGINT to npm's process group)"
t1=$SECONDS
kill -INT -- "-$pid"
while kill -0 "$pid" 2>/dev/null; do
  [ $((SECONDS - t1)) -lt "$stop_timeout" ] || die "npm start had not exited ${stop_timeout}s after SIGINT"
  sleep 1
done
rc=0
wait "$pid" || rc=$?
# 130 = 128 + SIGINT: how npm reports that its script was interrupted. The stack itself says when
# stopping failed (src/cli/shutdown.ts).
[ "$rc" -eq 0 ] || [ "$rc" -eq 130 ] || die "npm start exited with status $rc after SIGINT"
! grep -q 'error while stopping' "$log" || die "the stack did not stop cleanly"
left="$(stack_processes)"
[ -z "$left" ] || die "processes of the stack were left running after npm exited: $left"
trap - EXIT
stopped=$((SECONDS - t1))
say "npm start exited with status $rc ${stopped}s after SIGINT; nothing of the stack is left running"
# Slow but not failed: on a first start, stopping waits for the example submissions and the progress
# display's queries in flight.
[ "$stopped" -le 15 ] || say "warning: a person pressing Ctrl-C waited ${stopped}s for the stack to stop"
rm -f "$log"
