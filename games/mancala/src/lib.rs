//! Mancala for Ludus: the pure rules of Kalah (M1–M13) and Congklak (K1–K5) from
//! `shared/rules/mancala.md`, plus an exact solver for Kalah positions.
//!
//! The game-state service hosts [`Mancala`] through the [`ludus_rules::Game`] trait: it sets a
//! game up from [`MancalaOptions`], reads actions in the standard notation (the pit number
//! `1`–`6`, `1`–`7` in Congklak, counted from the mover's side as in M1), applies [`Sow`]s and
//! shows every viewer a [`MancalaView`], including the path of the last sow so clients can
//! animate it. The analysis RPC uses [`Solver`], which gives the game-theoretic final margin of
//! a Kalah position and the value of each legal sow, exactly or within a node budget.
//!
//! ```
//! use ludus_mancala::{Mancala, MancalaOptions, FirstPlayer};
//! use ludus_rules::{Game, ScriptedRandom};
//!
//! let options = MancalaOptions { first: FirstPlayer::Seat0, ..Default::default() };
//! let mut rng = ScriptedRandom::new([]);
//! let game = Mancala::setup(options, 2, &mut rng).unwrap();
//! // M5: pit 3 holds 4 seeds, the fourth lands in the store, so seat 0 sows again.
//! let sow = game.parse_action("3").unwrap();
//! let game = game.apply(0, &sow, &mut rng).unwrap();
//! assert_eq!(game.to_move(), Some(0));
//! assert_eq!(game.board().store(0), 1);
//! ```
//!
//! # Layout
//! - [`board`]: the rule sets, the board, and the one sowing engine both rule sets share
//!   (M4–M6; relay sowing K2 and capture K3 switch on with Congklak).
//! - [`game`]: [`Mancala`], the [`ludus_rules::Game`] implementation — turns, extra turns, the
//!   end of the game (M7–M10, K4–K5), options, actions, errors and the view.
//! - [`solver`]: [`Solver`], an MTD(f) alpha-beta solver with a transposition table for Kalah
//!   positions ([`KalahPosition`]), exact or within a node budget.
#![forbid(unsafe_code)]

pub mod board;
mod book;
pub mod bot;
pub mod egdb;
pub mod game;
pub mod solver;

pub use board::{Board, LastSeed, RuleSet, SowLap, Spot};
pub use egdb::EndgameDb;
pub use game::{
    FirstPlayer, Mancala, MancalaError, MancalaOptions, MancalaView, PositionError, SOW_LIMIT, Sow,
    SowRecord,
};
pub use solver::{KalahPosition, MoveValue, Solution, Solver, SolverReport};
