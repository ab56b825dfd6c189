#!/usr/bin/env bash
# Quiet tests (issue 37): a successful `npm test` prints at most MAX lines (default 300): the summary
# and what matters. Worker and server logs go to test-results/logs, named in a failing test's output.
# Usage: bash scripts/check-test-output.sh FILE [MAX]   (FILE: the captured output of `npm test`)
set -euo pipefail
file="${1:?usage: check-test-output.sh FILE [MAX]}"
max="${2:-300}"
[ -f "$file" ] || { echo "[quiet-tests] $file is missing: capture npm test's output there first" >&2; exit 1; }
lines=$(wc -l <"$file")
if [ "$lines" -gt "$max" ]; then
  echo "[quiet-tests] npm test printed $lines lines, more than $max: a failure would be hard to find. The most repeated lines:" >&2
  sed 's/\x1b\[[0-9;]*m//g; s/[0-9][0-9]*/N/g' "$file" | cut -c1-100 | sort | uniq -c | sort -rn | head -10 >&2 || true
  exit 1
fi
echo "[quiet-tests] npm test printed $lines lines (at most $max)"
