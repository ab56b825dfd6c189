#!/usr/bin/env bash
# check-clean-tree.sh [WHAT]: fails, listing the paths, when `git status --porcelain` is not empty: a
# tracked file was changed, or a file git does not ignore was written. A clone must stay clean through
# the set-up, `npm start` and `npm test`; .ci/run calls this after them, WHAT names the step.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
what="${1:-the run}"
dirty="$(git status --porcelain --untracked-files=all)"
if [ -z "$dirty" ]; then
  echo "[clean-tree] git status --porcelain is empty after $what"
  exit 0
fi
{
  echo "[clean-tree] error: $what left the work tree dirty (git status --porcelain below). Commit what"
  echo "[clean-tree] belongs to the project; git-ignore what a run writes (.gitignore)."
  printf '%s\n' "$dirty" | head -n 60 | sed 's/^/  /'
  echo "  ($(printf '%s\n' "$dirty" | wc -l) paths)"
  git --no-pager diff --no-color --stat
  git --no-pager diff --no-color | head -n 80
} >&2
exit 1
