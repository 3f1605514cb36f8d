//! What a viewer sees. Quoridor has no hidden information, so every viewer sees the same
//! position; only [`QuoridorView::you`] differs.

use ludus_rules::{Outcome, Seat};
use serde::{Deserialize, Serialize};

use crate::notation::{Cell, QuoridorAction, Wall};
use crate::options::{Colour, GoalKind, Mode};

/// A board edge.
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug, Serialize, Deserialize)]
pub enum Edge {
    /// Rank N (Q1 row 0).
    Top,
    /// Rank 1 (Q1 row N-1).
    Bottom,
    /// File `a`.
    Left,
    /// The last file.
    Right,
}

/// Where one pawn must go (Q5-Q7, Q9).
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug, Serialize, Deserialize)]
pub enum PawnGoal {
    /// Any cell of this edge.
    Edge(Edge),
    /// The center cell.
    Center,
}

/// One pawn (one side: a player, or a team in team mode).
#[derive(Clone, Eq, PartialEq, Debug, Serialize, Deserialize)]
pub struct PawnView {
    /// Side index: the seat in free-for-all and tournament matches, 0 = red / 1 = yellow in
    /// team mode.
    pub side: usize,
    /// Q4 colour.
    pub colour: Colour,
    /// The cell it stands on (for a pawn that left the game: where it stood).
    pub cell: Cell,
    /// Its goal.
    pub goal: PawnGoal,
    /// The seats that play this pawn, in turn order (one seat outside team mode); seats
    /// that left are gone from the list.
    pub seats: Vec<Seat>,
    /// Walls still in hand (Q16, Q27).
    pub walls_left: u8,
    /// Moves this pawn has made toward the Q18 limit (passes and timed-out turns count).
    pub moves: u32,
    /// Fewest steps to its goal around walls, ignoring pawns (Q30); `None` once it left.
    pub distance: Option<u32>,
    /// False once its player (or every member of its team) left the game.
    pub in_game: bool,
}

/// A wall on the board, in the order placed.
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug, Serialize, Deserialize)]
pub struct PlacedWall {
    /// The slot.
    pub wall: Wall,
    /// The side that placed it; `None` for walls of an arranged position.
    pub side: Option<usize>,
}

/// The latest accepted action, so clients can highlight it (Q37).
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug, Serialize, Deserialize)]
pub struct LastAction {
    /// Who acted (on a timeout: whose clock ran out).
    pub seat: Seat,
    /// The side that acted.
    pub side: usize,
    /// What was played.
    pub action: QuoridorAction,
    /// The pawn it moved came from here (for a move), so clients can animate it.
    pub from: Option<Cell>,
    /// True when the server played it because the clock ran out (Q19, Q21).
    pub automatic: bool,
}

/// The position as one viewer sees it.
#[derive(Clone, Eq, PartialEq, Debug, Serialize, Deserialize)]
pub struct QuoridorView {
    /// Board size N.
    pub size: u8,
    /// The game's mode.
    pub mode: Mode,
    /// Edge or center goal.
    pub goal: GoalKind,
    /// Every pawn, by side index.
    pub pawns: Vec<PawnView>,
    /// Every placed wall, oldest first.
    pub walls: Vec<PlacedWall>,
    /// The latest action, if any.
    pub last_action: Option<LastAction>,
    /// The seat to act; `None` once the game is over.
    pub to_move: Option<Seat>,
    /// The side to act; `None` once the game is over.
    pub side_to_move: Option<usize>,
    /// The viewer's side, if the viewer is seated (and still has a side).
    pub you: Option<usize>,
    /// Q18 limit: moves per pawn before the game is drawn.
    pub move_limit: u32,
    /// Actions applied so far, automatic ones included.
    pub ply: u32,
    /// How the game ended, once it has.
    pub outcome: Option<Outcome>,
}
