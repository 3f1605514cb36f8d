// Plays loadgen's job against the Colyseus server: G concurrent Caro games, each with two
// players and one spectator (three WebSocket clients, all receiving the state patches),
// closed loop (a player's next move as soon as the previous one shows in the mover's state),
// every game the same 15 moves (caro.js SCRIPT), rounds of games until DURATION timed seconds
// are spent; joining is untimed, as loadgen's sign-in/CreateGame/Subscribe are.
// Prints one JSON line: moves, moves/s, server CPU µs per move (utime+stime of SERVER_PID
// from /proc over the timed rounds), submit (move sent -> the mover's state has it) and
// fan-out (sent -> the last of the three clients has it) latency percentiles, load average.
// Usage: node driver.js URL SERVER_PID [GAMES] [DURATION]
import { readFileSync } from "node:fs";
import { Client } from "@colyseus/sdk";
import { SCRIPT, cellOf } from "./caro.js";

const [url, serverPid, gamesArg, durationArg] = process.argv.slice(2);
const GAMES = Number(gamesArg ?? 32);
const DURATION_MS = Number(durationArg ?? 10) * 1000;
const PATIENCE_MS = 30_000;
const TICKS_PER_SECOND = 100; // getconf CLK_TCK on Linux

function cpuSeconds(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // Fields after the command name (which may hold spaces) start at ") ".
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

function loadAverage() {
  return readFileSync("/proc/loadavg", "utf8").split(" ")[0];
}

// Resolves once `room`'s state has `moves` moves (or rejects after the patience).
function untilMoves(room, moves) {
  if (room.state.moves >= moves) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`move ${moves} never arrived`)), PATIENCE_MS);
    room.waiters.push({ moves, resolve: () => { clearTimeout(timer); resolve(); } });
  });
}

async function join(client, roomId, seat) {
  const room = roomId === null
    ? await client.create("caro", { seat })
    : await client.joinById(roomId, { seat });
  room.waiters = [];
  room.onStateChange((state) => {
    room.waiters = room.waiters.filter((w) => (state.moves >= w.moves ? (w.resolve(), false) : true));
  });
  room.onMessage("rejected", (error) => { room.rejected = error; });
  return room;
}

async function setTable(client) {
  const x = await join(client, null, 1);
  const o = await join(client, x.roomId, 2);
  const spectator = await join(client, x.roomId, 0);
  return [x, o, spectator];
}

async function playTable(rooms, deadline, outcome) {
  for (let i = 0; i < SCRIPT.length; i += 1) {
    if (performance.now() >= deadline) break;
    const mover = rooms[i % 2];
    const sent = performance.now();
    mover.send("move", cellOf(SCRIPT[i]));
    const everyone = Promise.all(rooms.map((room) => untilMoves(room, i + 1)))
      .then(() => outcome.fanout.push(performance.now() - sent));
    try {
      await untilMoves(mover, i + 1);
    } catch (error) {
      outcome.errors += 1;
      outcome.firstError ??= mover.rejected ?? String(error);
      break;
    }
    outcome.submit.push(performance.now() - sent);
    outcome.moves += 1;
    outcome.pending.push(everyone.catch((error) => {
      outcome.errors += 1;
      outcome.firstError ??= String(error);
    }));
  }
}

function quantile(sorted, q) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length, Math.max(1, Math.ceil(sorted.length * q))) - 1];
}

const client = new Client(url);
const outcome = { moves: 0, errors: 0, firstError: null, submit: [], fanout: [], pending: [] };
let timedMs = 0;
let cpu = 0;
while (timedMs < DURATION_MS) {
  const tables = await Promise.all(Array.from({ length: GAMES }, () => setTable(client)));
  const cpuBefore = cpuSeconds(serverPid);
  const started = performance.now();
  const deadline = started + (DURATION_MS - timedMs);
  await Promise.all(tables.map((rooms) => playTable(rooms, deadline, outcome)));
  await Promise.all(outcome.pending.splice(0));
  timedMs += performance.now() - started;
  cpu += cpuSeconds(serverPid) - cpuBefore;
  await Promise.all(tables.flat().map((room) => room.leave(true)));
}
const submit = outcome.submit.sort((a, b) => a - b);
const fanout = outcome.fanout.sort((a, b) => a - b);
console.log(JSON.stringify({
  system: "colyseus",
  games: GAMES,
  moves: outcome.moves,
  seconds: timedMs / 1000,
  movesPerSecond: outcome.moves / (timedMs / 1000),
  cpuUsPerMove: (cpu * 1e6) / Math.max(1, outcome.moves),
  submitP50Ms: quantile(submit, 0.5),
  submitP99Ms: quantile(submit, 0.99),
  fanoutP50Ms: quantile(fanout, 0.5),
  fanoutP99Ms: quantile(fanout, 0.99),
  errors: outcome.errors,
  firstError: outcome.firstError,
  load: loadAverage(),
}));
process.exit(outcome.errors === 0 ? 0 : 1);
