#!/usr/bin/env bash
# The peer table (BENCHMARKS.md, "Against the peer and the fair floor"): the same job —
# Caro 15x15, GAMES concurrent games, two players and one spectator each all receiving every
# move, closed loop, loadgen's 15-move script — played by
#   1. Colyseus 0.18 (colyseus-server.js, driven by driver.js),
#   2. the all-in-one Ludus (every service in one process, memory store:
#      `loadgen play --system all-in-one`), followed by its floor (`--floor`: one bare tonic
#      server committing in memory, the same fan-out),
#   3. Ludus with every service its own process on one redis-server
#      (`loadgen play --system processes`), followed in the same run by the fair floor
#      (`--floor`: bare tonic chain, one EVALSHA, the same fan-out),
# PAIRS times interleaved, so every system sees the same machine load. Server CPU per move is
# utime+stime from /proc of the server processes only (redis-server included for Ludus; the
# load generators are not counted). Prints one markdown table (also written to OUT).
# With LOOPBACK=1, each pair also runs the all-in-one with its internal calls over loopback
# (`--internal-calls loopback`) after the default (in memory).
# Not run by CI. Usage: bench/peers/run.sh  (env: GAMES=32 DURATION=10 PAIRS=2 LOOPBACK=0 OUT=...)
set -euo pipefail
cd "$(dirname "$0")"
root=$(cd ../.. && pwd)
GAMES=${GAMES:-32}
DURATION=${DURATION:-10}
PAIRS=${PAIRS:-2}
OUT=${OUT:-/tmp/ludus-peers.md}
BIN=${BIN:-$root/target/release}
PORT=${PORT:-2567}

if [[ ${SKIP_BUILD:-0} != 1 ]]; then
  # Two invocations: `--bin loadgen` would otherwise limit the services' packages to a binary
  # of that name too, and none would be built.
  (cd "$root" && cargo build --release -p ludus-tests --bin loadgen &&
    cargo build --release --bins -p ludus-gateway -p ludus-game-state -p ludus-timers \
      -p ludus-ratings -p ludus-matchmaking -p ludus-accounts)
fi
[[ -d node_modules ]] || npm ci --no-audit --no-fund

rows=()
# One table row from loadgen's printed summary of run `$2` (ludus or floor) in file $1.
loadgen_row() {
  local file=$1 name=$2 label=$3
  awk -v name="$name" -v label="$label" '
    $1 == name ":" { moves_s = $8; cpu = $11; errors = $14; found = 1; next }
    found && /submit latency/ { sub50 = $4; sub99 = $10; next }
    found && /fan-out latency/ { fan50 = $4; fan99 = $10; next }
    found && /load average/ { for (i = 1; i <= NF; i++) if ($i == "average") load = $(i + 1); found = 0 }
    END { printf "| %s | %s | %s | %s / %s | %s / %s | %s | %s |\n", label, moves_s, cpu, sub50, sub99, fan50, fan99, errors, load }
  ' "$file"
}

for pair in $(seq 1 "$PAIRS"); do
  echo "== pair $pair: Colyseus" >&2
  node colyseus-server.js "$PORT" >/dev/null &
  server=$!
  for _ in $(seq 1 100); do (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break; sleep 0.1; done
  json=$(node driver.js "ws://127.0.0.1:$PORT" "$server" "$GAMES" "$DURATION")
  kill "$server"; wait "$server" 2>/dev/null || true
  echo "$json" >&2
  rows+=("$(node -e '
    const r = JSON.parse(process.argv[1]); const f = (x) => x.toFixed(2);
    console.log(`| Colyseus 0.18 (Node, WebSocket, schema patches) | ${r.movesPerSecond.toFixed(0)} | ${r.cpuUsPerMove.toFixed(0)} | ${f(r.submitP50Ms)} / ${f(r.submitP99Ms)} | ${f(r.fanoutP50Ms)} / ${f(r.fanoutP99Ms)} | ${r.errors} | ${r.load} |`);
  ' "$json")")

  echo "== pair $pair: Ludus all-in-one" >&2
  log=$(mktemp)
  "$BIN/loadgen" play --system all-in-one --player-streams --games "$GAMES" --duration "$DURATION" --floor | tee "$log" >&2
  rows+=("$(loadgen_row "$log" ludus "Ludus all-in-one (one process, memory store)")")
  rows+=("$(loadgen_row "$log" floor "floor, one process: bare tonic server, commit in memory + the same fan-out")")
  if [[ ${LOOPBACK:-0} == 1 ]]; then
    # The same all-in-one with its services calling each other over their loopback ports
    # (`--internal-calls loopback`), as before calls in memory (BENCHMARKS.md).
    echo "== pair $pair: Ludus all-in-one, internal calls over loopback" >&2
    LUDUS_INTERNAL_CALLS=loopback "$BIN/loadgen" play --system all-in-one --player-streams --games "$GAMES" --duration "$DURATION" | tee "$log" >&2
    rows+=("$(loadgen_row "$log" ludus "Ludus all-in-one, internal calls over loopback")")
  fi

  echo "== pair $pair: Ludus as processes on Redis, then the floor" >&2
  "$BIN/loadgen" play --system processes --player-streams --games "$GAMES" --duration "$DURATION" --floor | tee "$log" >&2
  rows+=("$(loadgen_row "$log" ludus "Ludus, every service its own process, Redis")")
  rows+=("$(loadgen_row "$log" floor "floor: bare tonic chain + 1 EVALSHA + the same fan-out")")
  rm -f "$log"
done

{
  echo "$GAMES games, 1 spectator + 2 players receiving each move, closed loop, $DURATION s per run, $PAIRS interleaved pair(s); $(nproc) cores; uptime: $(uptime)"
  echo
  echo "| system | moves/s | server CPU µs/move | submit p50 / p99 ms | fan-out p50 / p99 ms | errors | load avg |"
  echo "|---|---|---|---|---|---|---|"
  printf '%s\n' "${rows[@]}"
} | tee "$OUT"
