//! The gateway: the one public API of Ludus. Every call is authenticated from its bearer
//! token, validated, and forwarded over gRPC to the internal service that owns it; game
//! events stream to players and spectators from one Redis subscription per game per gateway
//! process.
//!
//! # Layout
//! - [`accounts`]: register, sign in, refresh, sign out, guest upgrade, profiles (forwarded
//!   to the accounts service; the gateway mints the access tokens).
//! - [`auth`]: signed session tokens; the caller's identity comes only from the token.
//! - [`service`]: the `Gateway` gRPC service.
//! - [`computer`]: games against the computer (`PlayComputer`) and take-backs (ARCHITECTURE.md, "Computer players").
//! - [`fanout`]: `Subscribe` — log then live events, no gap, no duplicate.
//! - [`game_state`]: game-state as the gateway calls it (its handlers directly when it runs
//!   in this process).
//! - [`rooms`]: the room RPCs (forwarded to the rooms service) and `SubscribeRoom`.
//! - [`limits`]: per-player rate limits (RESOURCE_EXHAUSTED).
//! - [`web`]: grpc-web and CORS for browsers, on the same port.
//! - [`refusal`]: the gateway's own refusals with their rich error details.
#![forbid(unsafe_code)]

pub mod accounts;
pub mod auth;
pub mod computer;
pub mod fanout;
pub mod game_state;
mod inline;
pub mod limits;
pub mod presence;
pub mod refusal;
pub mod rooms;
pub mod service;
pub mod web;

use std::{future::Future, sync::Arc, time::Duration};

use ludus_proto::pb::{
    gateway_server::GatewayServer, matchmaking_client::MatchmakingClient,
    ratings_client::RatingsClient, rooms_client::RoomsClient,
};
use ludus_store::{Backend, GameFeed, GameStore, RoomStore};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

pub use auth::Tokens;
pub use service::GatewayService;

/// Largest request a client may send: every public request is small, so anything bigger is
/// refused (RESOURCE_EXHAUSTED) before it is decoded.
pub const MAX_REQUEST_BYTES: usize = 64 * 1024;

/// What the gateway needs to run.
#[derive(Clone, Debug)]
pub struct Config {
    /// The session store (for live events).
    pub backend: Backend,
    pub game_state_url: String,
    pub matchmaking_url: String,
    pub ratings_url: String,
    /// accounts: registration, sign-in, sessions, profiles.
    pub accounts_url: String,
    /// rooms: friend tables with codes (ARCHITECTURE.md, "Rooms").
    pub rooms_url: String,
    /// HS256 secret for session tokens, at least 32 bytes.
    pub token_secret: Vec<u8>,
    pub token_ttl: Duration,
    /// How long an account's access token lives ([`auth::ACCESS_TOKEN_TTL`] in production;
    /// shorter only to test clients' refresh).
    pub access_token_ttl: Duration,
    /// Origins of web pages allowed to call the gateway with grpc-web (CORS), e.g.
    /// `http://localhost:8080`; none by default.
    pub cors_origins: Vec<String>,
    /// Guest sign-ins per second for this process ([`limits::SignInLimit::default`] unless
    /// a benchmark raises it).
    pub sign_ins: limits::SignInLimit,
    /// Each player's call rate ([`limits::PlayerLimit::default`] in production).
    pub per_player: limits::PlayerLimit,
    /// How long this gateway's lease over its seated streams lasts unless renewed
    /// ([`presence::DEFAULT_LEASE`]): a dead gateway's players are declared disconnected
    /// within about 4/3 of it.
    pub presence_lease: Duration,
    /// What "now" is for the room streams' presence heartbeat and the session tokens' terms;
    /// tests pass a manual clock.
    pub clock: ludus_store::Clock,
    /// What the presence leases run on ([`ludus_store::Clock::system`], also in tests that
    /// move `clock`: moving game time must not make every live gateway look dead).
    pub lease_clock: ludus_store::Clock,
    /// The public certificate: with it the port serves TLS only (gRPC and grpc-web), reloaded
    /// as its files change; without it, plain h2c (TLS ends in front of the gateway then, see
    /// deploy/README.md).
    pub tls: Option<ludus_server::ServerTls>,
}

/// Serves the gateway on `listener` until `shutdown` completes; open streams then end with a
/// resumable UNAVAILABLE.
pub async fn run(
    config: Config,
    listener: TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    let cors_origins = config
        .cors_origins
        .iter()
        .map(|origin| web::parse_origin(origin))
        .collect::<Result<Vec<_>, _>>()?;
    let config_tls = config.tls.clone();
    let stopping = CancellationToken::new();
    // Stops the idle-limit sweeper (and ends open streams) even if this future is dropped
    // instead of completing, or setup below fails after the sweeper started.
    let _stop_on_drop = stopping.clone().drop_guard();
    let limits = limits::Limits::configured(config.per_player, config.sign_ins);
    let forget = limits.clone();
    let stop_forgetting = stopping.clone();
    tokio::spawn(async move {
        let mut every = tokio::time::interval(Duration::from_secs(60));
        loop {
            tokio::select! {
                () = stop_forgetting.cancelled() => return,
                _ = every.tick() => forget.forget_idle(),
            }
        }
    });
    let game_state = game_state::GameStateLink::new(&config.game_state_url)?;
    let leases = Arc::new(presence::PresenceLeases::new(
        config.backend.clone(),
        config.presence_lease,
        config.lease_clock.clone(),
        game_state.clone(),
    ));
    let (renewing, stop_renewing) = (leases.clone(), stopping.clone());
    tokio::spawn(async move { renewing.run(stop_renewing).await });
    let service = GatewayService {
        leases,
        tokens: Tokens::new(&config.token_secret, config.token_ttl, config.clock.clone())?
            .with_access_ttl(config.access_token_ttl),
        game_state,
        matchmaking: MatchmakingClient::new(ludus_server::traced_channel(&config.matchmaking_url)?),
        ratings: RatingsClient::new(ludus_server::traced_channel(&config.ratings_url)?),
        accounts: ludus_proto::pb::accounts_client::AccountsClient::new(
            ludus_server::traced_channel(&config.accounts_url)?,
        ),
        rooms: rooms::RoomsGateway::new(
            RoomsClient::new(ludus_server::traced_channel(&config.rooms_url)?),
            RoomStore::new(config.backend.clone()),
            config.clock.clone(),
        ),
        games: GameStore::new(config.backend.clone()),
        feed: GameFeed::new(config.backend),
        limits,
        stopping: stopping.clone(),
    };
    let server = GatewayServer::new(service).max_decoding_message_size(MAX_REQUEST_BYTES);
    let server = web::WebEnabled::new(server, cors_origins);
    let shutdown = async move {
        shutdown.await;
        stopping.cancel();
    };
    // No connection rotation: mobile clients hold event streams for whole games.
    ludus_server::serve_with(server, None, config_tls, listener, shutdown).await
}
