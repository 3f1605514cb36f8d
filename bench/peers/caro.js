// Caro on 15x15, the minimum a server must check per move: in bounds, the cell empty, the
// right player's turn, the game not over; five (or more) in a row ends it. Ludus's rules crate
// checks more (e.g. a five blocked at both ends does not win, games/caro): this is the floor of
// what a validating server does, so the peer is not charged for rules it skips.

export const SIZE = 15;

// The move list every game plays, X first: loadgen's SCRIPT (tests/src/bin/loadgen/play.rs),
// 15 moves ending with X's five on row 8.
export const SCRIPT = [
  "A8", "A1", "B8", "C1", "C8", "E1", "D8", "G1", "F9", "I1", "G10", "K1", "H11", "M1", "E8",
];

// "A8" -> cell index (column letter A.., row number 1..).
export function cellOf(notation) {
  const column = notation.charCodeAt(0) - 65;
  const row = Number(notation.slice(1)) - 1;
  return row * SIZE + column;
}

const DIRECTIONS = [[1, 0], [0, 1], [1, 1], [1, -1]];

// Stones of `seat` in a line through (row, column) along (dr, dc), the stone itself included.
function lineLength(board, row, column, dr, dc, seat) {
  let length = 1;
  for (const sign of [1, -1]) {
    let r = row + sign * dr;
    let c = column + sign * dc;
    while (r >= 0 && r < SIZE && c >= 0 && c < SIZE && board[r * SIZE + c] === seat) {
      length += 1;
      r += sign * dr;
      c += sign * dc;
    }
  }
  return length;
}

// Applies `seat`'s move to `cell` on `state` ({ board, turn, moves, winner }); returns an
// error string (and changes nothing) when the move is illegal.
export function play(state, seat, cell) {
  if (state.winner !== 0) return "the game is over";
  if (seat !== state.turn) return "not your turn";
  if (!Number.isInteger(cell) || cell < 0 || cell >= SIZE * SIZE) return "off the board";
  if (state.board[cell] !== 0) return "the cell is taken";
  state.board[cell] = seat;
  state.moves += 1;
  const row = Math.floor(cell / SIZE);
  const column = cell % SIZE;
  if (DIRECTIONS.some(([dr, dc]) => lineLength(state.board, row, column, dr, dc, seat) >= 5)) {
    state.winner = seat;
  } else {
    state.turn = seat === 1 ? 2 : 1;
  }
  return null;
}
