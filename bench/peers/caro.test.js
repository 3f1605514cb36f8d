// The peer's move validation refuses what Ludus refuses (node --test).
import { test } from "node:test";
import assert from "node:assert/strict";
import { SCRIPT, SIZE, cellOf, play } from "./caro.js";

const fresh = () => ({ board: new Array(SIZE * SIZE).fill(0), turn: 1, moves: 0, winner: 0 });

test("loadgen's script is legal and X's fifth stone on row 8 wins at move 15", () => {
  const state = fresh();
  SCRIPT.forEach((cell, i) => assert.equal(play(state, i % 2 === 0 ? 1 : 2, cellOf(cell)), null));
  assert.equal(state.winner, 1);
  assert.equal(state.moves, 15);
  assert.equal(play(state, 2, cellOf("O15")), "the game is over");
});

test("illegal moves change nothing", () => {
  const state = fresh();
  assert.equal(play(state, 2, 0), "not your turn");
  assert.equal(play(state, 0, 0), "not your turn");
  assert.equal(play(state, 1, SIZE * SIZE), "off the board");
  assert.equal(play(state, 1, -1), "off the board");
  assert.equal(play(state, 1, 1.5), "off the board");
  assert.equal(play(state, 1, 7), null);
  assert.equal(play(state, 2, 7), "the cell is taken");
  assert.equal(state.moves, 1);
  assert.equal(state.turn, 2);
});

test("four in a row does not end the game", () => {
  const state = fresh();
  for (const [x, o] of [["A8", "A1"], ["B8", "C1"], ["C8", "E1"], ["D8", "G1"]]) {
    play(state, 1, cellOf(x));
    play(state, 2, cellOf(o));
  }
  assert.equal(state.winner, 0);
});
