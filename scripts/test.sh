#!/usr/bin/env bash
# Runs every check and every test of Ludus on a fresh machine: installs redis-server and
# PostgreSQL when they are missing (the tests start their own servers on free ports, in temp
# directories), then formatting, clippy with
# warnings denied, and the whole test suite (rules, property tests, store conformance on memory
# and Redis, services, end to end).
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v redis-server >/dev/null 2>&1; then
  echo "== installing redis-server"
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq redis-server >/dev/null
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

echo "== cargo test"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
cargo test --workspace --locked 2>&1 | tee "$log"
du -sh "${CARGO_TARGET_DIR:-target}" 2>/dev/null | awk '{ print "build directory after the run: " $1 }' || true
# One closing line for the whole workspace (cargo prints one summary per test binary).
awk '/^test result:/ { p += $4; f += $6; i += $8 } END { printf "total: %d passed, %d failed, %d skipped\n", p, f, i }' "$log"
