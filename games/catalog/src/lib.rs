//! The game catalog: what every Ludus service knows about the games, in one place.
//!
//! game-state hosts games through it; matchmaking queues them with it; rooms, bots and
//! accounts read the same table policies. No service crate depends on another service crate:
//! what they share about games lives here, on top of the pure rules crates (`games/*`) and
//! the contract (`ludus-proto`).
//!
//! # Layout
//! - [`GameKind`]: the hosted games, and [`GameKind::of`] the game a request's settings name.
//! - [`hosting`]: one object-safe interface over every game's rules ([`LiveGame`]), built
//!   from each game's proto mapping ([`Hosting`]) by [`Hosted`]; [`setup`] and [`load`].
//! - [`games`]: each game's proto mapping: options, actions, views, rule-set names.
//! - [`policy`]: each game's [`TablePolicy`] (seats, clocks, take-backs, what its rooms
//!   offer, rating), rating pools, quick-match queues ([`QuickMatch`], [`QuickMatchClocks`])
//!   and friend rooms' games ([`room_game`], [`TableMode`], the Q24 [`policy::Bracket`]).
//! - [`options`]: every game's options described for clients (`ListGameOptions`), from the
//!   constants the settings are validated with.
//! - [`outcome`]: seats and outcomes in the contract.
//! - [`CatalogError`]: "these settings / this action are not valid".
//!
//! # Errors
//! Every refusal is a [`CatalogError`]; `From<CatalogError> for tonic::Status` is the one
//! place it becomes a gRPC status (INVALID_ARGUMENT, FAILED_PRECONDITION for rules refusals,
//! INTERNAL). The catalog depends on tonic for that impl alone, so that services wrap it
//! (`ServiceError::Catalog`) and convert it without re-mapping variants, and a change to the
//! mapping (rich error details, say) is made once.
//!
//! # Features
//! `grpc` (default) is that impl. Without it the catalog builds for wasm32-unknown-unknown:
//! the offline client (`clients/offline`) maps its games' views, actions and outcomes with
//! the same [`Hosting`] impls the server uses, so the browser decodes one format online and
//! offline.
#![forbid(unsafe_code)]

pub mod bots;
mod error;
pub mod games;
pub mod hosting;
mod kind;
pub mod options;
pub mod outcome;
pub mod policy;

pub use bots::{BotChoice, SeatPosition};
pub use error::CatalogError;
pub use hosting::{AppliedAction, Hosted, Hosting, LiveGame, RuleError, load, setup};
pub use kind::GameKind;
pub use outcome::{outcome_to_pb, seat_u32};
pub use policy::{
    CASUAL_QUEUE_SUFFIX, ClockChoices, FriendClock, QuickMatch, QuickMatchClocks, TableMode,
    TablePolicy, Team, is_casual_queue, rating_pool, room_game, table_mode, table_policy,
    table_seats, team_game, tournament_game,
};
