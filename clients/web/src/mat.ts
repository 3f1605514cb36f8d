// A backgammon game (a money game or a B22 match) as a .mat match file, the text GNU
// Backgammon and the other backgammon programs import: written from the archived event log,
// where every event carries the position after it (the dice of each play in its last play,
// the score of the match, the cube). The archive's own export is a plain move list, which
// gnubg refuses ("not a valid .mat file").
//
//  3 point match
//
//  Game 1
//  ann : 0                              bob : 0
//   1)                                  31: 8/5 6/5
//   2) 64: 24/18 13/9                    Doubles => 2
//   3)  Takes                           ...
//
// The left column is seat 0, the right seat 1; each play in the mover's own numbering (the
// server's), the bar as 25 and off as 0.

import type { ArchivedGame } from "./gen/ludus/v1/accounts_pb.js";
import type { BackgammonView } from "./gen/ludus/v1/backgammon_pb.js";
import type { GameEvent } from "./gen/ludus/v1/game_pb.js";

interface MatGame {
  score: number[];
  // Lines of [seat 0's cell, seat 1's cell].
  lines: [string, string][];
  won: boolean;
}

const backgammonView = (event: GameEvent | undefined): BackgammonView | undefined =>
  event?.view?.view.case === "backgammon" ? event.view.view.value : undefined;

// One checker move in gnubg's reading: `bar/22` is 25/22, `6/off` 6/0, `8/2(2)` twice, hits
// (`*`) need no mark.
export function matMoves(notation: string): string {
  if (notation === "no play") return "";
  const out: string[] = [];
  for (const token of notation.split(/\s+/).filter(Boolean)) {
    const repeat = token.match(/\((\d)\)$/);
    const move = token
      .replace(/\(\d\)$/, "")
      .replaceAll("*", "")
      .replaceAll("bar", "25")
      .replaceAll("off", "0");
    for (let i = 0; i < Number(repeat?.[1] ?? 1); i++) out.push(move);
  }
  return out.join(" ");
}

export function matchFile(game: ArchivedGame): string {
  const names = [0, 1].map((seat) => (game.seats.find((s) => s.seat === seat)?.displayName || `seat ${seat}`).replace(/\s+/g, "_"));
  let length = 0;
  const games: MatGame[] = [];
  let current: MatGame | undefined;
  let cube = 1;

  const put = (seat: number, text: string) => {
    if (!current) return;
    const last = current.lines[current.lines.length - 1];
    // Seat 0 opens a line; seat 1 fills its column unless already filled.
    if (!last || (seat === 0 && (last[0] || last[1])) || (seat === 1 && last[1])) {
      current.lines.push(seat === 0 ? [text, ""] : ["", text]);
    } else {
      last[seat] = text;
    }
  };
  const wins = (seat: number, points: number, score: number[]) => {
    if (!current || current.won) return;
    const plural = points === 1 ? "point" : "points";
    const match = length > 0 && (score[seat] ?? 0) >= length ? " and the match" : "";
    put(seat, `Wins ${points} ${plural}${match}`);
    current.won = true;
  };
  const begin = (view: BackgammonView) => {
    current = { score: [view.score[0] ?? 0, view.score[1] ?? 0], lines: [], won: false };
    games.push(current);
    cube = 1;
  };

  // The dice on the board before this event: the roll (or the opening roll) the next play
  // uses. A play that ends a game is followed by the next game's position, whose last play
  // is empty: its dice are these.
  let rolled: number[] = [];
  for (const event of game.events) {
    const view = backgammonView(event);
    if (!view) continue;
    if (!current) {
      length = view.matchLength;
      begin(view);
    }
    const kind = event.kind;
    if (kind.case === "actionApplied") {
      const seat = kind.value.seat;
      const notation = kind.value.notation;
      if (notation === "double" || notation === "redouble") {
        cube *= 2;
        put(seat, ` Doubles => ${cube}`);
      } else if (notation === "take") {
        put(seat, " Takes");
      } else if (notation === "beaver") {
        cube *= 2;
        put(seat, ` Beavers => ${cube}`);
      } else if (notation === "drop") {
        put(seat, " Drops");
      } else if (notation !== "roll" && !/^(resign|accept|reject)/.test(notation)) {
        const played = view.lastPlay?.seat === seat && view.lastPlay.dice.length ? view.lastPlay.dice : rolled;
        const dice = [...played].sort((a, b) => b - a).join("");
        put(seat, `${dice}: ${matMoves(notation)}`.trimEnd());
      }
    }
    rolled = [...view.dice];
    // A game ended when the score moved: its winner gained the points.
    const start = current?.score ?? [0, 0];
    const gained = [0, 1].map((seat) => (view.score[seat] ?? 0) - (start[seat] ?? 0));
    const winner = gained.findIndex((g) => g > 0);
    if (winner >= 0 && current) {
      wins(winner, gained[winner] ?? 0, [...view.score]);
      const over = length > 0 && view.score.some((s) => s >= length);
      if (!over && kind.case !== "resigned") begin(view);
    }
  }
  // A match conceded by leaving the table (C14: the resignation of the whole game) ends with
  // the rest of the match to the other player.
  const winner = game.finalSnapshot?.outcome?.winners[0];
  if (current && !current.won && winner !== undefined) {
    const score = [...current.score];
    const points = length > 0 ? Math.max(1, length - (score[winner] ?? 0)) : cube;
    score[winner] = (score[winner] ?? 0) + points;
    wins(winner, points, score);
  }

  const out = [` ${length} point match`, ""];
  games.forEach((g, i) => {
    out.push(` Game ${i + 1}`);
    out.push(` ${`${names[0]} : ${g.score[0]}`.padEnd(33)}${names[1]} : ${g.score[1]}`);
    g.lines.forEach(([left, right], n) => {
      out.push(`${String(n + 1).padStart(3)}) ${left.padEnd(28)}${right ? ` ${right}` : ""}`.trimEnd());
    });
    out.push("");
  });
  return `${out.join("\n")}\n`;
}
