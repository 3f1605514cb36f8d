//! Quoridor ("Rào chắn") rules for Ludus: rules Q1-Q36 of `shared/rules/quoridor.md`.
//!
//! Pawns race across a 9×9, 11×11 or 13×13 board (or to its center) while players place
//! walls that may slow anyone but never shut anyone in. Two to eight players play
//! free-for-all, two teams share a pawn each, or a knockout tournament plays classic
//! matches. [`Quoridor`] implements [`ludus_rules::Game`]; everything is pure (no I/O,
//! clock or global randomness) and the stored state is compact JSON.
//!
//! # Layout
//! - [`Quoridor`] (`game`): setup, turns, walls, the blocking rule, timeouts, resignation,
//!   outcome with Q30-Q36 points, and the [`QuoridorView`].
//! - [`QuoridorOptions`], [`Mode`], [`GoalKind`], [`Walls`], [`Team`] (`options`): the host's choices.
//! - [`QuoridorAction`], [`Cell`], [`Wall`] (`notation`): the standard notation — cells `a1`… with
//!   rank 1 at the bottom, walls `e3h`/`e3v`, and `pass`.
//! - [`QuoridorError`] (`error`): why an action was refused, naming the rule.
//! - [`score`] (`score`): Q31-Q32 points from distances.
//! - [`Bracket`] (`bracket`): the knockout tournament, Q24 and Q35.
//! - `bot`: the computer players (ARCHITECTURE.md, "Computer players"), [`ludus_rules::Bot`] for [`Quoridor`].
//! - `board`, `bits`: walls and paths on 256-bit bitboards; wall legality (Q15 for every
//!   pawn) is a flood fill only for the few walls that could matter.
//!
//! # Example
//! ```
//! use ludus_quoridor::{QuoridorOptions, Quoridor};
//! use ludus_rules::{Game, SplitMix64};
//! let mut rng = SplitMix64(7);
//! let mut g = Quoridor::setup(QuoridorOptions::default(), 2, &mut rng).unwrap();
//! while g.outcome().is_none() {
//!     let seat = g.to_move().unwrap();
//!     // Always step: the first legal action is a pawn move here.
//!     let a = g.legal_actions(seat)[0];
//!     g = g.apply(seat, &a, &mut rng).unwrap();
//! }
//! assert!(g.outcome().is_some());
//! ```
#![forbid(unsafe_code)]

mod bits;
mod board;
mod bot;
mod bracket;
mod error;
mod game;
mod notation;
mod options;
mod score;
mod view;

pub use bracket::{Bracket, BracketError, BracketMatch, MatchDecision, MatchResult, PlayerId};
pub use error::QuoridorError;
pub use game::{POINTS_CHAMPION, POINTS_MATCH_WON, POINTS_WIN_BY_LEAVING, Quoridor, move_limit};
pub use notation::{Cell, NotationError, Orientation, QuoridorAction, Wall};
pub use options::{
    Colour, GoalKind, Mode, QuoridorOptions, SIZES, Team, WALL_CHOICES, Walls, auto_walls,
};
pub use score::score;
pub use view::{Edge, LastAction, PawnGoal, PawnView, PlacedWall, QuoridorView};
