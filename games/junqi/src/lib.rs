//! The rules of Flip Junqi ("Cờ quân sự úp"), army chess played face down, as J1-J22 of
//! `shared/rules/junqi.md` define them: a pure library the game-state service hosts through
//! [`ludus_rules::Game`].
//!
//! The state ([`Junqi`]) holds the hidden layout and is for the server only; clients get a
//! [`JunqiView`], which shows a face-down piece as nothing but "face down" and is built from
//! public facts alone, so it can never leak the layout (J22).
//!
//! # Layout
//! - [`board`]: points and J2 notation, camps, headquarters, roads and railways (J2-J5).
//! - [`piece`]: colours, ranks and the combat table (J1, J12-J15).
//! - [`action`]: flips and moves in notation (`c6`, `c6-c7`).
//! - [`game`]: the state, setup, movement, combat, the end and autoplay (J6-J19).
//! - [`bot`]: the computer players, Beginner, Normal and Expert (J20), deciding from the view.
//! - [`setup`]: hand-built positions for tests and puzzles.
//! - [`view`]: what one viewer sees, with the piece statistics (J21).
//! - [`error`]: refusals, each naming its rule.
//!
//! ```
//! use ludus_junqi::{Junqi, JunqiOptions};
//! use ludus_rules::{Game, SplitMix64, Viewer};
//!
//! let mut rng = SplitMix64(7);
//! let game = Junqi::setup(JunqiOptions::default(), 2, &mut rng).unwrap();
//! let seat = game.to_move().unwrap();
//! // J8: before colours are settled the only actions are the 50 flips.
//! assert_eq!(game.legal_actions(seat).len(), 50);
//! let flip = game.parse_action("c6").unwrap();
//! let game = game.apply(seat, &flip, &mut rng).unwrap();
//! assert!(game.view(Viewer::Spectator).points.iter().any(|p| p.is_face_up()));
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod action;
pub mod board;
pub mod bot;
pub mod error;
pub mod game;
pub mod piece;
pub mod setup;
pub mod view;

pub use action::Action;
pub use board::Point;
pub use bot::decide;
pub use error::JunqiError;
pub use game::{Cell, DRAW_LIMIT, Junqi, JunqiOptions};
pub use piece::{Colour, CombatError, CombatResult, Piece, Rank, combat};
pub use setup::JunqiSetup;
pub use view::{Event, JunqiView, LastAction, PieceStats, PointView};
