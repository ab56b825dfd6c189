#!/usr/bin/env bash
# Installs the npm dependencies exactly as package-lock.json locks them (`npm ci`), and builds, once,
# the two Temporal servers the project runs and tests against, from the package registries (no
# binary downloads):
#
#   .tools/temporal-cli/<version>/temporal          Temporal CLI: dev server with SQLite and Web UI
#   .tools/temporal-test-server/<version>/launch    Java time-skipping test server launcher
#
# Idempotent: a second run finds both and does nothing. `npm start` and `npm test` run it first.
# A `temporal` already on PATH, or TEMPORAL_CLI_PATH, is used as it is and nothing is built.
# TEMPORAL_TEST_SERVER_PATH likewise names an existing test-server executable.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=toolchain.env
source "$root/scripts/toolchain.env"
tools="${TCR_TOOLS_DIR:-$root/.tools}"
mkdir -p "$tools"

say() { printf '[setup] %s\n' "$*" >&2; }
die() {
  printf '[setup] error: %s\n' "$*" >&2
  exit 1
}
elapsed() { echo "$(($(date +%s) - $1))s"; }

# --- Node dependencies ------------------------------------------------------------------------
# `npm ci` installs exactly what package-lock.json locks and never writes it. It runs when
# node_modules is missing or differs from the lock file (after a pull that changed dependencies).
command -v node >/dev/null 2>&1 || die "Node.js is missing: install a supported version (README.md, Setup)"
node "$root/scripts/check-lockfile.mjs" engines ||
  say "warning: this Node.js is outside the supported versions; continuing (README.md, Setup)"
node "$root/scripts/check-lockfile.mjs" complete ||
  die "package-lock.json is incomplete or out of step with package.json (see above)"
if ! stale=$(node "$root/scripts/check-lockfile.mjs" installed 2>&1); then
  t0=$(date +%s)
  say "${stale#\[lockfile\] }"
  say "installing npm dependencies from package-lock.json (npm ci) ..."
  (cd "$root" && npm ci --no-audit --no-fund --loglevel=error) || die "npm ci failed"
  say "npm dependencies installed in $(elapsed "$t0")"
fi

# --- Temporal CLI ------------------------------------------------------------------------------
cli_dir="$tools/temporal-cli/$TEMPORAL_CLI_VERSION"
if [ -n "${TEMPORAL_CLI_PATH:-}" ]; then
  [ -x "$TEMPORAL_CLI_PATH" ] || die "TEMPORAL_CLI_PATH=$TEMPORAL_CLI_PATH is not an executable file"
  say "Temporal CLI: using TEMPORAL_CLI_PATH=$TEMPORAL_CLI_PATH"
elif command -v temporal >/dev/null 2>&1; then
  say "Temporal CLI: using $(command -v temporal) from PATH"
elif [ -x "$cli_dir/temporal" ]; then
  : # built before
else
  command -v go >/dev/null 2>&1 ||
    die "the Temporal CLI is not built yet and Go is missing. Install Go 1.24 or newer (Debian: apt-get install golang-go, or https://go.dev/dl), or put an existing 'temporal' on PATH, or set TEMPORAL_CLI_PATH."
  t0=$(date +%s)
  say "building the Temporal CLI $TEMPORAL_CLI_VERSION from its Go module (the first build takes several minutes) ..."
  mkdir -p "$cli_dir.partial"
  GOBIN="$cli_dir.partial" GOFLAGS="${GOFLAGS:-} -trimpath" CGO_ENABLED=0 \
    go install -ldflags "-s -w" "$TEMPORAL_CLI_MODULE@$TEMPORAL_CLI_VERSION" ||
    die "go install $TEMPORAL_CLI_MODULE@$TEMPORAL_CLI_VERSION failed (see the output above)"
  rm -rf "$cli_dir" && mv "$cli_dir.partial" "$cli_dir"
  say "Temporal CLI built in $(elapsed "$t0"): $cli_dir/temporal"
fi

# --- Java time-skipping test server ------------------------------------------------------------
ts_dir="$tools/temporal-test-server/$TEMPORAL_TEST_SERVER_VERSION-$TEMPORAL_TEST_SERVER_PATCH"
if [ -n "${TEMPORAL_TEST_SERVER_PATH:-}" ]; then
  [ -x "$TEMPORAL_TEST_SERVER_PATH" ] || die "TEMPORAL_TEST_SERVER_PATH=$TEMPORAL_TEST_SERVER_PATH is not an executable file"
  say "test server: using TEMPORAL_TEST_SERVER_PATH=$TEMPORAL_TEST_SERVER_PATH"
elif [ -x "$ts_dir/launch" ]; then
  : # built before
else
  command -v java >/dev/null 2>&1 ||
    die "the Java time-skipping test server needs Java 11 or newer, which is missing. Install a JDK (Debian: apt-get install openjdk-17-jdk-headless: setup compiles one patched class) or set TEMPORAL_TEST_SERVER_PATH."
  command -v mvn >/dev/null 2>&1 ||
    die "the Java time-skipping test server is resolved with Maven, which is missing. Install it (Debian: apt-get install maven) or set TEMPORAL_TEST_SERVER_PATH."
  t0=$(date +%s)
  say "resolving $TEMPORAL_TEST_SERVER_ARTIFACT:$TEMPORAL_TEST_SERVER_VERSION from Maven Central ..."
  partial="$ts_dir.partial"
  rm -rf "$partial" && mkdir -p "$partial/lib"
  mvn -B -q -Dstyle.color=never -f "$root/scripts/test-server/pom.xml" \
    -Dtemporal.test.server.version="$TEMPORAL_TEST_SERVER_VERSION" \
    dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$partial/lib" \
    >"$tools/maven.log" 2>&1 || {
    cat "$tools/maven.log" >&2
    die "Maven could not resolve the test server (see the output above)"
  }
  # The patch (scripts/test-server/defer-timer-fire.patch, why in its comment): the class is compiled
  # from the version's own sources jar into patch.jar, which the launcher puts before the others.
  command -v javac >/dev/null 2>&1 ||
    die "the test server's patch is compiled with javac, which is missing. Install a JDK (Debian: apt-get install openjdk-17-jdk-headless) or set TEMPORAL_TEST_SERVER_PATH."
  mvn -B -q -Dstyle.color=never -f "$root/scripts/test-server/pom.xml" \
    -Dtemporal.test.server.version="$TEMPORAL_TEST_SERVER_VERSION" \
    dependency:copy -Dartifact="$TEMPORAL_TEST_SERVER_ARTIFACT:$TEMPORAL_TEST_SERVER_VERSION:jar:sources" \
    -DoutputDirectory="$partial/sources" >>"$tools/maven.log" 2>&1 || {
    cat "$tools/maven.log" >&2
    die "Maven could not resolve the test server's sources (see the output above)"
  }
  class_path=io/temporal/internal/testservice/TestWorkflowMutableStateImpl.java
  (cd "$partial/sources" && jar xf ./*-sources.jar "$class_path" &&
    if command -v patch >/dev/null 2>&1; then
      patch -s -p1 <"$root/scripts/test-server/defer-timer-fire.patch"
    else
      git apply -p1 "$root/scripts/test-server/defer-timer-fire.patch"
    fi && grep -q TIMER_FIRE_DEFERRAL "$class_path") ||
    die "the test server's patch does not apply to $TEMPORAL_TEST_SERVER_VERSION's sources"
  javac -nowarn -encoding UTF-8 -d "$partial/patch" -cp "$partial/lib/*" "$partial/sources/$class_path" \
    >>"$tools/maven.log" 2>&1 || {
    cat "$tools/maven.log" >&2
    die "the test server's patched class did not compile (see the output above)"
  }
  # A jar, not a folder: the class-data-sharing archive below refuses a non-empty folder on the path.
  jar cf "$partial/patch.jar" -C "$partial/patch" . || die "could not package the test server's patch"
  rm -rf "$partial/sources" "$partial/patch"
  cat >"$partial/launch" <<'LAUNCH'
#!/usr/bin/env bash
# Starts the Temporal Java time-skipping test server: launch <port> [--enable-time-skipping]
# Fast-start flags: the SDK gives the server about five seconds to accept connections.
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cds=()
[ -f "$here/server.jsa" ] && cds=(-XX:SharedArchiveFile="$here/server.jsa" -Xshare:auto)
exec java -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xss512k -XX:-UsePerfData "${cds[@]}" \
  ${TEMPORAL_TEST_SERVER_JAVA_OPTS:-} -cp "$here/patch.jar:$here/lib/*" io.temporal.testserver.TestServer "$@"
LAUNCH
  chmod +x "$partial/launch"
  rm -rf "$ts_dir" && mv "$partial" "$ts_dir"
  # Class-data-sharing archive: start the server once from its final place (the archive records the
  # class path), let it load its classes, stop it, and keep the archive of what it loaded. It cuts
  # start-up time; the launcher works without it.
  say "making a class-data-sharing archive for a fast start ..."
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' 2>/dev/null || echo 17233)
  java -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xss512k -XX:-UsePerfData \
    -XX:ArchiveClassesAtExit="$ts_dir/server.jsa" \
    -cp "$ts_dir/patch.jar:$ts_dir/lib/*" io.temporal.testserver.TestServer "$port" --enable-time-skipping >/dev/null 2>&1 &
  pid=$!
  for _ in $(seq 1 100); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
    sleep 0.2
  done
  sleep 1
  kill -TERM "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  [ -f "$ts_dir/server.jsa" ] || say "no class-data-sharing archive was written; the server starts without it"
  say "test server ready in $(elapsed "$t0"): $ts_dir/launch"
fi
