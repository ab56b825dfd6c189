#!/usr/bin/env bash
# Builds promtool (PROMTOOL_MODULE@PROMTOOL_VERSION in scripts/toolchain.env) into
# .tools/promtool/<version>/promtool with `go install`, once: the alert rules' test uses it. `npm test`
# runs this before the suite (`npm start` does not need it). The first build takes several minutes
# (Prometheus pulls in its service-discovery SDKs); a warm Go build cache makes it seconds.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=toolchain.env
source "$root/scripts/toolchain.env"
tools="${TCR_TOOLS_DIR:-$root/.tools}"
dir="$tools/promtool/$PROMTOOL_VERSION"
say() { printf '[setup] %s\n' "$*" >&2; }
[ -x "$dir/promtool" ] && exit 0
command -v go >/dev/null 2>&1 || {
  say "error: promtool is not built yet and Go is missing (README.md, Setup)"
  exit 1
}
t0=$(date +%s)
say "building promtool $PROMTOOL_VERSION from its Go module (the first build takes several minutes) ..."
mkdir -p "$dir.partial"
GOBIN="$dir.partial" GOFLAGS="${GOFLAGS:-} -trimpath" CGO_ENABLED=0 \
  go install -ldflags "-s -w" "$PROMTOOL_MODULE@$PROMTOOL_VERSION" || {
  say "error: go install $PROMTOOL_MODULE@$PROMTOOL_VERSION failed (see the output above)"
  exit 1
}
rm -rf "$dir" && mv "$dir.partial" "$dir"
say "promtool built in $(($(date +%s) - t0))s: $dir/promtool"
