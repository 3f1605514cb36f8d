//! accounts: registered players, their sessions and their profiles, kept in SQL (SQLite for
//! the all-in-one binary, PostgreSQL in production). Only the gateway calls it: the gateway
//! mints the short-lived access tokens; accounts checks passwords (Argon2id), hands out
//! refresh tokens (256 random bits, stored as SHA-256 digests, single use, rotated on every
//! refresh, a reused one revokes its whole family) and limits failed sign-ins per username
//! and per client address. Live games never depend on it: with the database down, sign-in
//! answers UNAVAILABLE and play goes on.
//!
//! # Layout
//! - [`archive`]: finished games as the archive keeps them (results, records, page tokens).
//! - [`config`]: what `run` needs and the defaults.
//! - [`model`]: validated values (usernames, passwords, refresh tokens) and proto mapping.
//! - [`passwords`]: Argon2id hashing on the blocking pool.
//! - [`limits`]: failed sign-in limits (governor), per username and per address.
//! - [`store`]: the SQL store, the only I/O (sqlx, embedded migrations).
//! - [`service`]: the `Accounts` gRPC service.
//! - [`error`]: every refusal and its gRPC status.
//! - `conformance`, `testing` (feature `testing`): the store suite both databases pass, and a
//!   throwaway PostgreSQL server for tests.
#![forbid(unsafe_code)]

pub mod archive;
pub mod config;
#[cfg(feature = "testing")]
pub mod conformance;
pub mod error;
pub mod fair;
pub mod limits;
pub mod model;
pub mod passwords;
pub mod service;
pub mod store;
#[cfg(feature = "testing")]
pub mod testing;

use std::{future::Future, time::Duration};

use ludus_proto::pb::accounts_server::AccountsServer;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

pub use config::Config;
pub use service::AccountsService;
pub use store::AccountStore;

/// How often idle sign-in limit entries are forgotten.
const FORGET_IDLE_EVERY: Duration = Duration::from_secs(60);

/// Serves accounts on `listener` until `shutdown` completes.
pub async fn run(
    config: Config,
    listener: TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    let limits = limits::SignInLimits::new(config.sign_in_limits, config.clock.clone());
    let service = AccountsService::new(
        config.store,
        limits.clone(),
        config.refresh_ttl,
        config.clock,
    );
    service.prepare().await?;
    let stopping = CancellationToken::new();
    // Dropped when `run` returns, so the trimming task cannot outlive the server.
    let _stop_trimming = stopping.clone().drop_guard();
    tokio::spawn(async move {
        let mut every = tokio::time::interval(FORGET_IDLE_EVERY);
        loop {
            tokio::select! {
                () = stopping.cancelled() => return,
                _ = every.tick() => limits.forget_idle(),
            }
        }
    });
    let server = AccountsServer::new(service)
        .max_decoding_message_size(ludus_server::server::MAX_DECODING_MESSAGE_SIZE);
    ludus_server::serve(server, listener, shutdown).await
}
