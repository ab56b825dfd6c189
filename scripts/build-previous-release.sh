#!/usr/bin/env bash
# build-previous-release.sh: builds the release named in scripts/previous-release aside, once, in
# .tools/releases/{commit} (git archive of the commit; its node_modules: a link to this tree's when
# package-lock.json is the same, else `npm ci` from the npm cache; `npm run build`). Prints the
# release's folder on stdout. Used by scripts/upgrade-drill.sh.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
say() { printf '[upgrade-drill] %s\n' "$*" >&2; }
die() {
  say "error: $*"
  exit 1
}
read -r tag commit < <(grep -v '^#' scripts/previous-release | grep -v '^[[:space:]]*$' | head -n 1)
[[ "$commit" =~ ^[0-9a-f]{40}$ ]] || die "scripts/previous-release: the second field must be a 40-hex commit id, got '$commit'"
git cat-file -e "$commit^{commit}" 2>/dev/null ||
  die "scripts/previous-release names $commit, which this clone does not have (a shallow clone? git fetch --unshallow)"
if tagged="$(git rev-parse -q --verify "refs/tags/$tag^{commit}" 2>/dev/null)"; then
  [ "$tagged" = "$commit" ] || die "tag $tag points at $tagged, scripts/previous-release says $commit"
fi
tools="${TCR_TOOLS_DIR:-$root/.tools}"
dir="$tools/releases/$commit"
if [ -f "$dir/.built" ]; then
  say "previous release $tag ($commit) already built in $dir"
  echo "$dir"
  exit 0
fi
t0=$(date +%s)
say "building the previous release $tag ($commit) in $dir ..."
rm -rf "$dir"
mkdir -p "$dir"
git archive --format=tar "$commit" | tar -x -C "$dir"
if cmp -s <(git show "$commit:package-lock.json") package-lock.json && [ -d node_modules ]; then
  ln -s "$root/node_modules" "$dir/node_modules"
else
  (cd "$dir" && npm ci --prefer-offline --no-audit --no-fund --loglevel=error >&2) || die "npm ci of the previous release failed"
fi
(cd "$dir" && npx tsc -p tsconfig.build.json >&2) || die "the previous release's build failed"
touch "$dir/.built"
say "previous release built in $(($(date +%s) - t0))s"
echo "$dir"
