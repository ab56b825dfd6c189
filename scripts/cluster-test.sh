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
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
bash scripts/setup-cluster.sh
[ -f dist/cli/main.js ] || { echo '[cluster-test] dist/ is missing: run npm run build' >&2; exit 1; }
TCR_CLUSTER=1 exec npx vitest run test/cluster/cluster.test.ts "$@"
