#!/usr/bin/env bash
# Installs what the tests need beyond scripts/setup.sh (which builds the Temporal servers) and
# scripts/setup-promtool.sh (which `npm test` runs first): Debian packages, through apt-get.
#   python3 with PyYAML (python3-yaml)  test/deploy/compose.test.ts parses the compose file with it too
#   openssl                             test/golive/https-e2e.test.ts makes its CA and certificate
#   unshare (util-linux)                test/golive/https-e2e.test.ts runs each process in a mount namespace
#   chromium                            the Web UI tests (test/stack/local-stack.test.ts), by scripts/setup-browser.sh
# Without one of them the test that needs it skips on a developer's machine, naming it and this script;
# under CI (.ci/run exports CI=true) it fails. Idempotent: installs only what is missing. Needs root (or
# sudo) on Debian/Ubuntu when something is missing; prints each step it takes.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
say() { printf '[test-tools] %s\n' "$*" >&2; }

# The python3 the compose test runs: the one on PATH, else Debian's (a pyenv python3 on PATH does not
# see Debian's python3-yaml; the test tries both, in this order).
has_pyyaml() {
  local python
  for python in python3 /usr/bin/python3; do
    command -v "$python" >/dev/null 2>&1 && "$python" -c 'import yaml' >/dev/null 2>&1 && return 0
  done
  return 1
}

packages=()
has_pyyaml || packages+=(python3-yaml)
command -v openssl >/dev/null 2>&1 || packages+=(openssl)
command -v unshare >/dev/null 2>&1 || packages+=(util-linux)

if [ "${#packages[@]}" -eq 0 ]; then
  say "PyYAML, openssl and unshare are installed"
else
  command -v apt-get >/dev/null 2>&1 || {
    say "missing: ${packages[*]} (Debian package names), and apt-get is not available: install them yourself"
    exit 1
  }
  sudo=()
  if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null 2>&1 || {
      say "missing: ${packages[*]}, and this is not root (and no sudo): run as root: apt-get install ${packages[*]}"
      exit 1
    }
    sudo=(sudo)
  fi
  export DEBIAN_FRONTEND=noninteractive
  say "apt-get install --no-install-recommends ${packages[*]}"
  "${sudo[@]}" apt-get update -q
  "${sudo[@]}" apt-get install -y -q --no-install-recommends "${packages[@]}"
  has_pyyaml || {
    say "PyYAML is still not importable by python3 (on PATH: $(command -v python3 || echo none)) nor by /usr/bin/python3"
    exit 1
  }
  command -v openssl >/dev/null 2>&1 && command -v unshare >/dev/null 2>&1 || {
    say "openssl or unshare is still missing after the install"
    exit 1
  }
  say "installed ${packages[*]}"
fi

bash "$root/scripts/setup-browser.sh"
