#!/usr/bin/env bash
# Runs `npm test` N times in a row (default 10) on this checkout and stops at the first failure: the
# check that the suite fails only when the product is wrong, not because of the machine or the order
# tests ran in. Each run's output goes to its own log; a summary line per run (duration, load average
# before and after, result) goes to stdout and to <log dir>/summary.txt.
#   bash scripts/repeat-tests.sh [runs] [log dir]     (log dir default: a new folder under $TMPDIR or /tmp)
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
runs="${1:-10}"
logs="${2:-$(mktemp -d "${TMPDIR:-/tmp}/tcr-repeat-tests.XXXXXX")}"
mkdir -p "$logs"
commit="$(git rev-parse --short HEAD)"
load() { cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo '?'; }
echo "npm test × ${runs} at ${commit}, logs in ${logs}" | tee "$logs/summary.txt"
for ((run = 1; run <= runs; run++)); do
  before="$(load)"
  started="$(date +%s)"
  npm test >"$logs/run-${run}.log" 2>&1
  status=$?
  line="run ${run}/${runs}: $(($(date +%s) - started)) s, load ${before} → $(load), exit ${status}"
  echo "$line" | tee -a "$logs/summary.txt"
  if ((status != 0)); then
    # The failing files and tests, as vitest names them.
    grep -aE 'FAIL|✗|×' "$logs/run-${run}.log" | head -20 | tee -a "$logs/summary.txt"
    echo "stopped at run ${run}: see $logs/run-${run}.log" | tee -a "$logs/summary.txt"
    exit "$status"
  fi
done
echo "${runs} runs in a row passed at ${commit}" | tee -a "$logs/summary.txt"
