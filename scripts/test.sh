#!/usr/bin/env bash
# Runs every check and every test of Ludus on a fresh machine: installs redis-server and
# PostgreSQL when they are missing (the tests start their own servers on free ports, in temp
# directories), then formatting, clippy with warnings denied, the whole test suite (rules,
# property tests, store conformance on memory and Redis, accounts on SQLite and PostgreSQL,
# services, end to end), and the web client in headless Chromium (installs Debian's chromium
# and the client's npm packages when missing).
set -euo pipefail
cd "$(dirname "$0")/.."

# redis-cli joins the Redis Cluster the cluster tests start (Debian's redis-tools, which
# redis-server depends on; asked for by name in case only the server is on the machine).
if ! command -v redis-server >/dev/null 2>&1 || ! command -v redis-cli >/dev/null 2>&1; then
  echo "== installing redis-server and redis-cli"
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq redis-server redis-tools >/dev/null
fi
redis-server --version

# The accounts tests run `initdb` + `pg_ctl` from /usr/lib/postgresql/<version>/bin (Debian's
# layout; LUDUS_PG_BIN overrides); the package's own cluster is not used.
if ! ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1 && [ -z "${LUDUS_PG_BIN:-}" ]; then
  echo "== installing postgresql"
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq postgresql >/dev/null
fi
ls -d /usr/lib/postgresql/*/bin 2>/dev/null | tail -1 || true

# A fresh CI checkout never reuses incremental state: writing it only costs disk (gigabytes).
if [ -n "${CI:-}" ]; then export CARGO_INCREMENTAL=0; fi
df -h . | awk 'NR == 2 { print "disk free before building: " $4 }'

echo "== cargo fmt --check"
cargo fmt --all --check

echo "== cargo clippy (warnings denied)"
cargo clippy --workspace --all-targets --locked -- -D warnings

# The API contract (proto/): buf's lint rules, and no breaking change against the last released
# set (proto/released/, see its README), which apps in the field were generated from. buf comes
# from the web client's lockfile (npm ci only when it changed).
echo "== the API contract: buf lint, buf breaking against proto/released"
apt_install() {
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq "$@" >/dev/null
}
if ! command -v npm >/dev/null 2>&1; then
  echo "installing nodejs and npm"
  apt_install nodejs npm
fi
node --version
(
  cd clients/web
  if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    npm ci --no-audit --no-fund
  fi
  npx buf lint ../../proto
  npx buf breaking ../../proto --against ../../proto/released
)

# The rules crates must stay free of anything a browser cannot run (no I/O, no OS randomness):
# they are built for wasm32 on every run, so a dependency that cannot go there fails here. So is
# the offline module, which maps its views with ludus-catalog and ludus-proto without their
# `grpc` feature: tonic creeping back into it fails here too.
echo "== games' rules and the offline module for wasm32-unknown-unknown"
if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  rustup target add wasm32-unknown-unknown
fi
cargo build --locked --target wasm32-unknown-unknown -p ludus-rules -p ludus-caro \
  -p ludus-quoridor -p ludus-backgammon -p ludus-mancala -p ludus-junqi -p ludus-offline

# Everything the tests run is built in one invocation: the per-service binaries that the kill
# scenarios (tests/tests/faults.rs) start as separate processes (`cargo test` builds no other
# package's binaries, and a test must not run cargo: the build lock is held) together with
# the test targets. Built together, the binaries get the same features as the tests (the
# store's and telemetry's `testing`, enabled by dev-dependencies), so `cargo test` below and
# the browser test reuse them instead of compiling every service a second time.
echo "== cargo build --workspace --bins --tests"
cargo build --workspace --bins --tests --locked

# --- Python grpcio client of the TLS gateway (tests/tests/e2e/tls.rs, tests/python) ---
# grpcio and grpcio-tools (pinned) in a virtual environment under the build directory (the
# user site when this Python has no venv module), installed only when missing; the test finds
# them through LUDUS_PYTHON. Without python3 at all that one test says it skipped.
py_env="${CARGO_TARGET_DIR:-target}/python-grpc"
case "$py_env" in /*) ;; *) py_env="$PWD/$py_env" ;; esac
py_pins="grpcio==1.85.1 grpcio-tools==1.85.1"
if [ -x "$py_env/bin/python3" ] || { command -v python3 >/dev/null && python3 -m venv "$py_env" 2>/dev/null; }; then
  export LUDUS_PYTHON="$py_env/bin/python3"
elif command -v python3 >/dev/null; then
  export LUDUS_PYTHON=python3
fi
if [ -n "${LUDUS_PYTHON:-}" ] && ! "$LUDUS_PYTHON" -c 'import grpc, grpc_tools' >/dev/null 2>&1; then
  echo "== installing $py_pins for $LUDUS_PYTHON"
  user=""
  if [ "$LUDUS_PYTHON" = python3 ]; then user="--user"; fi
  # shellcheck disable=SC2086
  "$LUDUS_PYTHON" -m pip install --quiet --disable-pip-version-check $user $py_pins
fi
# --- end of the Python block ---

# Every test binary runs even when one fails (`--no-fail-fast`): a failure in one scenario must
# not hide the state of the rest. The failures are listed at the end and fail the run then.
log=$(mktemp)
trap 'rm -f "$log"' EXIT
failed=0
echo "== cargo test"
cargo test --workspace --locked --no-fail-fast 2>&1 | tee "$log" || failed=1

# The end-to-end suite again, with every system on a local three-master Redis Cluster
# (`LUDUS_TEST_REDIS=cluster`: each test starts three `redis-server --cluster-enabled yes` and
# joins them with `redis-cli --cluster create`; about four minutes on 2 cores). All of it but
# two tests that are about one node: the outage of the one Redis (store_outage) and the
# bad-input campaign, which compares the games' keys read from one node.
echo "== cargo test (end to end again, on a Redis Cluster)"
LUDUS_TEST_REDIS=cluster cargo test -p ludus-tests --test e2e --locked --no-fail-fast -- \
  --skip store_outage:: --skip campaign:: 2>&1 | tee -a "$log" || failed=1
du -sh "${CARGO_TARGET_DIR:-target}" 2>/dev/null | awk '{ print "build directory after the run: " $1 }' || true

# The web client (clients/web): Debian's Chromium, the client's packages from the committed
# lockfile (npm ci, only when they changed), lint and format (Biome), a build (typecheck, with
# the offline games in WebAssembly), the unit tests of the pages' logic (Vitest), then the
# browser test by feature (test/browser.mjs runs play, rooms, a11y and offline): two players
# and a spectator in headless Chromium against the all-in-one binary, a room joined by its
# code and invite link, a Vietnamese player on a phone with the keyboard only, and every game
# on one device with no server. Every page passes axe-core at phone and desktop sizes and shows
# only words of its language; screenshots land in clients/web/artifacts/.
echo "== web client in headless Chromium"
if [ ! -x /usr/bin/chromium ]; then
  echo "installing chromium"
  apt_install chromium
fi
# target/debug/ludus was built above with the tests (same features): not built again here.
target_dir="${CARGO_TARGET_DIR:-target}"
case "$target_dir" in /*) ;; *) target_dir="$PWD/$target_dir" ;; esac
# Its own errexit: a subshell on the left of `||` would ignore it.
set +e
(
  set -e
  cd clients/web
  if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    npm ci --no-audit --no-fund
  fi
  # Offline games: the rules as WebAssembly, glued by wasm-bindgen (its CLI must match the
  # wasm-bindgen crate in Cargo.lock exactly; installed once per machine).
  if [ "$(wasm-bindgen --version 2>/dev/null)" != "wasm-bindgen 0.2.130" ]; then
    cargo install wasm-bindgen-cli --version 0.2.130
  fi
  echo "== web: lint and format (biome)"
  npm run lint --silent
  npm run build:offline --silent
  npm run build --silent
  echo "== web: unit tests (vitest)"
  npm run test:unit --silent
  echo "== web: browser tests"
  LUDUS_BIN="$target_dir/debug/ludus" node test/browser.mjs
  # Options, the computer online, accounts (refresh past a 20 s token), replay, room hosting.
  LUDUS_BIN="$target_dir/debug/ludus" node test/features.mjs
  # Rooms for hosts: C10's draw, a rematch (C11), a switch of game, Q29's countdown paused and
  # resumed, a Q24 knockout's bracket to the champion, the scoreboard (Q30-Q36).
  LUDUS_BIN="$target_dir/debug/ludus" node test/hosts.mjs
)
browser=$?
set -e
if [ "$browser" -ne 0 ]; then failed=1; echo "FAILED: the web client in headless Chromium"; fi

# One closing line for the whole run (cargo prints one summary per test binary), and the
# failing tests by name.
awk '/^test result:/ { p += $4; f += $6; i += $8 } END { printf "total: %d passed, %d failed, %d skipped\n", p, f, i }' "$log"
if [ "$failed" -ne 0 ]; then
  echo "== failing tests"
  grep -E '^test .* \.\.\. FAILED$|^error: test failed|^error: [0-9]+ targets failed' "$log" | sort -u || true
  echo "FAILED"
  exit 1
fi
echo "all checks and tests passed"
