//! Backgammon rules for Ludus: B1-B22 of `shared/rules/backgammon.md`, as a pure library.
//!
//! A turn is one [`Action::Play`] holding every checker move of the roll. The library lists
//! the distinct legal plays of a roll (plays reaching the same position are one) and checks
//! any play a client sends, naming the rule it breaks. Dice are rolled inside
//! [`ludus_rules::Game::apply`] of [`Action::Roll`] from the server's random source; the state
//! never holds future dice. The cube, beavers, automatic doubles, the Jacoby rule, gammons,
//! resignations and match play with the Crawford rule are all here, and positions read and
//! write gnubg's Position ID and Match ID.
//!
//! ```
//! use ludus_backgammon::{Action, Backgammon, BackgammonOptions};
//! use ludus_rules::{Game, ScriptedRandom};
//!
//! // Opening roll: white 3, black 1 — white plays 3-1.
//! let mut rng = ScriptedRandom::new([2, 0]);
//! let game = Backgammon::setup(BackgammonOptions::default(), 2, &mut rng).unwrap();
//! assert_eq!(game.dice(), Some([3, 1]));
//! let play = game.parse_action("8/5 6/5").unwrap();
//! let game = game.apply(0, &play, &mut rng).unwrap();
//! assert_eq!(game.to_move(), Some(1));
//! ```
//!
//! # Layout
//! - [`board`]: checkers, single-die steps (B5, B9-B11), pips, gammons (B16).
//! - [`play`]: moves and plays, legal play generation and checking (B6-B10).
//! - [`game`]: [`Backgammon`], the turn, the cube (B14-B19), results, timeouts (B20),
//!   resignations (B21) and the [`ludus_rules::Game`] contract.
//! - [`matchplay`]: [`Match`], scoring to N points with the Crawford rule (B22).
//! - [`session`]: [`BackgammonSession`], a money game or a whole match as one hosted game (B22).
//! - [`notation`]: reading `24/18 13/11`, `bar/22`, `8/2(2)`, `double`…
//! - [`gnubg`]: Position ID and Match ID.
//! - [`bot`]: the computer players (Easy, Normal, Hard: checker play and cube decisions in
//!   money and match play); the Normal level plays on timeout (B20).
//! - [`options`], [`view`], [`action`], [`error`]: the public types the services map.
#![forbid(unsafe_code)]

pub mod action;
pub mod board;
pub mod bot;
pub mod error;
pub mod game;
pub mod gnubg;
pub mod matchplay;
pub mod notation;
pub mod options;
pub mod play;
pub mod session;
pub mod view;

pub use action::{Action, ResignLevel};
pub use board::Board;
pub use error::BackgammonError;
pub use game::{Backgammon, Phase};
pub use matchplay::{MATCH_LENGTHS, Match};
pub use options::{BackgammonOptions, MatchGame};
pub use play::{Dice, Move, Play};
pub use session::BackgammonSession;
pub use view::{BackgammonView, DoubleOffer, LastPlay, ResignationOffer, ViewPhase};
