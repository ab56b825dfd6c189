#!/usr/bin/env bash
# Runs the tests on the Node.js of the product's image (IMAGE_NODE_VERSION in scripts/toolchain.env)
# instead of the machine's. npm itself still comes from the machine; only `node` is swapped, first on
# PATH (the processes the tests start, `tcr worker`, `tcr ingress` and the others, run on it too).
#   bash scripts/test-on-image-node.sh [vitest arguments]   the whole `npm test`: the check behind a
#                                                           change of the image's Node (~8-10 min)
#   bash scripts/test-on-image-node.sh --ci-subset          what .ci/run runs (~2 min): the build, and
#                                                           the suites below
# The subset is what the image runs and what depends on the Node version, beside the machine's full run:
#   test/harness.test.ts               the Temporal test servers through @temporalio/testing and the
#                                      SDK's native core bridge
#   test/workflows/replay.test.ts      every recorded history replays in the workflow sandbox on this
#                                      V8: a Node upgrade that broke determinism fails here
#   test/golive/https-e2e.test.ts      the image's roles as an operator runs them, from dist/: `tcr
#                                      webhooks subscribe`, `tcr ingress`, `tcr accounts check`, `tcr
#                                      worker`, order to running over TLS (NODE_EXTRA_CA_CERTS)
#   test/codec/encryption-codec.test.ts, test/ingress/canonical-and-signature.test.ts
#                                      node:crypto: payload encryption, webhook signatures
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="$(bash "$root/scripts/setup-image-node.sh")"
export PATH="$bin:$PATH"
cd "$root"
if [ "${1:-}" = --ci-subset ]; then
  shift
  subset=(
    test/harness.test.ts
    test/workflows/replay.test.ts
    test/golive/https-e2e.test.ts
    test/codec/encryption-codec.test.ts
    test/ingress/canonical-and-signature.test.ts
  )
  printf '[image-node] the build and %d suites on %s\n' "${#subset[@]}" "$(node --version)" >&2
  bash scripts/setup.sh
  npm run --silent build
  exec npx vitest run "${subset[@]}" "$@"
fi
printf '[image-node] running npm test on %s\n' "$(node --version)" >&2
exec npm test -- "$@"
