#!/bin/sh
# Pins every pulled image of docker-compose.yml to the digest its tag names today:
#   image: postgres:16.15-bookworm  ->  image: postgres:16.15-bookworm@sha256:<digest>
# Run it on a machine that can reach the registries (docker pull), review the diff, commit it.
# Images already pinned by digest are left alone; built images (tcr-orchestrator) have no digest.
# To move to a newer tag: edit the tag, delete its @sha256:... suffix, run this again.
set -eu
cd "$(dirname "$0")"
compose=docker-compose.yml
for ref in $(sed -n 's/^ *image: *\([^ ]*\)$/\1/p' "$compose" | sort -u); do
  case "$ref" in
    *@sha256:*) continue ;;
    tcr-orchestrator:*) continue ;;
  esac
  docker pull -q "$ref" >/dev/null
  digest=$(docker image inspect --format '{{range .RepoDigests}}{{println .}}{{end}}' "$ref" |
    sed -n 's/^[^@]*@\(sha256:[0-9a-f]\{64\}\)$/\1/p' | head -n 1)
  [ -n "$digest" ] || { echo "no digest for $ref" >&2; exit 1; }
  tmp="$compose.tmp.$$"
  sed "s#^\( *image: *\)$ref\$#\1$ref@$digest#" "$compose" >"$tmp" && mv "$tmp" "$compose"
  echo "$ref -> $digest"
done
