#!/usr/bin/env bash
# The upgrade drill (issue 36, item 3; docs/workflows.md, "Upgrade drill"): workers of the previous
# release (scripts/previous-release, built aside once in .tools/releases/{commit} by
# scripts/build-previous-release.sh) open brand, vet and campaign workflows in every kind of wait on a
# Temporal dev server and the registry simulator; they are stopped, this tree's workers take over, and
# every workflow must reach its end state with none failed and no non-determinism error in any worker
# log (scripts/upgrade-drill.mjs). The last line of its output says what it proved.
#
#   bash scripts/upgrade-drill.sh                        # about 80 s on idle cores once the old release is built
#   UPGRADE_DRILL_BREAK=1 bash scripts/upgrade-drill.sh  # this tree's brand workflow gets an unpatched
#                                                        # timer first: the drill must FAIL (exit 1)
#
# Needs `npm run build` (this tree's dist/) and the Temporal CLI of scripts/setup.sh. Logs go to
# test-results/logs/upgrade-drill/{start time}/ (git-ignored), the release to .tools/ (git-ignored).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
[ -f dist/cli/main.js ] || {
  echo '[upgrade-drill] dist/ is missing: run npm run build' >&2
  exit 1
}
release_dir="$(bash scripts/build-previous-release.sh)"
release="$(grep -v '^#' scripts/previous-release | grep -v '^[[:space:]]*$' | head -n 1)"
pid=""
cleanup() {
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    kill -TERM -- "-$pid" 2>/dev/null || true
    sleep 2
    kill -KILL -- "-$pid" 2>/dev/null || true
  fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
# Its own process group (setsid): an interrupted run leaves no server or worker behind.
setsid node scripts/upgrade-drill.mjs "$release_dir" "$release" &
pid=$!
wait "$pid"
