//! ratings: the service that keeps Elo ratings per rule set and their leaderboards. Only
//! game-state reports results (idempotently, once per game id); the gateway reads.
//!
//! # Layout
//! - [`elo`]: the rating arithmetic, pure (two players and free-for-all tables).
//! - [`model`]: request validation.
//! - [`service`]: the `Ratings` gRPC service over the store's `RatingStore`.
//! - [`error`]: every refusal and its gRPC status.
#![forbid(unsafe_code)]

pub mod elo;
pub mod error;
pub mod model;
pub mod service;

use std::future::Future;

use ludus_proto::pb::ratings_server::RatingsServer;
use ludus_store::{Backend, RatingStore};
use tokio::net::TcpListener;

pub use service::RatingsService;

/// What ratings needs to run.
#[derive(Clone, Debug)]
pub struct Config {
    /// The session store (Redis, or in-memory for the all-in-one binary).
    pub backend: Backend,
}

/// Serves ratings on `listener` until `shutdown` completes.
pub async fn run(
    config: Config,
    listener: TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    let reachable = config.backend.reachability(Backend::PROBE_PERIOD);
    let service = RatingsService::new(RatingStore::new(config.backend));
    let server = RatingsServer::new(service)
        .max_decoding_message_size(ludus_server::server::MAX_DECODING_MESSAGE_SIZE);
    ludus_server::serve_while_ready(server, listener, shutdown, reachable).await
}
