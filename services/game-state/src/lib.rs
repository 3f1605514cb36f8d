//! game-state: the service that owns live games. It checks every action against the game's
//! rules, commits state, event and clock in one atomic step, keeps each game's durable event
//! log, and applies each game's clock policy when a turn timer fires.
//!
//! # Layout
//! - the games themselves (`LiveGame`, each game's proto mapping, rule sets, table policy)
//!   come from `ludus-catalog`.
//! - [`model`]: the stored record of a live game and request validation.
//! - [`service`]: the `GameState` gRPC service, layered from the gRPC trait down through the
//!   handlers and the commit path to the model (see its layout).
//! - [`ratings`]: reporting finished games to the ratings service.
//! - [`archive`]: archiving finished games (accounts' `RecordGames`) before their keys expire.
//! - [`ends`]: the archive records and rating reports of ended games, written in batches.
//! - [`error`]: every refusal and its gRPC status.
//! - `test_seams` (only with the `test-seams` feature, for end-to-end tests): games that start
//!   from a chosen position.
#![forbid(unsafe_code)]

pub mod archive;
pub mod ends;
pub mod error;
mod metrics;
pub mod model;
pub mod ratings;
pub mod service;
#[cfg(feature = "test-seams")]
pub mod test_seams;

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use ludus_proto::pb::{
    accounts_client::AccountsClient,
    game_state_server::{GameState, GameStateServer},
    ratings_client::RatingsClient,
    rooms_client::RoomsClient,
};
use ludus_store::{Backend, Clock, GameStore, TimerStore};
use tokio::net::TcpListener;
use tonic::server::NamedService as _;

pub use service::{DEFAULT_FINISHED_GAME_RETENTION, GameStateService};

/// What game-state needs to run.
#[derive(Clone, Debug)]
pub struct Config {
    /// The session store (Redis, or in-memory for the all-in-one binary). game-state arms
    /// and cancels its timers in it directly; the timers service fires them.
    pub backend: Backend,
    /// The ratings service, e.g. `http://ratings:50054`.
    pub ratings_url: String,
    /// The accounts service, which archives finished games, e.g. `http://accounts:50055`.
    pub accounts_url: String,
    /// The rooms service, told when a room's game ends (ARCHITECTURE.md, "Rooms"), e.g.
    /// `http://rooms:50056`; `None` when no rooms run (games created by a room then finish
    /// without telling it).
    pub rooms_url: Option<String>,
    /// How long a disconnected player has to come back in a game with a disconnection rule
    /// ([`DEFAULT_ABSENCE_GRACE`]).
    pub absence_grace: Duration,
    /// How long a finished game stays readable (snapshot, events) before its keys expire
    /// ([`DEFAULT_FINISHED_GAME_RETENTION`]).
    pub finished_game_retention: Duration,
    /// The clock of deadlines and event times ([`Clock::system`]; tests pass a manual one).
    pub clock: Clock,
    /// How many decoded games the replica keeps between moves (the live-game cache,
    /// [`service::DEFAULT_LIVE_CACHE_GAMES`]; 0 turns it off).
    pub live_cache_games: usize,
}

/// C13: a disconnected player has one minute to come back.
pub const DEFAULT_ABSENCE_GRACE: Duration = Duration::from_secs(60);

/// Serves game-state on `listener` until `shutdown` completes.
pub async fn run(
    config: Config,
    listener: TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    let ratings = RatingsClient::new(ludus_server::traced_channel(&config.ratings_url)?);
    let accounts = AccountsClient::new(ludus_server::traced_channel(&config.accounts_url)?);
    let reachable = config.backend.reachability(Backend::PROBE_PERIOD);
    let service = GameStateService::new(
        GameStore::new(config.backend.clone()),
        TimerStore::new(config.backend),
        ratings::OutcomeReporter::new(ratings),
        u64::try_from(config.absence_grace.as_millis()).unwrap_or(u64::MAX),
    )
    .finished_game_retention(config.finished_game_retention)
    .live_cache(config.live_cache_games)
    .clock(config.clock)
    .archive(archive::Archiver::new(accounts));
    let service = match &config.rooms_url {
        Some(url) => service.rooms(RoomsClient::new(ludus_server::traced_channel(url)?)),
        None => service,
    };
    // In one process with the gateway (the all-in-one), its calls reach these handlers
    // without encoding (`ludus_server::local`, "Typed calls on the hot path"); the offer is
    // taken back when the shutdown starts, as the port's local stack is.
    let offer = listener.local_addr().ok().map(|address| {
        let handlers: Arc<dyn GameState> = Arc::new(service.clone());
        ludus_server::local::offer(address, GameStateServer::<GameStateService>::NAME, handlers)
    });
    let shutdown = async move {
        shutdown.await;
        drop(offer);
    };
    let server = GameStateServer::new(service)
        .max_decoding_message_size(ludus_server::server::MAX_DECODING_MESSAGE_SIZE);
    ludus_server::serve_while_ready(server, listener, shutdown, reachable).await
}
