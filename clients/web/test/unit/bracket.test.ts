// Q24: the bracket of every round folded from a knockout room's events, in log order.
import { create } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { BracketHistory } from "../../src/bracket.js";
import { type RoomChange, RoomChange_Kind, RoomEventSchema } from "../../src/gen/ludus/v1/rooms_pb.js";

type Change = Partial<Omit<RoomChange, "$typeName">> & { kind: RoomChange_Kind };
type Table = { gameId: string; playerIds: string[] };

function event(seq: number, changes: Change[], round = 0, tables: Table[] = []) {
  return create(RoomEventSchema, {
    seq: BigInt(seq),
    changes,
    room: { tournament: round ? { round } : undefined, tables },
  });
}

describe("BracketHistory", () => {
  it("keeps every round with its winners, the bye and the champion", () => {
    const b = new BracketHistory();
    const round1 = [
      { gameId: "g1", playerIds: ["a", "b"] },
      { gameId: "g2", playerIds: ["c", "d"] },
    ];
    expect(
      b.fold(
        event(
          1,
          [
            { kind: RoomChange_Kind.TOURNAMENT_ROUND, round: 1, playerId: "e" },
            { kind: RoomChange_Kind.GAMES_STARTED, gameIds: ["g1", "g2"] },
          ],
          1,
          round1,
        ),
      ),
    ).toBe(true);
    b.fold(event(2, [{ kind: RoomChange_Kind.GAME_FINISHED, gameIds: ["g1"], winnerIds: ["a"] }], 1, round1));
    // A draw is replayed in the same round (Q24).
    b.fold(event(3, [{ kind: RoomChange_Kind.GAME_FINISHED, gameIds: ["g2"], winnerIds: [] }], 1, round1));
    b.fold(event(4, [{ kind: RoomChange_Kind.GAMES_STARTED, gameIds: ["g3"] }], 1, [...round1, { gameId: "g3", playerIds: ["d", "c"] }]));
    // The round's last result pairs the next round while the old tables are still the view's.
    b.fold(
      event(
        5,
        [
          { kind: RoomChange_Kind.GAME_FINISHED, gameIds: ["g3"], winnerIds: ["d"] },
          { kind: RoomChange_Kind.TOURNAMENT_ROUND, round: 2, playerId: "" },
        ],
        2,
        round1,
      ),
    );
    b.fold(event(6, [{ kind: RoomChange_Kind.GAMES_STARTED, gameIds: ["g4"] }], 2, [{ gameId: "g4", playerIds: ["a", "d"] }]));
    b.fold(
      event(7, [
        { kind: RoomChange_Kind.GAME_FINISHED, gameIds: ["g4"], winnerIds: ["d"] },
        { kind: RoomChange_Kind.CHAMPION, playerId: "d" },
      ]),
    );
    expect(b.rounds.map((r) => [r.round, r.byePlayerId, r.matches.map((m) => `${m.gameId}:${m.finished}:${m.winnerIds.join()}`)])).toEqual([
      [1, "e", ["g1:true:a", "g2:true:", "g3:true:d"]],
      [2, "", ["g4:true:d"]],
    ]);
    expect(b.championId).toBe("d");
    // An event seen twice (the live stream after the log read) changes nothing.
    expect(b.fold(event(7, [{ kind: RoomChange_Kind.CHAMPION, playerId: "x" }]))).toBe(false);
    expect(b.championId).toBe("d");
    // A new tournament starts a new bracket.
    b.fold(event(8, [{ kind: RoomChange_Kind.TOURNAMENT_ROUND, round: 1, playerId: "" }], 1));
    expect(b.rounds).toEqual([{ round: 1, byePlayerId: "", matches: [] }]);
    expect(b.championId).toBe("");
  });

  it("ignores games outside a tournament", () => {
    const b = new BracketHistory();
    expect(b.fold(event(1, [{ kind: RoomChange_Kind.GAMES_STARTED, gameIds: ["g1"] }], 0, [{ gameId: "g1", playerIds: ["a", "b"] }]))).toBe(
      false,
    );
    expect(b.rounds).toEqual([]);
  });
});
