//! The rooms service of Ludus (issue 14): friend tables with six-character codes, seats and
//! teams, spectators, host settings, countdowns, rematches, knockout tournaments, chat and
//! room scoreboards. A room's games are ordinary games created through game-state.
//!
//! # Layout
//! - [`code`]: room codes (C16): an alphabet without look-alikes, shown as "K7M 4QP".
//! - [`settings`]: the host's choices, checked against each game's rules via the catalog.
//! - [`room`]: the room state machine, pure: seats, host, ready, first movers (C10, C11),
//!   countdowns (Q29), the bracket (Q24), the scoreboard (Q30-Q36), chat.
//! - [`error`]: [`RoomError`], the model's refusals with their `ErrorInfo` reasons.
#![forbid(unsafe_code)]

pub mod code;
pub mod error;
pub mod room;
pub mod settings;

pub use code::RoomCode;
pub use error::RoomError;
pub use room::{Caller, Change, Phase, Room, Team};
pub use settings::{FirstMover, RoomMode, RoomSettings};
