#!/usr/bin/env bash
# The soak (ARCHITECTURE.md, "Faults: the multi-process harness"): the multi-process Ludus (2 gateways, 2 game-state, 3 matchmaking,
# 2 timers, ratings, accounts, rooms, redis-server on its AOF) under a steady load of quick
# matches, games through both gateways and spectators, one process SIGKILLed and restarted
# at every interval (rotating through the roles and Redis), every process's RSS sampled
# every 10 s, and at the end every invariant the kill tests check (tests/tests/faults.rs):
# every acknowledged move in the log, every subscriber saw seqs 1..N once each, no ticket in
# two games, every due turn clock run out once.
#
# NOT IN CI: it runs for 30 minutes by default. Its last run's figures are in RELIABILITY.md.
#
# Usage: scripts/soak.sh [MINUTES] [soak flags...]    e.g. scripts/soak.sh 15 --kill-every 45
# (flags: target/debug/soak --help). Needs redis-server on the PATH. Writes rss.csv,
# kills.csv and summary.md to target/soak/<UTC time>/ and exits non-zero if a check failed.
set -euo pipefail
cd "$(dirname "$0")/.."

minutes="${1:-30}"
shift || true

if ! command -v redis-server >/dev/null 2>&1; then
  echo "redis-server is missing: apt-get install redis-server" >&2
  exit 1
fi

# The per-service binaries are not the workspace's default member: --workspace builds them
# (and the soak binary itself, in ludus-tests).
cargo build --workspace --bins

target="${CARGO_TARGET_DIR:-target}"
out="$target/soak/$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$out"
echo "== soak for $minutes min; figures in $out"
LUDUS_BIN_DIR="$target/debug" "$target/debug/soak" --minutes "$minutes" --out "$out" "$@" \
  2>&1 | tee "$out/soak.log"
