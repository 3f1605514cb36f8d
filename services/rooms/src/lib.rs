//! rooms: friend tables with six-character codes (ARCHITECTURE.md, "Rooms"): seats and teams, spectators,
//! host settings, countdowns, rematches, knockout tournaments, chat and room scoreboards. A
//! room's games are ordinary games created through game-state; a room's state lives in the
//! session store with the games' commit discipline (a seq, compare-and-set in one script, an
//! event log, pub/sub), so any number of replicas serve the same rooms.
//!
//! # Layout
//! - [`code`]: room codes (C16): an alphabet without look-alikes, shown as "K7M 4QP".
//! - [`settings`]: the host's choices, checked against each game's rules via the catalog.
//! - [`room`]: the room state machine, pure: seats, host, ready, first movers (C10, C11),
//!   countdowns (Q29), the bracket (Q24), the scoreboard (Q30-Q36), chat.
//! - [`error`]: [`RoomError`], the model's refusals with their `ErrorInfo` reasons.
//! - [`model`]: proto <-> domain.
//! - [`service`]: the `Rooms` gRPC service over the store's `RoomStore`.
#![forbid(unsafe_code)]

pub mod code;
pub mod error;
pub mod model;
pub mod room;
pub mod service;
pub mod settings;

use std::future::Future;

use ludus_proto::pb::{game_state_client::GameStateClient, rooms_server::RoomsServer};
use ludus_store::{Backend, Clock, RoomStore, TimerStore};
use tokio::net::TcpListener;

pub use code::RoomCode;
pub use error::RoomError;
pub use room::{Caller, Change, Phase, Room, Team};
pub use service::RoomsService;
pub use settings::{FirstMover, RoomMode, RoomSettings};

/// What rooms needs to run.
#[derive(Clone, Debug)]
pub struct Config {
    /// The session store (rooms, their logs, countdown timers).
    pub backend: Backend,
    /// game-state, where the rooms' games are created, e.g. `http://game-state:50051`.
    pub game_state_url: String,
    /// What "now" is (countdowns, chat rates, expiry); tests pass a manual clock.
    pub clock: Clock,
}

/// Serves rooms on `listener` until `shutdown` completes.
pub async fn run(
    config: Config,
    listener: TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    let reachable = config.backend.reachability(Backend::PROBE_PERIOD);
    let service = RoomsService {
        store: RoomStore::new(config.backend.clone()),
        timers: TimerStore::new(config.backend),
        game_state: GameStateClient::new(ludus_server::traced_channel(&config.game_state_url)?),
        clock: config.clock,
    };
    let server = RoomsServer::new(service)
        .max_decoding_message_size(ludus_server::server::MAX_DECODING_MESSAGE_SIZE);
    ludus_server::serve_while_ready(server, listener, shutdown, reachable).await
}
