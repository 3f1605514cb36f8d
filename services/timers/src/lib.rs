//! timers: durable deadlines. The rooms service arms its countdowns (Q29) the same way, and
//! the worker calls `Rooms.FireCountdown` for them. game-state writes its turn clocks, result reports and absence
//! graces straight into the store's `{timers:N}` keys (`ludus_store::TimerStore`); the `Arm` and
//! `Cancel` RPCs write the same keys for other callers. A worker in every replica claims due
//! timers atomically and calls their owner.
//!
//! Every armed timer fires at least once: a claim only hides a timer for a visibility timeout,
//! and it is deleted after the owner answered, so a crashed worker's timers fire again. No
//! timer fires twice at the same time (the claim is one atomic script). Owners make firing
//! idempotent (`ExpireTurn` ignores a stale `turn_seq`).
//!
//! # Layout
//! - [`service`]: the `Timers` gRPC service (arm, cancel).
//! - [`worker`]: the claim-and-fire loop.
//! - [`backlog`]: the armed and due gauges.
#![forbid(unsafe_code)]

pub mod backlog;
pub mod service;
pub mod worker;

use std::{future::Future, sync::Arc, time::Duration};

use ludus_proto::pb::{
    bots_client::BotsClient, game_state_client::GameStateClient, rooms_client::RoomsClient,
    timers_server::TimersServer,
};
use ludus_store::{Backend, Clock, TimerStore};
use tokio::{net::TcpListener, sync::Notify};
use tokio_util::sync::CancellationToken;

pub use service::TimersService;

/// How long a claimed timer stays hidden from other workers before it fires again.
pub const DEFAULT_VISIBILITY: Duration = Duration::from_secs(10);
/// The longest a worker sleeps before looking again: game-state and other replicas arm timers
/// without waking it, so a timer due sooner than this after it was armed (the outcome report,
/// due at once) can fire up to this late.
pub const DEFAULT_POLL: Duration = Duration::from_millis(250);
/// Timers claimed per round.
pub const CLAIM_BATCH: usize = 64;

/// What timers needs to run.
#[derive(Clone, Debug)]
pub struct Config {
    /// The session store.
    pub backend: Backend,
    /// game-state, the owner of turn clocks, e.g. `http://game-state:50051`.
    pub game_state_url: String,
    /// rooms, the owner of room countdowns (Q29), e.g. `http://rooms:50056`; without it a
    /// room countdown that comes due is refused (deleted) with an error in the log.
    pub rooms_url: Option<String>,
    /// bots, the owner of computer turns (ARCHITECTURE.md, "Computer players"), e.g. `http://bots:50057`: one URL per
    /// replica or one for a load-balanced service. A bot turn is offered to them in turn,
    /// the next one when a replica is unreachable; with none configured it waits (fires
    /// again) until one is.
    pub bots_urls: Vec<String>,
    /// See [`DEFAULT_VISIBILITY`].
    pub visibility: Duration,
    /// See [`DEFAULT_POLL`].
    pub poll: Duration,
    /// The clock deadlines are due by ([`Clock::system`]; tests pass a manual one).
    pub clock: Clock,
}

impl Config {
    pub fn new(backend: Backend, game_state_url: impl Into<String>) -> Self {
        Config {
            backend,
            game_state_url: game_state_url.into(),
            rooms_url: None,
            bots_urls: Vec::new(),
            visibility: DEFAULT_VISIBILITY,
            poll: DEFAULT_POLL,
            clock: Clock::system(),
        }
    }
}

/// Serves timers and runs its worker until `shutdown` completes.
pub async fn run(
    config: Config,
    listener: TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    let reachable = config.backend.reachability(Backend::PROBE_PERIOD);
    let store = TimerStore::new(config.backend.clone());
    let wake = Arc::new(Notify::new());
    let stop = CancellationToken::new();
    let game_state = GameStateClient::new(ludus_server::traced_channel(&config.game_state_url)?);
    let rooms = config
        .rooms_url
        .as_deref()
        .map(|url| ludus_server::traced_channel(url).map(RoomsClient::new))
        .transpose()?;
    let bots = config
        .bots_urls
        .iter()
        .map(|url| ludus_server::traced_channel(url).map(BotsClient::new))
        .collect::<Result<Vec<_>, _>>()?;
    let worker = tokio::spawn(worker::run(
        worker::Worker {
            store: store.clone(),
            game_state,
            rooms,
            bots: worker::BotReplicas::new(bots),
            visibility: config.visibility,
            poll: config.poll,
            wake: wake.clone(),
            clock: config.clock.clone(),
        },
        stop.clone(),
    ));
    // Counting polls the store: only when metrics are exported.
    let counting = ludus_telemetry::metrics::enabled().then(|| {
        let backlog = backlog::Backlog::default();
        backlog.observe(&ludus_telemetry::metrics::meter());
        tokio::spawn(backlog.run(
            store.clone(),
            config.clock.clone(),
            backlog::BACKLOG_INTERVAL,
            stop.clone(),
        ))
    });
    // The worker stops when the server does, whichever way it stops.
    let _stop_worker = stop.clone().drop_guard();
    let stop_on_shutdown = stop.clone();
    let shutdown = async move {
        shutdown.await;
        stop_on_shutdown.cancel();
    };
    let server = TimersServer::new(TimersService::new(store, wake));
    let served = ludus_server::serve_while_ready(server, listener, shutdown, reachable).await;
    stop.cancel();
    let _ = worker.await;
    if let Some(counting) = counting {
        let _ = counting.await;
    }
    served
}
