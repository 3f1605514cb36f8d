// A Colyseus 0.18 server playing loadgen's job: Caro rooms of two players (seat 1 = X,
// 2 = O) and one spectator (seat 0); each move validated (caro.js), applied to the schema
// state and patched to the room's three clients at once (broadcastPatch on every move, no
// 50 ms patch timer, so a move's latency is its own). Usage: node colyseus-server.js PORT
import { Room, Server } from "@colyseus/core";
import { WebSocketTransport } from "@colyseus/ws-transport";
import { ArraySchema, schema, t } from "@colyseus/schema";
import { SIZE, play } from "./caro.js";

// The board (0 empty, 1 X, 2 O), whose turn it is, moves played and the winner's seat.
const CaroState = schema({
  board: t.array("uint8").default(() => new ArraySchema(...new Array(SIZE * SIZE).fill(0))),
  turn: t.uint8().default(1),
  moves: t.uint16().default(0),
  winner: t.uint8().default(0),
}, "CaroState");

class CaroRoom extends Room {
  onCreate() {
    this.maxClients = 3;
    // Patches go out when a move lands (broadcastPatch below), not on a timer.
    this.patchRate = null;
    this.seats = new Map();
    this.setState(new CaroState());
    this.onMessage("move", (client, cell) => {
      const error = play(this.state, this.seats.get(client.sessionId), cell);
      if (error !== null) {
        client.send("rejected", error);
        return;
      }
      this.broadcastPatch();
    });
  }

  onJoin(client, options) {
    const seat = [0, 1, 2].includes(options?.seat) ? options.seat : 0;
    this.seats.set(client.sessionId, seat);
  }

  onLeave(client) {
    this.seats.delete(client.sessionId);
  }
}

const port = Number(process.argv[2] ?? 2567);
const server = new Server({ transport: new WebSocketTransport(), greet: false });
server.define("caro", CaroRoom);
await server.listen(port, "127.0.0.1");
console.log(`colyseus listening on 127.0.0.1:${port}`);
