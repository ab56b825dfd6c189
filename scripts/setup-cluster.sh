#!/usr/bin/env bash
# What the production-shaped cluster test (scripts/cluster-test.sh) needs beyond `npm test`'s setup,
# built or installed once:
#
#   .tools/temporal-server/<version>/temporal-server   Temporal server (all four services in one process)
#   .tools/temporal-server/<version>/temporal-sql-tool its SQL schema tool (create-database, setup-schema, update-schema)
#   PostgreSQL and nginx                                Debian's packages (apt-get), only when missing
#
# The server is built from its Go module at the version the Temporal CLI embeds (scripts/toolchain.env).
# Idempotent: a second run finds everything and does nothing. Kept apart from scripts/setup.sh so
# `npm test`'s setup does not get slower. Builds run at the lowest priority (nice 19).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=toolchain.env
source "$root/scripts/toolchain.env"
tools="${TCR_TOOLS_DIR:-$root/.tools}"
mkdir -p "$tools"

say() { printf '[setup-cluster] %s\n' "$*" >&2; }
die() {
  printf '[setup-cluster] error: %s\n' "$*" >&2
  exit 1
}
elapsed() { echo "$(($(date +%s) - $1))s"; }

# --- PostgreSQL and nginx (Debian packages) ----------------------------------------------------
pg_bin() {
  local d
  for d in /usr/lib/postgresql/*/bin; do [ -x "$d/initdb" ] && [ -x "$d/postgres" ] && echo "$d"; done | sort -V | tail -1
}
missing=()
[ -n "$(pg_bin)" ] || missing+=(postgresql)
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || missing+=(nginx)
if [ "${#missing[@]}" -gt 0 ]; then
  command -v apt-get >/dev/null 2>&1 ||
    die "${missing[*]} missing and no apt-get here: install them with the system's package manager"
  [ "$(id -u)" = 0 ] || die "${missing[*]} missing: run as root, or: sudo apt-get install -y --no-install-recommends ${missing[*]}"
  t0=$(date +%s)
  say "installing ${missing[*]} from Debian's packages ..."
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}" >"$tools/apt.log" 2>&1 || {
    cat "$tools/apt.log" >&2
    die "apt-get install ${missing[*]} failed (see above)"
  }
  say "${missing[*]} installed in $(elapsed "$t0")"
fi
# The packages' own services are not used (the test starts its own servers in a temporary folder);
# a fresh Debian install may have started them, which does no harm to the test's own ports.

# --- Temporal server and SQL tool --------------------------------------------------------------
srv_dir="$tools/temporal-server/$TEMPORAL_SERVER_VERSION"
if [ -x "$srv_dir/temporal-server" ] && [ -x "$srv_dir/temporal-sql-tool" ]; then
  : # built before
else
  command -v go >/dev/null 2>&1 ||
    die "the Temporal server is not built yet and Go is missing. Install Go 1.24 or newer (Debian: apt-get install golang-go, or https://go.dev/dl)."
  t0=$(date +%s)
  say "building the Temporal server and SQL tool $TEMPORAL_SERVER_VERSION from their Go module (the first build takes several minutes) ..."
  partial="$srv_dir.partial"
  rm -rf "$partial" && mkdir -p "$partial"
  GOBIN="$partial" GOFLAGS="${GOFLAGS:-} -trimpath" CGO_ENABLED=0 \
    nice -n 19 go install -ldflags "-s -w" \
    "$TEMPORAL_SERVER_MODULE/cmd/server@$TEMPORAL_SERVER_VERSION" \
    "$TEMPORAL_SERVER_MODULE/cmd/tools/sql@$TEMPORAL_SERVER_VERSION" ||
    die "go install $TEMPORAL_SERVER_MODULE@$TEMPORAL_SERVER_VERSION failed (see the output above)"
  mv "$partial/server" "$partial/temporal-server"
  mv "$partial/sql" "$partial/temporal-sql-tool"
  rm -rf "$srv_dir" && mv "$partial" "$srv_dir"
  say "Temporal server built in $(elapsed "$t0"): $srv_dir"
fi
