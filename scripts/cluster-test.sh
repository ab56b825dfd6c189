#!/usr/bin/env bash
# The production-shaped cluster test (issue 22): PostgreSQL, the Temporal server with SQL persistence
# and visibility, two workers, two ingress replicas behind nginx and the simulator, all on loopback in
# a temporary folder that is removed afterwards; the examples plus 20 brand and 20 campaign orders
# run through it while a worker is SIGKILLed, an ingress replica stopped, the Temporal server and
# PostgreSQL restarted (test/cluster/cluster.test.ts; docs/operations.md, "Cluster topology as tested").
#
#   bash scripts/cluster-test.sh            # builds what is missing first (scripts/setup-cluster.sh)
#   TCR_CLUSTER_ORDERS=5 bash scripts/cluster-test.sh
#
# Needs `npm run build` (the workers, ingress replicas and simulator run from dist/) and the
# Temporal CLI of scripts/setup.sh (health checks, namespace and search-attribute registration).
# The test stops everything it started; should it be interrupted, this script kills its own process
# group and removes the temporary folder.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
bash scripts/setup-cluster.sh
[ -f dist/cli/main.js ] || {
  echo '[cluster-test] dist/ is missing: run npm run build' >&2
  exit 1
}
work="$(mktemp -d "${TMPDIR:-/tmp}/tcr-cluster-run.XXXXXX")"
chmod 711 "$work" # PostgreSQL runs as its own user under it
pid=""
cleanup() {
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    kill -TERM -- "-$pid" 2>/dev/null || true
    sleep 2
    kill -KILL -- "-$pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
# Its own process group (setsid), so that an interrupted run leaves no server behind.
TMPDIR="$work" TCR_CLUSTER=1 setsid npx vitest run test/cluster/cluster.test.ts "$@" &
pid=$!
wait "$pid"
