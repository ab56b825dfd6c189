#!/usr/bin/env bash
# Fetches jemalloc (Debian's libjemalloc2, JEMALLOC_DEB_VERSION in scripts/toolchain.env) from Debian's
# archive into .tools/jemalloc/<version>/, once, checks the package's SHA-256, and prints the path of
# the library: run a worker outside the image with it as the image does,
#   LD_PRELOAD="$(scripts/setup-jemalloc.sh)" MALLOC_CONF=background_thread:true,dirty_decay_ms:1000,muzzy_decay_ms:0 npm start
# Neither `npm start` nor `npm test` needs it; the estate and scale benchmarks record whether it was
# used (docs/benchmarks.md). Needs curl and dpkg-deb (Debian's dpkg).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=toolchain.env
source "$root/scripts/toolchain.env"
tools="${TCR_TOOLS_DIR:-$root/.tools}"
say() { printf '[setup] %s\n' "$*" >&2; }
case "$(uname -m)" in
  x86_64) arch=amd64 triplet=x86_64-linux-gnu sha="$JEMALLOC_DEB_SHA256_AMD64" ;;
  aarch64) arch=arm64 triplet=aarch64-linux-gnu sha="$JEMALLOC_DEB_SHA256_ARM64" ;;
  *) say "error: no pinned jemalloc package for $(uname -m)"; exit 1 ;;
esac
dir="$tools/jemalloc/$JEMALLOC_DEB_VERSION-$arch"
lib="$dir/usr/lib/$triplet/libjemalloc.so.2"
if [ ! -f "$lib" ]; then
  for tool in curl dpkg-deb sha256sum; do
    command -v "$tool" >/dev/null 2>&1 || { say "error: $tool is missing"; exit 1; }
  done
  deb="libjemalloc2_${JEMALLOC_DEB_VERSION}_${arch}.deb"
  url="${TCR_DEBIAN_MIRROR:-http://deb.debian.org/debian}/pool/main/j/jemalloc/$deb"
  say "fetching $deb from Debian's archive ..."
  rm -rf "$dir.partial" && mkdir -p "$dir.partial"
  curl -sSfL -o "$dir.partial/$deb" "$url" || { say "error: could not fetch $url"; exit 1; }
  echo "$sha  $dir.partial/$deb" | sha256sum -c --quiet - || {
    say "error: $deb does not match its pinned SHA-256 (scripts/toolchain.env)"
    exit 1
  }
  dpkg-deb -x "$dir.partial/$deb" "$dir.partial"
  rm "$dir.partial/$deb"
  rm -rf "$dir" && mv "$dir.partial" "$dir"
fi
printf '%s\n' "$lib"
