// B22: a backgammon match as the .mat file gnubg imports, from the archived event log.
import { create } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { ArchivedGameSchema } from "../../src/gen/ludus/v1/accounts_pb.js";
import { matchFile, matMoves } from "../../src/mat.js";

// `dice`: the last play's dice in the view after it; `rolled`: the dice on the board after it.
type Step = { seat: number; notation: string; dice?: number[]; rolled?: number[]; score?: number[] };

// An archived 3-point match: the start, then each action with the view after it.
function archived(steps: Step[], winner?: number) {
  let score = [0, 0];
  const view = (s?: Step) => ({
    view: {
      case: "backgammon" as const,
      value: { matchLength: 3, score, dice: s?.rolled ?? [], lastPlay: s?.dice ? { seat: s.seat, dice: s.dice } : undefined },
    },
  });
  const events = [{ seq: 1n, kind: { case: "started" as const, value: {} }, view: view() }];
  steps.forEach((s, i) => {
    if (s.score) score = s.score;
    events.push({
      seq: BigInt(i + 2),
      kind: { case: "actionApplied" as const, value: { seat: s.seat, notation: s.notation } },
      view: view(s),
    } as never);
  });
  return create(ArchivedGameSchema, {
    seats: [
      { seat: 0, displayName: "bob" },
      { seat: 1, displayName: "ann lee" },
    ],
    events,
    finalSnapshot: winner === undefined ? undefined : { outcome: { winners: [winner] } },
  });
}

describe("matMoves", () => {
  it("reads the bar as 25, off as 0, repeats a move and drops the hit marks", () => {
    expect(matMoves("bar/22 13/7*")).toBe("25/22 13/7");
    expect(matMoves("8/2(2) 6/off")).toBe("8/2 8/2 6/0");
    expect(matMoves("no play")).toBe("");
  });
});

describe("matchFile", () => {
  it("writes the games with their scores, plays, cube actions and wins in two columns", () => {
    const game = archived(
      [
        { seat: 0, notation: "8/5 6/5", dice: [1, 3] },
        { seat: 1, notation: "double" },
        // Game 2 (seat 1 opens with 6-2) after the drop.
        { seat: 0, notation: "drop", score: [0, 1], rolled: [6, 2] },
        { seat: 1, notation: "24/18 13/11", dice: [6, 2] },
        { seat: 0, notation: "roll", rolled: [6, 6] },
        { seat: 0, notation: "no play", dice: [6, 6] },
        { seat: 1, notation: "roll", rolled: [5, 4] },
        // The play that ends the match: the view after it has no last play.
        { seat: 1, notation: "6/off 5/off", score: [0, 3] },
      ],
      1,
    );
    expect(matchFile(game)).toBe(
      [
        " 3 point match",
        "",
        " Game 1",
        " bob : 0                          ann_lee : 0",
        "  1) 31: 8/5 6/5                   Doubles => 2",
        "  2)  Drops                       Wins 1 point",
        "",
        " Game 2",
        " bob : 0                          ann_lee : 1",
        "  1)                              62: 24/18 13/11",
        "  2) 66:                          54: 6/0 5/0",
        "  3)                              Wins 2 points and the match",
        "",
        "",
      ].join("\n"),
    );
  });
});
