#!/usr/bin/env bash
# Runs the whole test suite (`npm test`) on the Node.js of the product's image (IMAGE_NODE_VERSION in
# scripts/toolchain.env) instead of the machine's: the check behind a change of the image's Node.
# npm itself still comes from the machine; only `node` is swapped, first on PATH.
#   bash scripts/test-on-image-node.sh [vitest arguments]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="$(bash "$root/scripts/setup-image-node.sh")"
export PATH="$bin:$PATH"
printf '[image-node] running npm test on %s\n' "$(node --version)" >&2
cd "$root"
exec npm test -- "$@"
