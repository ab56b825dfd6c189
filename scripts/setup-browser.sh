#!/usr/bin/env bash
# Installs Debian's Chromium for the Web UI screenshot test (test/stack/web-ui.test.ts).
# Idempotent: does nothing when a chromium binary is already on PATH (or CHROMIUM_PATH is set).
# Needs root (or sudo) on Debian/Ubuntu; prints each step it takes.
set -euo pipefail

find_chromium() {
  if [[ -n "${CHROMIUM_PATH:-}" && -x "${CHROMIUM_PATH}" ]]; then echo "${CHROMIUM_PATH}"; return 0; fi
  for name in chromium chromium-browser; do
    if command -v "$name" >/dev/null 2>&1; then command -v "$name"; return 0; fi
  done
  return 1
}

if found="$(find_chromium)"; then
  echo "setup-browser: chromium already installed: ${found} ($("${found}" --version 2>/dev/null || echo 'version unknown'))"
  exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "setup-browser: chromium is missing and apt-get is not available; install Chromium yourself and set CHROMIUM_PATH" >&2
  exit 1
fi

SUDO=()
if [[ "$(id -u)" != "0" ]]; then
  if command -v sudo >/dev/null 2>&1; then SUDO=(sudo); else
    echo "setup-browser: chromium is missing and this is not root (and no sudo); run as root: apt-get install chromium" >&2
    exit 1
  fi
fi

export DEBIAN_FRONTEND=noninteractive
echo "setup-browser: apt-get update"
"${SUDO[@]}" apt-get update -q
echo "setup-browser: apt-get install --no-install-recommends chromium"
"${SUDO[@]}" apt-get install -y -q --no-install-recommends chromium fonts-dejavu-core

found="$(find_chromium)" || { echo "setup-browser: chromium still not found after install" >&2; exit 1; }
echo "setup-browser: installed ${found} ($("${found}" --version 2>/dev/null || echo 'version unknown'))"
